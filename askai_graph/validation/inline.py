"""The first pass of CommonMark inline parsing, independent of mistletoe.

Code spans, autolinks and raw HTML bind tighter than everything else and are found by
one left-to-right scan: whichever starts first wins, and backslash escapes apply
outside code spans (spec §6.1, §6.3, §6.5, §6.6). mistletoe finds code spans with a
regex first, so an escaped backtick before a run makes it swallow text, links included, that
CommonMark renderers show. This scan gives the CommonMark answer for each paragraph or
heading, so the validator can compare code spans with mistletoe's and check autolinks
and raw HTML that mistletoe misread.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from askai_graph.validation.autolinks import PLACEHOLDER

_BACKTICKS = re.compile(r"`+")
_AUTOLINK = re.compile(
    r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\x00-\x20<>]*)>"
    r"|<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*)>"
)
_ATTRIBUTE = r"(?:[ \t\n]+[A-Za-z_:][A-Za-z0-9_.:\-]*(?:[ \t\n]*=[ \t\n]*(?:[^ \t\n\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)"
_TAG = re.compile(rf"<[A-Za-z][A-Za-z0-9\-]*{_ATTRIBUTE}*[ \t\n]*/?>|</[A-Za-z][A-Za-z0-9\-]*[ \t\n]*>")
# Raw HTML that runs to a terminator (comments, CDATA, processing instructions,
# declarations): searched with str.find, remembering misses, so that a draft full of
# unterminated openers is still scanned in linear time.
_TERMINATED = (("<!-->", ""), ("<!--->", ""), ("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"))
# A line that starts an HTML block (spec §4.6), which may also interrupt a paragraph.
_HTML_BLOCK_START = re.compile(r"<(?:/?[A-Za-z][A-Za-z0-9\-]*(?:[ \t>]|/>|$)|!--|\?|![A-Za-z]|!\[CDATA\[)")
_CONTAINER_MARKERS = re.compile(r"(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*")
_SPECIAL = re.compile(r"[\\`<]")


@dataclass
class InlineScan:
    """What the first inline pass found, in document order."""

    code_spans: list[str] = field(default_factory=list)
    """Code span contents, whitespace-normalised (as mistletoe's are compared)."""
    autolinks: list[str] = field(default_factory=list)
    """Autolink destinations (``mailto:`` added to e-mail addresses)."""
    raw_html: list[str] = field(default_factory=list)
    """Raw HTML snippets."""
    texts: list[str] = field(default_factory=list)
    """Each block's inline text, code spans, autolinks and raw HTML replaced by ``PLACEHOLDER``."""


def scan_inlines(blocks: Iterable[Sequence[tuple[int, str]]]) -> InlineScan:
    """Scan the inline content of each paragraph or heading (lines as ``(index, text)``)."""
    found = InlineScan()
    for block in blocks:
        lines = [text.lstrip(" \t") for _, text in block]  # a paragraph's lines lose their indentation
        for line in lines:
            # Container markers too: indented code is scanned as prose a renderer may nest.
            markers = _CONTAINER_MARKERS.match(line)
            start = markers.end() if markers else 0
            if _HTML_BLOCK_START.match(line, start) and not _AUTOLINK.match(line, start):
                found.raw_html.append(line)
        text = "\n".join(lines)
        spans: list[tuple[int, int]] = []
        _scan(text, found, spans)
        found.texts.append(_mask(text, spans))
    return found


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace each span by one ``PLACEHOLDER``: what autolinkers see as "something else"."""
    parts, at = [], 0
    for start, end in spans:
        parts += [text[at:start], PLACEHOLDER]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def _scan(text: str, found: InlineScan, spans: list[tuple[int, int]]) -> None:
    i = 0
    unmatched: dict[int, int] = {}  # run length -> position after which it has no closer
    missing: set[str] = set()  # terminators that do not occur after some position
    while special := _SPECIAL.search(text, i):
        i = special.start()
        if special.group() == "\\":
            i += 2
        elif special.group() == "`":
            opener = _BACKTICKS.match(text, i)
            assert opener is not None
            i = opener.end()
            closer = _matching_backticks(text, i, len(opener.group()), unmatched)
            if closer is not None:
                found.code_spans.append(" ".join(text[i : closer.start()].split()))
                spans.append((opener.start(), closer.end()))
                i = closer.end()
        else:
            start, (i, matched) = i, _angle(text, i, found, missing)
            if matched:
                spans.append((start, i))


def _in_table_row(text: str, start: int, end: int) -> bool:
    """Say whether the line holding ``text[start:end]`` has a ``|`` of its own: a table row, maybe."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return "|" in text[line_start:start] or "|" in text[end : None if line_end == -1 else line_end]


def _matching_backticks(text: str, start: int, length: int, unmatched: dict[int, int]) -> re.Match[str] | None:
    """The next backtick run of exactly ``length`` after ``start``, if any.

    ``unmatched`` remembers failed searches so a line of stray backticks stays linear.
    """
    if start >= unmatched.get(length, len(text) + 1):
        return None
    for run in _BACKTICKS.finditer(text, start):
        if len(run.group()) == length:
            return run
    unmatched[length] = start
    return None


def _angle(text: str, i: int, found: InlineScan, missing: set[str]) -> tuple[int, bool]:
    """Consume an autolink or raw HTML at ``text[i] == "<"``; return the next position and if one was found."""
    if autolink := _AUTOLINK.match(text, i):
        uri, email = autolink.groups()
        found.autolinks.append(uri if uri is not None else f"mailto:{email}")
        if uri is not None and "|" in uri and _in_table_row(text, autolink.start(), autolink.end()):
            # In a GFM table row the ``|`` ends the cell first: what goes live is the
            # prefix, autolinked as a bare URL by linkify, marked and micromark.
            found.autolinks.append(uri[: uri.index("|")])
        return autolink.end(), True
    if tag := _TAG.match(text, i):
        found.raw_html.append(tag.group())
        return tag.end(), True
    terminated = [(opener, closer) for opener, closer in _TERMINATED if text.startswith(opener, i)]
    if (
        not terminated
        and text[i + 1 : i + 2] == "!"
        and text[i + 2 : i + 3].isascii()
        and text[i + 2 : i + 3].isalpha()
    ):
        terminated = [("<!", ">")]  # a declaration such as <!doctype html>
    for opener, closer in terminated[:1]:
        end = i + len(opener) if not closer else -1 if closer in missing else text.find(closer, i + len(opener))
        if end == -1:
            missing.add(closer)
            return i + 1, False
        found.raw_html.append(text[i : end + len(closer)])
        return end + len(closer), True
    return i + 1, False
