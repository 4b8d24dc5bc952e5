"""What instant search shows of a passage, cut once: its sections as plain text, with their links.

``retrieval.search`` shows a page's matching sections: each one's heading, the link to
it on the real page and a plain-text snippet. Cutting a passage's Markdown into
sections and those into plain text was most of a search's time at 100k pages; a built
index does it once, when it writes the passage (``indexing.writer``, table ``shown``),
and a search reads the result in the same query that names the passage's page. A
corpus loaded in memory cuts a passage on first use (``shown_passage``, cached).

A ``ShownPassage`` also keeps the content terms of every heading-shaped line of the
passage (code comments too: they only order candidate pages, as before), so a search
tells a page whose heading is the query without reading the Markdown either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from askai_graph.evidence.citations import (
    FENCE_LINE,
    HEADING_LINE,
    fragment_url,
    heading_url,
    plain_heading,
    plain_quote,
)
from askai_graph.evidence.results import HeadingAnchor
from askai_graph.retrieval.passages import split_sections
from askai_graph.text.plain import strip_html_tags
from askai_graph.text.terms import content_terms

_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)]|>+|\|)[ \t]*", re.MULTILINE)


class ShownSection(NamedTuple):
    """One section of a passage as a search result shows it (a tuple: a search builds hundreds)."""

    key: tuple[str, str]
    """Its heading as written and its plain text: the same section cut from two passages is shown once."""
    heading: str
    """Its heading as the page shows it ('' for the page's opening text)."""
    url: str
    """The link to it: the heading's anchor on the real page, else a text fragment of the heading."""
    text: str
    """Its plain text on one line (no heading line, markup or HTML tag; code as text)."""
    heading_terms: frozenset[str]
    """The content terms of ``heading`` (as ``_heading_terms`` reads a heading)."""


@dataclass(frozen=True)
class ShownPassage:
    """A passage as a search reads it: the terms of its heading-shaped lines, and its sections."""

    headings: tuple[frozenset[str], ...]
    sections: tuple[ShownSection, ...]


def cut_passage(url: str, anchors: Sequence[HeadingAnchor], markdown: str) -> ShownPassage:
    """Return the passage ``markdown`` of the page at ``url`` (with its heading ``anchors``) as a search shows it."""
    sections = []
    for section in split_sections(markdown):
        heading = plain_heading(section.heading)
        link = _section_url(url, anchors, section.heading, heading)
        text = plain_section(section.text)
        sections.append(ShownSection((section.heading, text), heading, link, text, heading_terms(heading)))
    return ShownPassage(tuple(heading_terms(line) for line in headings_of(markdown)), tuple(sections))


@lru_cache(maxsize=4096)
def shown_passage(url: str, anchors: tuple[HeadingAnchor, ...], markdown: str) -> ShownPassage:
    """Return ``cut_passage``, kept for the last few thousand passages (a corpus in memory cuts at query time)."""
    return cut_passage(url, anchors, markdown)


def dump_headings(passage: ShownPassage) -> str:
    """Return the stored form of ``passage``'s heading terms (JSON: a sorted list of terms per heading line)."""
    return "[" + ",".join(_terms_json(terms) for terms in passage.headings) + "]"


@lru_cache(maxsize=1024)
def _terms_json(terms: frozenset[str]) -> str:
    return json.dumps(sorted(terms), ensure_ascii=False, separators=(",", ":"))


def dump_sections(passage: ShownPassage) -> str:
    """Return the stored form of ``passage``'s sections (JSON: ``[heading as written, heading, url, text]`` each)."""
    rows = [[s.key[0], s.heading, s.url, s.text] for s in passage.sections]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def load_headings(stored: str) -> tuple[frozenset[str], ...]:
    """Return the heading terms ``dump_headings`` stored."""
    return tuple(frozenset(terms) for terms in json.loads(stored))


def load_sections(stored: str) -> tuple[ShownSection, ...]:
    """Return the sections ``dump_sections`` stored."""
    return tuple(
        ShownSection((written, text), heading, url, text, heading_terms(heading))
        for written, heading, url, text in json.loads(stored)
    )


@lru_cache(maxsize=8192)
def heading_terms(text: str) -> frozenset[str]:
    """Return the content terms of a heading (its plain form's: a search compares them with the query's)."""
    return frozenset(content_terms(plain_heading(text)))


def headings_of(markdown: str) -> list[str]:
    """Return the heading-shaped lines of ``markdown`` (code comments too: this only orders candidates).

    Line by line, not one multi-line pattern: Python's ``re`` tries a multi-line ``^`` at
    every character, ten times slower on a passage than testing each line's first ones.
    """
    return [
        heading.group(1)
        for line in markdown.splitlines()
        if "#" in line[:4] and (heading := _HEADING.match(line)) is not None
    ]


def plain_section(markdown: str) -> str:
    """Return a section's Markdown as one line of plain text: no heading line, markup or HTML tag; code as text."""
    shown: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        opener = FENCE_LINE.match(line)
        if opener and (fence is None or opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)):
            if fence is None:
                shown.append(_plain_prose(prose))
                prose = []
            fence = None if fence else opener.group(1)
            continue
        if fence is not None:
            shown.append(line.strip())  # code is text: `<script>` stays those characters
        elif not HEADING_LINE.match(line):
            prose.append(line)
    shown.append(_plain_prose(prose))
    return " ".join(" ".join(shown).split())


def _plain_prose(lines: list[str]) -> str:
    """Return Markdown prose lines as text: list and quote marks, HTML tags and inline markup dropped."""
    if not lines:
        return ""
    return plain_quote(strip_html_tags(_LIST_MARK.sub("", "\n".join(lines))))


def _section_url(url: str, anchors: Sequence[HeadingAnchor], heading: str, shown: str) -> str:
    if not heading:
        return url
    anchor = next((a.id for a in anchors if a.heading == heading), None)
    return heading_url(url, anchor) if anchor else fragment_url(url, shown)


class ShownRow:
    """A passage a search read: its page's id, title and URL, and the passage as shown (parsed on first use).

    A search reads a few dozen passages to group them into pages but shows the sections of
    the first few pages only: the stored JSON of the others is never parsed.
    """

    __slots__ = ("post_id", "title", "url", "_headings", "_sections")

    def __init__(
        self,
        post_id: int,
        title: str,
        url: str,
        headings: str | tuple[frozenset[str], ...],
        sections: str | tuple[ShownSection, ...],
    ) -> None:
        """Hold a passage's page and its heading terms and sections, stored (JSON) or already cut."""
        self.post_id, self.title, self.url = post_id, title, url
        self._headings, self._sections = headings, sections

    def has_heading(self, terms: frozenset[str]) -> bool:
        """Whether a heading-shaped line of the passage has exactly these content terms.

        Read from the stored JSON without parsing it: each heading's terms are one flat list
        (``["a","b"]``) inside the outer one, so the query's list, written the same way,
        occurs in it only as one of them.
        """
        if isinstance(self._headings, str):
            return _terms_json(terms) in self._headings
        return terms in self._headings

    @property
    def headings(self) -> tuple[frozenset[str], ...]:
        """The content terms of each heading-shaped line of the passage."""
        if isinstance(self._headings, str):
            self._headings = load_headings(self._headings)
        return self._headings

    @property
    def sections(self) -> tuple[ShownSection, ...]:
        """The passage's sections as a search shows them."""
        if isinstance(self._sections, str):
            self._sections = load_sections(self._sections)
        return self._sections
