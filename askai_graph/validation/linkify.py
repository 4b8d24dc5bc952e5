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

import re
from collections.abc import Iterator
from dataclasses import dataclass

from askai_graph.validation.autolinks import PLACEHOLDER, trim_url
from askai_graph.validation.urls import Destination

# Schemes anywhere (marked starts a URL even inside a word); "//" where linkify-it takes
# it as protocol-relative; "www." where GFM lets it start (line start, space, * _ ~ ( ).
_START = re.compile(
    r"(?i)(?:https?|ftp)://|mailto:|(?<![\w.:/\\@-])//(?=[^\s/])|(?<![^\s*_~(" + PLACEHOLDER + r"])www\."
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
_EMAIL_LOCAL = re.compile(r"[\w.+\-;:&=$,!#%'*/?^`{|}~]+$")
_EMAIL_DOMAIN = re.compile(r"[\w\-+]+(?:\.[\w\-+]+)+")
_INTRAWORD_UNDERSCORE = re.compile(r"(?<=[^\W_])_(?=[^\W_])")
_LINK_TAIL = re.compile(r"\]\(")
_DEFINITION = re.compile(
    r" {0,3}\[(?!\^)(?=[^\]\n]*[^\s\]])(?:[^\[\]\\\n]|\\.)+\]:[ \t]*\n?[ \t]*(?P<dest><[^<>\n]*>|[^\s<]\S*)"
    r"(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t]*(?=\n|$)"
)


@dataclass(frozen=True, slots=True)
class RawUrl:
    """A bare URL whose raw text an autolinker would link undecoded."""

    text: str
    """The raw text, entity references or backslashes included."""


def linkable_urls(text: str) -> Iterator[Destination | RawUrl]:
    """Yield every URL some autolinker could make live in ``text`` (one block's inline text).

    ``text`` is the raw inline source of a paragraph, heading or table, with code spans,
    autolinks and raw HTML already replaced by ``PLACEHOLDER``.
    """
    skip = _inline_link_spans(text) + _leading_definitions(text)
    covered: list[tuple[int, int]] = []
    for match in _START.finditer(text):
        start = match.start()
        if covered and start < covered[-1][1] or _inside(start, skip):
            continue
        end_match = _RUN_END.search(text, start)
        run = text[start : end_match.start() if end_match else len(text)]
        covered.append((start, start + len(run)))
        if _RAW_DIFFERS.search(run):
            yield RawUrl(run)
            continue
        for url in _readings(run, _blank(text[:start], skip + covered[:-1])):
            if url.lower() in ("http://", "https://", "ftp://", "mailto:", "//", "www."):
                continue  # a scheme alone: no renderer links it
            if url[:4].lower() == "www.":
                url = "http://" + url  # the href GFM renderers produce
            yield Destination("link", url, "bare URL")
    yield from _emails(text, covered, skip)


def _readings(run: str, before: str) -> set[str]:
    """Every string a renderer could link from ``run``: GFM, linkify-it, emphasis, tables.

    ``before`` is the block's text before the URL (inline links blanked out): an odd
    number of delimiters there may leave an opener that a delimiter in the URL closes.
    """
    readings = {_gfm_trim(run), _linkify_trim(run)}
    for position, char in enumerate(run):
        if position and char in _EMPHASIS and _delimiters(before, char) % 2 == 1:
            readings.add(_gfm_trim(run[:position]))  # an earlier opener may close here
        elif char == "|":
            readings.add(_gfm_trim(run[:position]))  # a table cell ends here
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


def _delimiters(text: str, char: str) -> int:
    """Occurrences of ``char`` that may open or close emphasis (not escaped, not ``_`` inside a word)."""
    count = text.count(char) - text.count("\\" + char)
    if char == "_":
        count -= len(_INTRAWORD_UNDERSCORE.findall(text))
    return count


def _linkify_trim(run: str) -> str:
    """linkify-it's end of a link (and markdown-it dropping a trailing ``*``).

    ``.,;?!`` continue a link only when more of it follows (``..`` only before a letter,
    digit or ``%/&``); brackets and double quotes only when paired; ``'`` before a letter.
    """
    if stop := _LINKIFY_STOP.search(run):
        run = run[: stop.start()]
    depth = {"(": 0, "[": 0, "{": 0}
    i = 0
    while i < len(run):
        char, following = run[i], run[i + 1 : i + 2]
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
            if not (following.isalnum() or following == "-" or "'" in run[i + 1 :]):
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
            if char == "?" and same > 1 or i + same >= len(run):
                break
            i += same
            continue
        i += 1
    return run[:i].rstrip("*")


def _emails(text: str, covered: list[tuple[int, int]], skip: list[tuple[int, int]]) -> Iterator[Destination]:
    start = 0
    while (at := text.find("@", start)) != -1:
        start = at + 1
        if _inside(at, covered) or _inside(at, skip):
            continue
        local = _EMAIL_LOCAL.search(text, max(0, at - 256), at)
        domain = _EMAIL_DOMAIN.match(text, at + 1)
        if local is None or domain is None:
            continue
        address = text[local.start() : domain.end()].lstrip(".,;:'\"!?*").rstrip(".-_+")
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


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the parts inside ``spans`` removed."""
    for begin, end in sorted(spans, reverse=True):
        if begin < len(text):
            text = text[:begin] + text[end:]
    return text


def _balanced(destination: str) -> bool:
    """Whether a destination's parentheses are balanced (else it is not one, spec §6.3)."""
    depth = 0
    for position, char in enumerate(destination):
        if char in "()" and not _escaped(destination, position):
            depth += 1 if char == "(" else -1
            if depth < 0:
                return False
    return depth == 0


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(begin <= position < end for begin, end in spans)


def _inline_link_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``[text](destination "title")``: no renderer autolinks inside them."""
    spans = []
    for tail in _LINK_TAIL.finditer(text):
        close = _destination_end(text, tail.end())
        opener = _opening_bracket(text, tail.start())
        if close is not None and opener is not None:
            spans.append((opener, close))
    return spans


def _opening_bracket(text: str, closer: int) -> int | None:
    """The unescaped ``[`` matching the ``]`` at ``closer``, if any."""
    depth = 0
    for position in range(closer - 1, -1, -1):
        char = text[position]
        if char not in "[]" or _escaped(text, position):
            continue
        if char == "]":
            depth += 1
        elif depth:
            depth -= 1
        else:
            return position
    return None


def _escaped(text: str, position: int) -> bool:
    backslashes = 0
    while position - backslashes - 1 >= 0 and text[position - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


_TITLE = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)", re.DOTALL)


def _destination_end(text: str, i: int) -> int | None:
    """Parse a link destination and optional title from ``i``; return the index after ``)``."""
    i = _skip_space(text, i)
    if text.startswith("<", i):
        end = text.find(">", i)
        if end == -1 or "\n" in text[i:end] or "<" in text[i + 1 : end]:
            return None
        i = end + 1
    else:
        depth = 0
        while i < len(text) and not text[i].isspace():
            char = text[i]
            if char == "\\":
                i += 2
                continue
            if char == "(":
                depth += 1
            elif char == ")":
                if not depth:
                    break
                depth -= 1
            i += 1
    before_title = i
    i = _skip_space(text, i)
    if i > before_title and (title := _TITLE.match(text, i)):
        i = _skip_space(text, title.end())
    return i + 1 if text.startswith(")", i) else None


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i
