"""Every URL the parsed Markdown makes live: a walk over mistletoe's tree.

mistletoe finds inline links, images, autolinks and reference links (resolved the
CommonMark way: case-folded labels, first definition wins). Its gaps are covered here
rather than trusted (see "Traps worth knowing" in ``docs/ARCHITECTURE.md``):

* reference definitions are read from ``Document.footnotes`` (used or not) and, since
  that keeps only the first of duplicate labels, also from definition-shaped lines,
  each with its label (``references`` decides which ones some reference could use);
* bare URLs in text are found with the GFM autolink rules (``autolinks``);
* text that stays literal around a URL (``[text](https://x``) is reported;
* code is reported so it can be held against CommonMark's: the lines mistletoe skips as
  fenced code (``Walk.skipped_lines``) and its code spans (``Walk.code_spans``);
* indented code is not exempt at all: renderers disagree about it (markdown-it reads
  ``> a`` then a tab and ``> b`` as one quote, CommonMark as code), so its text is
  re-parsed and scanned as if it were prose.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from askai_graph.validation.autolinks import PLACEHOLDER, bare_urls
from askai_graph.validation.codes import Code
from askai_graph.validation.inline import scan_inlines
from askai_graph.validation.parsing import parse_markdown
from askai_graph.validation.report import ValidationIssue
from askai_graph.validation.urls import Destination

_MAX_REPARSE_DEPTH = 4
_REFERENCE_TYPES = frozenset({"full", "collapsed", "shortcut"})
_INLINE_BLOCKS = frozenset({"Paragraph", "Heading", "SetextHeading", "TableCell"})
# HtmlSpan appears only if some other code parses inside a mistletoe HtmlRenderer context.
_CONSTRUCTS = frozenset({"AutoLink", "InlineCode", "HtmlSpan"})
_DELIMITED = {"Strong": 2, "Emphasis": 1}
# "](" left in text is a link or image a renderer did not accept: it shows literally.
_BROKEN_LINK = re.compile(r"\]\(|\]\s+\(\s*<?\s*(?:[A-Za-z][A-Za-z0-9+.\-]*:|//|www\.)")
_DEFINITION_LINE = re.compile(r" {0,3}\[((?:[^\]\\]|\\.)+)\]:[ \t]*(.*)")
BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
# Destination-like text in code that may be prose to some renderer.
_RAW_DESTINATION = re.compile(r"\]\(\s*<?([^\s)>]*)|<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")


@dataclass
class Walk:
    """What one walk found."""

    destinations: list[Destination] = field(default_factory=list)
    """Every URL a renderer would make live, in document order per construct."""
    definitions: list[tuple[str, Destination]] = field(default_factory=list)
    """``(label, destination)`` of every reference definition mistletoe kept (label normalised)."""
    issues: list[ValidationIssue] = field(default_factory=list)
    """Broken link syntax."""
    skipped_lines: set[int] = field(default_factory=set)
    """0-based lines mistletoe read as fence openers or content, whose text went unchecked."""
    fence_closers: list[tuple[int, str]] = field(default_factory=list)
    """``(line, fence)`` after each mistletoe fence: its closer, if that line starts with the fence."""
    indented_lines: set[int] = field(default_factory=set)
    """0-based lines mistletoe read as indented code (re-checked, but still held to CommonMark)."""
    code_spans: list[str] = field(default_factory=list)
    """Whitespace-normalised contents of the draft's code spans, in document order."""
    raw_html: list[str] = field(default_factory=list)
    """Raw HTML in indented code (HTML to renderers that disagree it is code)."""


def walk_markdown(lines: Sequence[str], plain_code: Collection[int] = frozenset()) -> Walk:
    """Parse and walk a draft; fenced code content is skipped, other code re-checked.

    Indented code on ``plain_code`` lines is code to every renderer: only Markdown link
    syntax in it is still reported (a Writer that typed a link meant one).
    """
    walk = Walk()
    _walk_document(parse_markdown(lines), walk, depth=0, plain_code=plain_code)
    return walk


def definition_lines(paragraphs: Iterable[Sequence[tuple[int, str]]]) -> list[tuple[str | None, Destination]]:
    """``(label, destination)`` of every definition-shaped paragraph line, duplicates included.

    A destination on the line after its label is also returned as a bare URL (label
    ``None``: checked whatever uses the label): marked reads that line as text when the
    label sat in a block quote or list item, and links it.
    """
    return [found for lines in paragraphs for found in _definitions(lines)]


def _definitions(lines: Sequence[tuple[int, str]]) -> Iterable[tuple[str | None, Destination]]:
    for position, (index, text) in enumerate(lines):
        match = _DEFINITION_LINE.match(text)
        if match is None:
            continue
        rest = match.group(2).strip()
        if not rest and position + 1 < len(lines) and lines[position + 1][0] == index + 1:
            rest = lines[position + 1][1].strip()  # the destination may follow on the next line
            yield from ((None, found) for found in bare_urls(rest))
        if not rest:
            continue
        if rest.startswith("<") and (end := rest.find(">")) > 0:
            raw, after = rest[1:end], rest[end + 1 :]
        else:
            raw = rest.split()[0]
            after = rest[len(raw) :]
        if after.strip() and after.lstrip()[0] not in "\"'(":
            continue  # text after the destination: a paragraph (or a GFM footnote), not a definition
        url = html.unescape(BACKSLASH_ESCAPE.sub(r"\1", raw))
        yield match.group(1), Destination("definition", url, "reference definition")


def _walk_document(document: Any, walk: Walk, depth: int, plain_code: Collection[int] = frozenset()) -> None:
    for label, (destination, _title) in document.footnotes.items():
        walk.definitions.append((label, Destination("definition", destination, "reference definition")))
    stack: list[Any] = [document]
    while stack:
        token = stack.pop()
        name = type(token).__name__
        if name == "CodeFence" and depth == 0:
            # The opener (its info string is hidden too), the content, and the closer if any.
            opener, size = token.line_number - 1, token.content.count("\n")
            walk.skipped_lines.update(range(opener, opener + size + 1))
            walk.fence_closers.append((opener + size + 1, token.delimiter))
        elif name in ("BlockCode", "CodeFence"):
            code_lines = range(0)
            if depth == 0:
                first = token.line_number - 1
                code_lines = range(first, first + token.content.count("\n"))
                walk.indented_lines.update(code_lines)
            if code_lines and all(i in plain_code for i in code_lines):
                _link_syntax_in_code(token.content, walk)
            else:
                _recheck_code(token.content, walk, depth)
        elif name in _INLINE_BLOCKS:
            # Bare URLs in prose are found in the raw source (``linkify``); the walk only
            # collects the constructs, and in reparsed code also what it flattens.
            flat = _flatten(token.children, walk, record_code=depth == 0)
            if depth:
                _scan_text(flat, walk)
        else:
            children = list(token.children or ())
            if name == "Table":
                children.insert(0, token.header)
            stack.extend(reversed(children))


def _recheck_code(content: str, walk: Walk, depth: int) -> None:
    """Check code that renderers may not agree is code, as Markdown and as raw text."""
    _scan_text(content, walk)
    found = scan_inlines([list(enumerate(content.split("\n")))])
    walk.raw_html.extend(found.raw_html)
    walk.destinations.extend(Destination("link", url, "autolink in indented code") for url in found.autolinks)
    _link_syntax_in_code(content, walk)
    if depth < _MAX_REPARSE_DEPTH:
        _walk_document(parse_markdown(content.split("\n")), walk, depth + 1)


def _link_syntax_in_code(content: str, walk: Walk) -> None:
    for match in _RAW_DESTINATION.finditer(content):
        url = match.group(1) if match.group(1) is not None else match.group(2)
        walk.destinations.append(Destination("link", html.unescape(url), "link in indented code"))


def _flatten(tokens: Iterable[Any], walk: Walk, record_code: bool, emphasis: str = "") -> str:
    """Collect the links in ``tokens``; return their text with constructs as placeholders.

    ``emphasis`` holds the delimiter characters of the emphasis the tokens sit in.
    """
    parts: list[str] = []
    for token in tokens:
        name = type(token).__name__
        if name == "RawText":
            parts.append(token.content)
            if _BROKEN_LINK.search(token.content):
                message = f"Broken link syntax renders literally: {token.content.strip()[:80]}"
                walk.issues.append(ValidationIssue(code=Code.BROKEN_LINK_SYNTAX.value, message=message))
        elif name == "Link" or name == "Image":
            style = "reference" if token.dest_type in _REFERENCE_TYPES else "inline"
            if name == "Link":
                walk.destinations.append(Destination("link", token.target, f"{style} link"))
                cut = _cut_by_emphasis(token, emphasis)
                if cut is not None:
                    walk.destinations.append(Destination("link", cut, "link that marked cuts at an emphasis delimiter"))
            else:
                walk.destinations.append(Destination("image", token.src, f"{style} image"))
            _scan_text(_flatten(token.children, walk, record_code, emphasis), walk)  # link text or image description
            parts.append(PLACEHOLDER)
        elif name in _CONSTRUCTS:
            if name == "AutoLink":
                target = f"mailto:{token.target}" if token.mailto else token.target
                walk.destinations.append(Destination("link", target, "autolink"))
            elif name == "InlineCode" and record_code:
                walk.code_spans.append(" ".join(token.children[0].content.split()))
            parts.append(PLACEHOLDER)
        elif name == "LineBreak":
            parts.append("\n")
        elif name == "EscapeSequence":
            parts.append(token.children[0].content)
        elif name in _DELIMITED or name == "Strikethrough":
            # Delimiters stay in the text: a renderer may run a URL on through them.
            mark = token.delimiter * _DELIMITED[name] if name in _DELIMITED else "~~"
            parts.append(mark + _flatten(token.children, walk, record_code, emphasis + mark[0]) + mark)
        elif token.children is not None:
            parts.append(_flatten(token.children, walk, record_code, emphasis))
        else:
            parts.append(getattr(token, "content", PLACEHOLDER))
    return "".join(parts)


def _cut_by_emphasis(link: Any, emphasis: str) -> str | None:
    """The URL marked makes live of an inline ``link`` inside ``_``/``*`` emphasis, when it differs.

    marked masks a link's brackets before it pairs emphasis delimiters, but not a link
    whose text holds brackets of its own (an image, ``[b]``): an emphasis delimiter in
    its bare destination then closes the emphasis it sits in, and marked links the URL
    up to there (``_[![d](i)](https://x/Cache_(y))_`` makes ``https://x/Cache`` live).
    """
    if link.dest_type != "uri" or not any(type(child).__name__ == "Image" or "[" in getattr(child, "content", "")
                                          for child in link.children):  # fmt: skip
        return None
    cuts = [link.target.find(mark) for mark in set(emphasis) & {"_", "*"} if mark in link.target]
    return link.target[: min(cuts)] if cuts else None


def _scan_text(text: str, walk: Walk) -> None:
    walk.destinations.extend(bare_urls(text))
