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
from functools import lru_cache

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
from askai_graph.retrieval.corpus import PageHead
from askai_graph.retrieval.lexicon import Lexicon, QueryWord
from askai_graph.retrieval.pages import PageRetriever
from askai_graph.retrieval.passages import Passage, split_sections
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
_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)]|>+|\|)[ \t]*", re.MULTILINE)


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

    On a site indexed with its versions and languages, the reader's ``version`` and
    ``locale`` keep the pages a question of theirs may cite (``retrieval.scope``: the
    site's default version when none is named, untranslated pages in the default
    language). A site indexed without them has one of each: both are ignored, as they
    are for its answers (a widget on a versioned page of such a site still finds pages).

    Raises:
        ScopeError: the site has versions and ``version`` is none of them.
    """
    index = retriever._lexical_index()
    if index is None:
        return []
    typed = Lexicon.of(index).words(query)
    if not any(word.terms for word in typed):
        return []
    in_scope: frozenset[int] | None = None
    if retriever.variants.any:
        retriever.variants.version(version)  # an unknown version is the reader's error, not an empty result
        scope = retriever.scope(version, locale)
        in_scope = scope.pages if scope is not None else None
    filtered = in_scope is not None
    ranked = _passages(index, typed, (limit * (8 if filtered else 1)) * _PASSAGES_PER_PAGE)
    # One read of the passages (their pages and texts), one of the pages' titles, URLs and
    # anchors: never a page's body, never a query per hit.
    read = retriever._passages_of([doc for doc, _ in ranked])
    by_page: dict[int, list[tuple[int, int]]] = {}
    for document, held in ranked:
        if document in read and (in_scope is None or read[document][0] in in_scope):
            by_page.setdefault(read[document][0], []).append((document, held))
    query_terms = frozenset(content_terms(query))
    # Pages in rank order, a page with a heading that is the query first: only the pages
    # returned have their sections cut and matched, the costly part.
    candidates = []
    for order, (post_id, documents) in enumerate(by_page.items()):
        passages = [read[doc][1].text for doc, _ in sorted(documents[:_PASSAGES_PER_PAGE])]
        exact = any(_is_query(heading, query_terms) for text in passages for heading in _headings(text))
        candidates.append(((not exact, -documents[0][1], order), post_id, passages))
    candidates.sort(key=lambda item: item[0])
    heads = retriever._heads([post_id for _, post_id, _ in candidates])
    pages: list[tuple[tuple[bool, int, int], PageMatch]] = []
    matcher = _Matcher(typed)
    for (_, held, order), post_id, passages in candidates:
        head = heads[post_id]
        sections = _sections(head, passages, matcher, query_terms)
        if sections:
            exact = any(s.exact for s in sections) or _is_query(head.title, query_terms)
            pages.append(((not exact, held, order), PageMatch(head.title, head.url, tuple(s.match for s in sections))))
        if len(pages) >= limit:
            break
    pages.sort(key=lambda item: item[0])
    return [page for _, page in pages]


def _passages(index: BM25Index, typed: Sequence[QueryWord], n: int) -> list[tuple[int, int]]:
    """Return up to ``n`` passages ``(document, query words held)``: most words held first, then by weighted BM25."""
    data, indices, indptr = index.scores["data"], index.scores["indices"], index.scores["indptr"]
    docs = int(index.scores["num_docs"])
    scores = np.zeros(docs, dtype=np.float32)
    held = np.zeros(docs, dtype=np.int32)
    vocab = index.vocab_dict
    for word in typed:
        if not word.terms:
            continue
        holds = np.zeros(docs, dtype=bool)  # a mask, not np.unique: a common prefix's postings are long to sort
        for term, weight in word.terms.items():
            start, end = int(indptr[vocab[term]]), int(indptr[vocab[term] + 1])
            rows = indices[start:end]
            scores[rows] += weight * data[start:end]
            holds[rows] = True
        held += holds
    candidates = np.flatnonzero(held)
    if not len(candidates):  # every term is in the vocabulary but in no passage (its postings are empty)
        return []
    # Every word held outweighs any BM25 score: the largest score is far below one step.
    total = held[candidates] * (float(scores[candidates].max()) + 1.0) + scores[candidates]
    if len(candidates) > n:
        best = np.argpartition(-total, n - 1)[:n]
        candidates, total = candidates[best], total[best]
    order = np.lexsort((candidates, -total))
    return [(int(candidates[i]), int(held[candidates[i]])) for i in order]


def _sections(post: PageHead, passages: Sequence[str], matcher: _Matcher, query: frozenset[str]) -> list[_Scored]:
    """Return the page's best sections holding a query word, best first."""
    scored = []
    seen: set[tuple[str, str]] = set()
    for passage in passages:
        for section in _split(passage):
            raw = (section.heading, section.text)
            # Cutting a section to plain text is the costly part: only one whose Markdown holds a
            # candidate word is cut (markup never joins a word; it only sits around one).
            if raw in seen or not matcher.may_hold(section.heading + "\n" + section.text):
                continue
            seen.add(raw)
            raw_heading, heading, text = _plain_section_of(*raw)
            in_heading = {word for _, word in matcher.spans(heading)}
            spans = matcher.spans(text)
            held = in_heading | {word for _, word in spans}
            if not held:
                continue
            url = _section_url(post, raw_heading, heading)
            match = SectionMatch(heading, url, *_snippet(text, [span for span, _ in spans]))
            scored.append(_Scored(match, bool(heading) and _is_query(heading, query), len(held), len(in_heading)))
    scored.sort(key=lambda s: (not s.exact, -s.words, -s.in_heading))
    return scored[:SECTIONS_PER_PAGE]


class _Matcher:
    """Finds the words of a text that query words stand for, remembering each distinct word's verdict.

    Only a word beginning with a query term (a Snowball stem begins its words, but for a
    final ``i`` that was ``y``) or with the word being typed can match: one regular
    expression finds those words in C (the scan the profile showed costliest when it was
    a ``str.find`` loop per term); each distinct candidate is then checked by its stem.
    """

    def __init__(self, typed: Sequence[QueryWord]) -> None:
        self.typed = [word for word in typed if word.terms]
        starts = {term.removesuffix("i") or term for word in self.typed for term in word.terms}
        self.starts = tuple(starts | {word.word for word in self.typed if word.prefix})
        # A word is a run of ASCII letters and digits (``_TOKEN``): each start's own run begins it.
        runs = sorted({run.group() for start in self.starts if (run := _TOKEN.match(start))}, key=len, reverse=True)
        alternatives = "|".join(re.escape(run) for run in runs) or "(?!)"
        self.candidates = re.compile(f"(?<![A-Za-z0-9])(?:{alternatives})[A-Za-z0-9]*")
        self.seen: dict[str, int] = {}

    def may_hold(self, text: str) -> bool:
        """Whether ``text`` has a word a query word may stand for (a cheap test before ``spans``)."""
        return self.candidates.search(text.lower()) is not None

    def spans(self, text: str) -> list[tuple[tuple[int, int], int]]:
        """Return ``((start, end), query word number)`` for each word of ``text`` a query word stands for."""
        lower = text.lower()
        if len(lower) != len(text):  # a character whose lower case is longer: offsets would drift
            return self._scanned(text)
        found = []
        for token in self.candidates.finditer(lower):
            which = self._verdict(token.group())
            if which >= 0:
                found.append((token.span(), which))
        return found

    def _scanned(self, text: str) -> list[tuple[tuple[int, int], int]]:
        found = []
        for token in _TOKEN.finditer(text):
            word = token.group().lower()
            if word.startswith(self.starts) and (which := self._verdict(word)) >= 0:
                found.append((token.span(), which))
        return found

    def _verdict(self, word: str) -> int:
        which = self.seen.get(word)
        if which is None:
            which = self.seen[word] = self._which(word)
        return which

    def _which(self, word: str) -> int:
        term = stem(word)
        for number, query_word in enumerate(self.typed):
            if term in query_word.terms or (query_word.prefix and word.startswith(query_word.word)):
                return number
        return -1


def _headings(markdown: str) -> list[str]:
    """Return the heading-shaped lines of ``markdown`` (code comments too: this only orders candidates).

    Line by line, not one multi-line pattern: Python's ``re`` tries a multi-line ``^`` at
    every character, ten times slower on a passage than testing each line's first ones.
    """
    return [
        heading.group(1)
        for line in markdown.splitlines()
        if "#" in line[:4] and (heading := _HEADING.match(line)) is not None
    ]


def _is_query(text: str, query: frozenset[str]) -> bool:
    """Whether ``text`` (a title or heading) has exactly the query's content terms."""
    return bool(query) and _heading_terms(text) == query


@lru_cache(maxsize=8192)
def _heading_terms(text: str) -> frozenset[str]:
    return frozenset(content_terms(plain_heading(text)))


@lru_cache(maxsize=1024)
def _split(passage: str) -> tuple[Passage, ...]:
    """Return the sections of a passage (the last thousand passages read are kept, as their cut sections are)."""
    return tuple(split_sections(passage))


@lru_cache(maxsize=4096)
def _plain_section_of(heading: str, markdown: str) -> tuple[str, str, str]:
    """Return a section as (heading as written, heading shown, plain text).

    Kept for the last few thousand sections cut (a few megabytes): a reader typing a word
    letter by letter meets the same pages query after query.
    """
    return heading, plain_heading(heading), plain_section(markdown)


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


def _section_url(post: PageHead, heading: str, shown: str) -> str:
    if not heading:
        return post.url
    anchor = next((a.id for a in post.anchors if a.heading == heading), None)
    return heading_url(post.url, anchor) if anchor else fragment_url(post.url, shown)


def _snippet(text: str, spans: Sequence[tuple[int, int]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Return about ``SNIPPET_CHARS`` of ``text`` around its first match, and the matches' UTF-16 offsets in it."""
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
    marks = tuple((a + shift, b + shift) for a, b in spans if a >= start and b <= end)
    if _ASTRAL.search(snippet):  # a character beyond the BMP is two UTF-16 units
        marks = tuple((_utf16(snippet, a), _utf16(snippet, b)) for a, b in marks)
    return snippet, marks


def _utf16(text: str, index: int) -> int:
    """Return the UTF-16 offset of code point ``index`` of ``text``."""
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)
