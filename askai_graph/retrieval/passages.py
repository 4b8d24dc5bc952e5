"""Split long pages into passages at their headings, for retrieval and for evidence.

A page whose body fits in ``max_chars`` is one passage. A longer one is cut before each
Markdown heading (outside code fences); a section still longer than ``max_chars`` is cut
again between paragraphs. Every passage keeps the heading of its section, and its index
terms carry the page title too (``TITLE_REPEATS``), so "install" finds the *Install*
section of a page called *Getting started*. Citations and source cards never see
passages: they stay the page URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from askai_graph.retrieval.corpus import Page
from askai_graph.text.terms import content_terms

# About 600 words: a typical article stays whole, a long reference page splits by section.
DEFAULT_PASSAGE_CHARS = 4000
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Passage:
    """One retrievable part of a page."""

    heading: str
    """The section heading it sits under ('' for the page's opening text)."""
    text: str
    """The passage's Markdown, its heading line included."""


def split_passages(body: str, max_chars: int = DEFAULT_PASSAGE_CHARS) -> list[Passage]:
    """Return the passages of ``body`` (at least one, even for an empty body)."""
    if len(body) <= max_chars:
        return [Passage(first_heading_in(body), body)]
    passages: list[Passage] = []
    for heading, text in _sections(body):
        passages.extend(Passage(heading, chunk) for chunk in _chunks(text, max_chars))
    return passages or [Passage("", body)]


def split_sections(body: str) -> list[Passage]:
    """Return the sections of ``body`` cut at every heading outside code fences, however short."""
    return [Passage(heading, text) for heading, text in _sections(body)] or [Passage("", body)]


TITLE_REPEATS = 3
"""Times the page title counts in each passage's BM25 terms (the heading and summary count twice).

The title names what the whole page is about, so it weighs a little more than the
section heading: measured on three real docs sites (recall@6 FastAPI 0.886 -> 0.909,
Jest MRR 0.683 -> 0.696, Pydantic and the bundled site unchanged; docs/benchmarks.md).
"""


def passage_text(post: Page, passage: Passage, first: bool) -> str:
    """Return the text BM25 indexes for ``passage``: its own, the page title three times, heading twice.

    The page's summary (counted twice) is indexed with its first passage only, so a long page
    does not outrank short ones merely by repeating its summary in every passage.
    """
    summary = post.summary if first else ""
    return " ".join([post.title] * TITLE_REPEATS + [passage.heading, summary] * 2 + [passage.text])


def dense_text(title: str, summary: str, text: str) -> str:
    """Return the text an embedding model reads for a passage: page title, summary, passage.

    Pass the page summary with its first passage only (as ``passage_text`` does). Models
    read a few hundred tokens (all-MiniLM-L6-v2: 256) and ignore the rest, so the title
    and the passage's opening carry its vector.
    """
    return "\n\n".join(part for part in (title, summary, text) if part)


def passage_terms(post: Page, passage: Passage, first: bool) -> list[str]:
    """Return the BM25 terms of ``passage`` (see ``passage_text``)."""
    return content_terms(passage_text(post, passage, first))


def first_heading_in(text: str) -> str:
    """Return the first heading of ``text``, or ''."""
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            return " ".join(match.group(2).split())
    return ""


def _sections(body: str) -> list[tuple[str, str]]:
    sections: list[tuple[str, list[str]]] = [("", [])]
    fence: str | None = None
    for line in body.splitlines():
        opener = _FENCE.match(line)
        if opener and (fence is None or opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)):
            fence = None if fence else opener.group(1)
        match = None if fence or opener else _HEADING.match(line)
        if match:
            sections.append((" ".join(match.group(2).split()), [line]))
        else:
            sections[-1][1].append(line)
    merged: list[tuple[str, str]] = []
    for heading, lines in sections:
        text = "\n".join(lines).strip()
        # A heading with no text of its own (a chapter title right above its first
        # section) goes with the section that follows.
        if merged and not merged[-1][1].partition("\n")[2].strip() and merged[-1][0]:
            text = merged.pop()[1] + "\n\n" + text
        if text:
            merged.append((heading, text))
    return merged


def _paragraphs(text: str) -> list[str]:
    """Split at blank lines outside code fences: a code block is never cut in two."""
    paragraphs: list[list[str]] = [[]]
    fence: str | None = None
    for line in text.split("\n"):
        opener = _FENCE.match(line)
        if opener and (fence is None or opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)):
            fence = None if fence else opener.group(1)
        if fence is None and not opener and not line.strip():
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        paragraphs[-1].append(line)
    return ["\n".join(lines) for lines in paragraphs if lines]


def _chunks(text: str, max_chars: int) -> list[str]:
    if len(text) <= max_chars:
        return [text]
    paragraphs = _paragraphs(text)
    # The section's heading lines open every chunk, so a continuation still says what
    # it is about.
    lead = 0
    while lead < len(paragraphs) and _HEADING.match(paragraphs[lead]):
        lead += 1
    heading, rest = paragraphs[:lead], paragraphs[lead:]
    chunks: list[str] = []
    current: list[str] = []
    for paragraph in rest:
        if current and sum(len(p) + 2 for p in heading + current) + len(paragraph) > max_chars:
            chunks.append("\n\n".join(heading + current))
            current = []
        current.append(paragraph)
    if current or not chunks:
        chunks.append("\n\n".join(heading + current))
    return chunks
