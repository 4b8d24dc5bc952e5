"""Instant search: the sections of a site that match what a reader is typing, grouped by page.

``search`` answers ``GET /api/search``. It reads the query with ``lexicon`` (exact
terms, the word being typed as a prefix, typos of longer words), scores the passages of
the retriever's own BM25 index with those terms (a prefix's or a typo's terms weigh
less than a word's own), and ranks first by how many of the query's words a passage
holds, then by that score: a passage holding every word beats one repeating a single
word. Pages are grouped from their passages; within each, the sections (cut at every
heading) that hold a query word are the results, each with its heading, the link to it
on the real page, and a plain-text snippet with the matched words' offsets.

A page whose title or one of whose section headings is exactly the query (the same
content terms) ranks first: a reader typing a heading wants that section.

Results are search hits, not answers: no gate has read them, and every face marks them
``endorsed: false``. Snippets are plain text cut from the page's Markdown (markup and
HTML tags of prose dropped, code kept verbatim as text): a page's ``<script>`` in a code
block comes back as those characters, for the widget to set as text. Offsets count
UTF-16 code units, as JavaScript indexes a string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import numpy as np

from askai_graph.evidence.citations import (
    FENCE_LINE,
    HEADING_LINE,
    fragment_url,
    heading_url,
    plain_heading,
    plain_quote,
)
from askai_graph.retrieval.bm25 import BM25Index
from askai_graph.retrieval.corpus import Page
from askai_graph.retrieval.lexicon import Lexicon, QueryWord
from askai_graph.retrieval.pages import PageRetriever
from askai_graph.retrieval.passages import split_sections
from askai_graph.text.plain import strip_html_tags
from askai_graph.text.terms import content_terms, stem

SNIPPET_CHARS = 160
"""About how long a snippet is (cut at words around the first match)."""
SECTIONS_PER_PAGE = 3
"""The most sections shown under one page."""
MAX_RESULTS = 20
"""The most pages one search returns."""
_PASSAGES_PER_PAGE = 4
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)]|>+|\|)\s*")


@dataclass(frozen=True)
class SectionMatch:
    """One matching section of a page."""

    heading: str
    """Its heading as the page shows it ('' for the page's opening text)."""
    url: str
    """The link to it: the heading's anchor on the real page, else a text fragment of the heading."""
    snippet: str
    """Plain text around its first match (never HTML)."""
    highlights: tuple[tuple[int, int], ...]
    """``(start, end)`` of each matched word in ``snippet``, in UTF-16 code units."""


@dataclass(frozen=True)
class PageMatch:
    """One page of the results and its matching sections, best first."""

    title: str
    url: str
    sections: tuple[SectionMatch, ...]


@dataclass(frozen=True)
class _Scored:
    """A section with what it is ranked by."""

    match: SectionMatch
    exact: bool
    words: int
    in_heading: int


def search(
    retriever: PageRetriever, query: str, limit: int, *, version: str | None = None, locale: str | None = None
) -> list[PageMatch]:
    """Return up to ``limit`` pages whose sections match ``query``, best first (see module docstring).

    ``version`` and ``locale`` keep the pages whose URL path has a segment equal to each
    (``/2.0/``, ``/fr/``): how versioned and translated docs sites lay out their pages.
    """
    index = retriever._lexical_index()
    if index is None:
        return []
    typed = Lexicon.of(index).words(query)
    if not any(word.terms for word in typed):
        return []
    filtered = version is not None or locale is not None
    ranked = _passages(index, typed, (limit * (8 if filtered else 1)) * _PASSAGES_PER_PAGE)
    posts = retriever._posts_of([doc for doc, _ in ranked])
    by_page: dict[int, list[int]] = {}
    for document, _ in ranked:
        by_page.setdefault(posts[document], []).append(document)
    texts = retriever._passage_texts([doc for docs in by_page.values() for doc in docs[:_PASSAGES_PER_PAGE]])
    query_terms = frozenset(content_terms(query))
    pages: list[tuple[tuple[bool, int, int], PageMatch]] = []
    for order, (post_id, documents) in enumerate(by_page.items()):
        post = retriever._post(post_id)
        if filtered and not _in_segments(post.url, version, locale):
            continue
        passages = [texts[doc] for doc in sorted(documents[:_PASSAGES_PER_PAGE]) if doc in texts]
        sections = _sections(post, [p.text for p in passages], typed, query_terms)
        if not sections:
            continue
        title_exact = bool(query_terms) and frozenset(content_terms(post.title)) == query_terms
        exact = title_exact or any(s.exact for s in sections)
        key = (not exact, -max(s.words for s in sections), order)
        pages.append((key, PageMatch(post.title, post.url, tuple(s.match for s in sections))))
        if len(pages) >= limit * 2 and not filtered:
            break
    pages.sort(key=lambda item: item[0])
    return [page for _, page in pages[:limit]]


def _passages(index: BM25Index, typed: Sequence[QueryWord], n: int) -> list[tuple[int, float]]:
    """Return up to ``n`` passages ``(document, score)``, most query words held first, then by weighted BM25."""
    data, indices, indptr = index.scores["data"], index.scores["indices"], index.scores["indptr"]
    docs = int(index.scores["num_docs"])
    scores = np.zeros(docs, dtype=np.float32)
    held = np.zeros(docs, dtype=np.float32)
    vocab = index.vocab_dict
    for word in typed:
        if not word.terms:
            continue
        columns = []
        for term, weight in word.terms.items():
            start, end = int(indptr[vocab[term]]), int(indptr[vocab[term] + 1])
            rows = indices[start:end]
            scores[rows] += weight * data[start:end]
            columns.append(rows)
        held[np.unique(np.concatenate(columns))] += 1
    # Every word held outweighs any BM25 score: the largest score is far below this.
    total = held * (float(scores.max()) + 1.0) + scores
    candidates = np.flatnonzero(held)
    if len(candidates) > n:
        candidates = candidates[np.argpartition(-total[candidates], n - 1)[:n]]
    return sorted(((int(d), float(total[d])) for d in candidates), key=lambda p: (-p[1], p[0]))


def _sections(post: Page, passages: Sequence[str], typed: Sequence[QueryWord], query: frozenset[str]) -> list[_Scored]:
    """Return the page's best sections holding a query word, best first."""
    scored = []
    seen: set[str] = set()
    for passage in passages:
        for section in split_sections(passage):
            if section.text in seen:
                continue
            seen.add(section.text)
            heading = plain_heading(section.heading)
            text = plain_section(section.text)
            held = [w for w in typed if w.terms and (_marks(text, [w]) or _marks(heading, [w]))]
            if not held:
                continue
            in_heading = sum(1 for w in held if _marks(heading, [w]))
            exact = bool(heading) and bool(query) and frozenset(content_terms(heading)) == query
            match = SectionMatch(heading, _section_url(post, section.heading, heading), *_snippet(text, typed))
            scored.append(_Scored(match, exact, len(held), in_heading))
    scored.sort(key=lambda s: (not s.exact, -s.words, -s.in_heading))
    return scored[:SECTIONS_PER_PAGE]


def plain_section(markdown: str) -> str:
    """Return a section's Markdown as one line of plain text: no heading line, markup or HTML tag; code as text."""
    shown = []
    fence: str | None = None
    for line in markdown.splitlines():
        opener = FENCE_LINE.match(line)
        if opener and (fence is None or opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)):
            fence = None if fence else opener.group(1)
            continue
        if fence is not None:
            shown.append(line.strip())  # code is text: `<script>` stays those characters
        elif not HEADING_LINE.match(line):
            shown.append(plain_quote(strip_html_tags(_LIST_MARK.sub("", line))))
    return " ".join(" ".join(shown).split())


def _section_url(post: Page, heading: str, shown: str) -> str:
    if not heading:
        return post.url
    anchor = next((a.id for a in post.anchors if a.heading == heading), None)
    return heading_url(post.url, anchor) if anchor else fragment_url(post.url, shown)


def _marks(text: str, typed: Sequence[QueryWord]) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` code-point spans of ``text``'s words that a query word stands for."""
    spans = []
    for token in _TOKEN.finditer(text):
        word = token.group().lower()
        for query_word in typed:
            if stem(word) in query_word.terms or (query_word.prefix and word.startswith(query_word.word)):
                spans.append(token.span())
                break
    return spans


def _snippet(text: str, typed: Sequence[QueryWord]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Return about ``SNIPPET_CHARS`` of ``text`` around its first match, and the matches' UTF-16 offsets in it."""
    spans = _marks(text, typed)
    start = 0
    if spans and spans[0][0] > SNIPPET_CHARS // 3:
        start = text.rfind(" ", 0, spans[0][0] - SNIPPET_CHARS // 4) + 1
    end = len(text)
    if end - start > SNIPPET_CHARS:
        cut = text.rfind(" ", start, start + SNIPPET_CHARS)
        end = cut if cut > start else start + SNIPPET_CHARS
    lead = "… " if start else ""
    snippet = lead + text[start:end] + (" …" if end < len(text) else "")
    shift = len(lead) - start
    marks = tuple(
        (_utf16(snippet, a + shift), _utf16(snippet, b + shift)) for a, b in spans if a >= start and b <= end
    )
    return snippet, marks


def _utf16(text: str, index: int) -> int:
    """Return the UTF-16 offset of code point ``index`` of ``text``."""
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


def _in_segments(url: str, version: str | None, locale: str | None) -> bool:
    segments = {part.casefold() for part in urlsplit(url).path.split("/") if part}
    return all(value is None or value.casefold() in segments for value in (version, locale))
