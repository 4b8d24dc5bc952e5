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

from askai_graph.evidence import HeadingAnchor
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
