"""Heading anchors: the id each heading of a page gets on the real site.

A source card links to the section its quote comes from, so the id must be the one the
generator writes into the built page: a custom id (``## Install { #setup }`` in MkDocs'
``attr_list``, ``## Install {#setup}`` in Docusaurus and Hugo) always wins; otherwise
the generator's slug of the heading's text:

- **MkDocs** (Python-Markdown ``toc``): NFKD to ASCII, drop what is not a word
  character, space or hyphen, lower-case, runs of spaces and hyphens become one ``-``;
  a repeated id gets ``_1``, ``_2``...
- **Docusaurus, Hugo and the rest** (GitHub's slugger): lower-case, drop punctuation,
  each space becomes ``-``; a repeated id gets ``-1``, ``-2``...

Read from the page's Markdown before its attribute lists are removed; each anchor is
keyed by the heading as its section names it afterwards (``retrieval.passages``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from askai_graph.evidence.results import HeadingAnchor
from askai_graph.indexing.markup import clean_prose, fenced_lines, plain_line
from askai_graph.retrieval.passages import first_heading_in

_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}\s+\S")
_CUSTOM_ID = re.compile(r"\{\s*:?\s*(?:[^{}]*?\s)?#([\w:.-]+)[^{}]*\}\s*#*\s*$")
_MKDOCS_DROP = re.compile(r"[^\w\s-]")
_MKDOCS_JOIN = re.compile(r"[-\s]+")
_GITHUB_DROP = re.compile(r"[^\w\- ]")


def mkdocs_slug(text: str) -> str:
    """Return Python-Markdown ``toc``'s default slug of a heading's text."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _MKDOCS_JOIN.sub("-", _MKDOCS_DROP.sub("", ascii_text).strip().lower())


def github_slug(text: str) -> str:
    """Return GitHub's (github-slugger, Docusaurus, Hugo) slug of a heading's text."""
    return _GITHUB_DROP.sub("", text.strip().lower()).replace(" ", "-")


def heading_anchors(markdown: str, generator: str) -> tuple[HeadingAnchor, ...]:
    """Return each heading of ``markdown`` (outside code fences) with its id on the built page.

    ``markdown`` still carries its attribute lists; ``generator`` is the site's
    (``mkdocs`` slugs the MkDocs way, anything else the GitHub way).
    """
    mkdocs = generator == "mkdocs"
    taken: set[str] = set()
    anchors: list[HeadingAnchor] = []
    for line, code in fenced_lines(markdown):
        if code or not _HEADING_LINE.match(line):
            continue
        heading = first_heading_in(clean_prose(line))
        if not heading:
            continue
        custom = _CUSTOM_ID.search(line)
        base = custom.group(1) if custom else (mkdocs_slug if mkdocs else github_slug)(plain_line(heading))
        anchors.append(HeadingAnchor(heading=heading, id=_unique(base, taken, mkdocs)))
    return tuple(anchors)


def _unique(base: str, taken: set[str], mkdocs: bool) -> str:
    """Return ``base``, or its first free numbered form the way the generator numbers a repeat."""
    anchor, count = base, 0
    while anchor in taken or not anchor:
        count += 1
        anchor = f"{base}_{count}" if mkdocs else f"{base}-{count}"
    taken.add(anchor)
    return anchor


_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_LINK_MARKS = "¶#\u200b \u00a0"


def heading_ids(root: Any) -> dict[str, list[str]]:
    """Return, for each heading text of a built page (an lxml tree), the ids the page gives it, in page order.

    A built page names its heading ids itself: ``<h2 id=...>`` (MkDocs, Docusaurus,
    Hugo), a permalink inside the heading (``<a class="headerlink" href="#...">``), or
    Sphinx's ``<section id=...>`` around it. Read before extraction changes the tree.
    """
    ids: dict[str, list[str]] = {}
    for element in root.iter(*_HEADING_TAGS):
        anchor = _html_id(element)
        text = _heading_text(element)
        if anchor and text:
            ids.setdefault(text, []).append(anchor)
    return ids


def html_anchors(ids: dict[str, list[str]], markdown: str) -> tuple[HeadingAnchor, ...]:
    """Return the headings of ``markdown`` (a built page's text) with the ids ``heading_ids`` found for them.

    Headings are matched by their text, in page order; a heading the page gives no id
    has no anchor (its cards use a text fragment).
    """
    ids = {text: list(found) for text, found in ids.items()}
    anchors = []
    for line, code in fenced_lines(markdown):
        heading = first_heading_in(line) if not code and _HEADING_LINE.match(line) else ""
        found = ids.get(" ".join(plain_line(heading).strip(_LINK_MARKS).casefold().split())) if heading else None
        if found:
            anchors.append(HeadingAnchor(heading=heading, id=found.pop(0)))
    return tuple(anchors)


def _html_id(element: Any) -> str:
    """Return the id a heading element is linked by: its own, its permalink's, or its section's."""
    if element.get("id"):
        return str(element.get("id"))
    for link in element.iter("a"):
        href = str(link.get("href") or "")
        if href.startswith("#") and len(href) > 1:
            return href[1:]
    parent = element.getparent()
    first = next(parent.iter(*_HEADING_TAGS), None) if parent is not None else None
    if parent is not None and parent.tag == "section" and parent.get("id") and first is element:
        return str(parent.get("id"))
    return ""


def _heading_text(element: Any) -> str:
    """Return a heading's text as compared (case-folded, spaces collapsed), its permalink's mark left out."""
    parts = [element.text or ""]
    for child in element:
        href = str(child.get("href") or "") if child.tag == "a" else ""
        if not href.startswith("#"):
            parts.append(child.text_content())
        parts.append(child.tail or "")
    return " ".join("".join(parts).strip(_LINK_MARKS).casefold().split())
