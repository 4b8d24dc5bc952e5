"""Bare URLs in prose, read from the raw source the way autolinkers read it.

GFM renderers and markdown-it's ``linkify`` turn URL-shaped text into live links, and
they work on the *raw* characters: an entity reference or a backslash escape inside a
bare URL is linked as written, not decoded (``https://docs.example.co&#109;/a`` links
``https://docs.example.co``). They also disagree on where a URL ends: linkify-it keeps a
trailing ``_``, ``~`` or ``:`` that GFM trims, stops at ``>``, an unbalanced ``]`` or an
unpaired quote, and marked ends a URL at an emphasis delimiter that closes an earlier
opener (``_https://x/Foo_(bar)`` links ``https://x/Foo``); a GFM table ends it at ``|``.

So every URL start linkify-it, marked or micromark recognises (``http(s)://``, ``ftp://``,
``mailto:``, protocol-relative ``//host``, ``www.`` where GFM allows it, e-mail addresses
with IDN domains or ``+``) yields *every* string some renderer could link from it, and
each must be allowed. A URL whose raw text holds an entity or an escape is rejected
outright rather than guessed at. Text inside an inline link's brackets or destination is
not scanned here: renderers never autolink there (the destination itself is checked as
a link).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from askai_graph.validation.autolinks import PLACEHOLDER, trim_url
from askai_graph.validation.urls import Destination

# Schemes anywhere (marked starts a URL even inside a word); "//" where linkify-it takes
# it as protocol-relative; "www." where GFM lets it start (line start, space, * _ ~ ( )
# and micromark too (also after [ and ]), and where marked starts a new text run: after
# an escape (\` or \\ before it) or a link's closing ")"; and at a table cell's start (|).
_START = re.compile(
    r"(?i)(?:https?|ftp)://|mailto:|(?<![\w.:/\\@-])//(?=[^\s/])|(?<![^\s*_~()\[\]\\`|" + PLACEHOLDER + r"])www\."
)
_RUN_END = re.compile(r"[\s<]")
_RAW_DIFFERS = re.compile(r"\\|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# linkify-it's end of a link: a separator, an unbalanced closing bracket, an unpaired quote.
_LINKIFY_STOP = re.compile(r"[>\uff5c]")
_PAIRS = {")": "(", "]": "[", "}": "{"}
_AFTER_DOTS = re.compile(r"[A-Za-z0-9%/&]")
_EMPHASIS = "_*~"
# E-mail addresses are found from their "@": local part backwards, domain forwards
# (linkify-it allows ;:&=+$, in the local part and any letters in the domain).
_EMAIL_LOCAL_CHARS = frozenset("_.+-;:&=$,!#%'*/?^`{|}~")
_EMAIL_DOMAIN = re.compile(r"[\w\-+]+(?:\.[\w\-+]+)+")
# linkify-it takes symbols (` ^ $ | ~ = ...) as letters in a domain: any run of such
# characters with a dot is a domain it may link (every e-mail address is refused anyway).
_DOMAIN_PART = r"[^\s<>\uff5c@.\[\]()" + PLACEHOLDER + r"]+"
_LOOSE_DOMAIN = re.compile(rf"(?:{_DOMAIN_PART}\.)+{_DOMAIN_PART}")
_INTRAWORD_UNDERSCORE = re.compile(r"(?<=[^\W_])_(?=[^\W_])")
_DELIMITER = re.compile(r"[_*~]")
_MAX_RUN = 2048
"""Longer "URLs" are rejected unread: no real citation is that long."""
_MAX_CUTS = 16
"""More places a renderer could end one URL than this, and it is rejected unread."""
_LINK_SCAN = 2048
"""How far a link destination is looked for; a longer one is not skipped (scanned as text)."""
_LINK_TAIL = re.compile(r"\]\(")
_BRACKET = re.compile(r"[\[\]]")
# An unescaped parenthesis: after an even run of backslashes.
_PARENTHESIS = re.compile(r"(?<!\\)(?:\\\\)*([()])")
# An inline link's destination (parentheses nested one level: a deeper one is not
# skipped, so its text is scanned) and optional title, as in CommonMark §6.3.
_DESTINATION = re.compile(r"[ \t]*\n?[ \t]*(?:<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)")
_TITLE = re.compile(
    r"""(?:[ \t]+\n?|[ \t]*\n)[ \t]*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))[ \t]*\n?[ \t]*"""
    r"|[ \t]*\n?[ \t]*",
    re.DOTALL,
)
_DEFINITION = re.compile(
    r" {0,3}\[(?!\^)(?=[^\]\n]*[^\s\]])(?:[^\[\]\\\n]|\\.)+\]:[ \t]*\n?[ \t]*(?P<dest><[^<>\n]*>|[^\s<]\S*)"
    r"(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t]*(?=\n|$)"
)


@dataclass(frozen=True, slots=True)
class RawUrl:
    """A bare URL the gate will not guess about: rejected as written."""

    text: str
    """The raw text, entity references or backslashes included."""
    reason: str
    """Why it is rejected."""


def linkable_urls(text: str) -> Iterator[Destination | RawUrl]:
    """Yield every URL some autolinker could make live in ``text`` (one block's inline text).

    ``text`` is the raw inline source of a paragraph, heading or table, with code spans,
    autolinks and raw HTML already replaced by ``PLACEHOLDER``. Linear in ``len(text)``.
    """
    lowered = text.lower()
    if "//" not in text and "www." not in lowered and "mailto:" not in lowered and "@" not in text:
        return  # nothing any autolinker starts a link from (most paragraphs)
    skipped = bytearray(len(text))
    for begin, end in _inline_link_spans(text) + _leading_definitions(text):
        skipped[begin:end] = b"\x01" * (end - begin)
    delimiters = dict.fromkeys(_EMPHASIS, 0)
    counted = 0  # delimiters before this position are in ``delimiters``
    covered: list[tuple[int, int]] = []
    for match in _START.finditer(text):
        start = match.start()
        if start < counted or skipped[start]:
            continue
        _count_delimiters(text, counted, start, skipped, delimiters)
        end_match = _RUN_END.search(text, start)
        run = text[start : end_match.start() if end_match else len(text)]
        counted = start + len(run)
        covered.append((start, counted))
        if len(run) > _MAX_RUN:
            yield RawUrl(run[:80] + "...", "too long to tell where a renderer would end it")
            continue
        if _RAW_DIFFERS.search(run):
            yield RawUrl(run, "an entity or backslash escape (renderers link it undecoded)")
            continue
        after = text[counted : counted + 1]  # what stopped the run: a space, "<" or the end
        readings = _readings(run, {char for char, count in delimiters.items() if count % 2}, after)
        if readings is None:
            yield RawUrl(run, "too many places a renderer could end it")
            continue
        for url in readings:
            if url.lower() in ("http://", "https://", "ftp://", "mailto:", "//", "www."):
                continue  # a scheme alone: no renderer links it
            if url[:4].lower() == "www.":
                url = "http://" + url  # the href GFM renderers produce
            yield Destination("link", url, "bare URL")
    yield from _emails(text, covered, skipped)


def _count_delimiters(text: str, start: int, end: int, skipped: bytearray, counts: dict[str, int]) -> None:
    """Add the emphasis delimiters of ``text[start:end]`` that may open or close emphasis.

    Not counted: escaped ones, ``_`` inside a word, and those inside inline links.
    """
    for found in _DELIMITER.finditer(text, start, end):
        at = found.start()
        if skipped[at] or (at and text[at - 1] == "\\"):
            continue
        char = found.group()
        if char == "_" and _INTRAWORD_UNDERSCORE.match(text, at):
            continue
        counts[char] += 1


def _readings(run: str, open_delimiters: set[str], after: str = "") -> set[str] | None:
    """Every string a renderer could link from ``run``: GFM, linkify-it, emphasis, tables.

    A delimiter in ``open_delimiters`` (odd in number before the URL) may close an
    earlier opener inside the URL. ``None`` when there are too many such places.
    """
    readings = {_gfm_trim(run), _linkify_trim(run, after)}
    cuts = [i for i, char in enumerate(run) if i and (char in open_delimiters or char == "|")]
    if len(cuts) > _MAX_CUTS:
        return None
    readings.update(_gfm_trim(run[:cut]) for cut in cuts)
    return readings


def _gfm_trim(run: str) -> str:
    """GFM's end of an extended autolink as marked and micromark apply it.

    Besides the spec's ``?!.,:*_~`` they also drop a trailing ``;`` and quotes.
    """
    while True:
        before = run
        run = trim_url(run).rstrip(";'\"")
        if run == before:
            return run


def _linkify_trim(run: str, after: str = "") -> str:
    """linkify-it's end of a link (and markdown-it dropping a trailing ``*``).

    ``.,;?!`` continue a link only when more of it follows (``..`` only before a letter,
    digit or ``%/&``); brackets and quotes only when paired, or ``'`` before a letter.
    ``after`` is the character that ended the run: before a ``<`` (which linkify-it stops
    at, but which is not a space) a final ``;``, ``,``, ``.``, ``?`` or ``!`` is kept.
    """
    if stop := _LINKIFY_STOP.search(run):
        run = run[: stop.start()]
    depth = {"(": 0, "[": 0, "{": 0}
    i = 0
    tail = after if after and not after.isspace() else ""
    while i < len(run):
        char, following = run[i], run[i + 1 : i + 2] or tail
        if char in depth:
            depth[char] += 1
        elif char in _PAIRS:
            if not depth[_PAIRS[char]]:
                break
            depth[_PAIRS[char]] -= 1
        elif char == '"':
            close = run.find('"', i + 1)
            if close == -1:
                break
            i = close
        elif char == "'":
            # A quoted part ('...' of 1 to 100 characters) is taken whole, closing quote
            # included: ``/Don't_Panic'`` links with its last quote. A lone quote goes on
            # only before a letter or ``-``.
            close = run.find("'", i + 1, i + 102)
            if close > i + 1:
                i = close
            elif not (following.isalnum() or following == "-"):
                break
        elif char == ".":
            dots = len(run[i:]) - len(run[i:].lstrip("."))
            if dots > 1 and _AFTER_DOTS.match(run, i + dots):
                i += dots
                continue
            if not following or following == ".":
                break
        elif char in ",;":
            if not following:
                break
        elif char in "?!":
            same = len(run[i:]) - len(run[i:].lstrip(char))
            if char == "?" and same > 1 or (i + same >= len(run) and not tail):
                break
            i += same
            continue
        i += 1
    return run[:i].rstrip("*")


def _emails(text: str, covered: list[tuple[int, int]], skipped: bytearray) -> Iterator[Destination]:
    """E-mail addresses outside URL runs and inline links (found from their ``@``)."""
    starts = [begin for begin, _ in covered]
    start = 0
    while (at := text.find("@", start)) != -1:
        start = at + 1
        run = bisect.bisect_right(starts, at) - 1
        if skipped[at] or (run >= 0 and at < covered[run][1]):
            continue
        local = at
        while local > max(0, at - 256) and (text[local - 1] in _EMAIL_LOCAL_CHARS or text[local - 1].isalnum()):
            local -= 1
        domain = _EMAIL_DOMAIN.match(text, at + 1) or _LOOSE_DOMAIN.match(text, at + 1)
        if local == at or domain is None:
            continue
        address = text[local : domain.end()].lstrip(".,;:'\"!?*").rstrip(".-_+")
        yield Destination("link", "mailto:" + address, "bare e-mail address")


def _leading_definitions(text: str) -> list[tuple[int, int]]:
    """Spans of the reference definitions that open a paragraph (checked as definitions).

    Only at the start of a paragraph is such a line a definition (one cannot interrupt a
    paragraph), and a GFM footnote (``[^1]: ...``) is text that renderers autolink.
    """
    spans = []
    at = 0
    while (definition := _DEFINITION.match(text, at)) and _balanced(definition.group("dest")):
        spans.append((definition.start(), definition.end()))
        at = definition.end() + 1
    return spans


def _balanced(destination: str) -> bool:
    """Whether a destination's parentheses are balanced (else it is not one, spec §6.3)."""
    depth = 0
    for match in _PARENTHESIS.finditer(destination):
        depth += 1 if match.group(1) == "(" else -1
        if depth < 0:
            return False
    return depth == 0


def _inline_link_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``[text](destination "title")``: no renderer autolinks inside them."""
    if "](" not in text:
        return []
    openers = _matching_openers(text)
    spans = []
    for tail in _LINK_TAIL.finditer(text):
        opener = openers.get(tail.start())
        # A stray backtick in the brackets: marked does not read it as a link (its text,
        # destination included, is then autolinked), so it is not skipped.
        if opener is None or "`" in text[opener : tail.start()]:
            continue
        if (close := _destination_end(text, tail.end())) is not None:
            spans.append((opener, close))
    return spans


def _matching_openers(text: str) -> dict[int, int]:
    """For each unescaped ``]``, the unescaped ``[`` it closes (one pass, with a stack)."""
    stack: list[int] = []
    matches = {}
    for bracket in _BRACKET.finditer(text):
        at = bracket.start()
        if at and text[at - 1] == "\\" and _escaped(text, at):
            continue
        if bracket.group() == "[":
            stack.append(at)
        elif stack:
            matches[at] = stack.pop()
    return matches


def _escaped(text: str, at: int) -> bool:
    """Whether an odd run of backslashes precedes ``text[at]``."""
    run = at
    while run and text[run - 1] == "\\":
        run -= 1
    return (at - run) % 2 == 1


def _destination_end(text: str, i: int) -> int | None:
    """Parse a link destination and optional title from ``i``; return the index after ``)``."""
    limit = min(len(text), i + _LINK_SCAN)
    destination = _DESTINATION.match(text, i, limit)
    if destination is None:
        return None
    title = _TITLE.match(text, destination.end(), limit)
    end = title.end() if title else destination.end()
    return end + 1 if text.startswith(")", end) else None
