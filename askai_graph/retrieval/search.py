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
HTML tags of prose dropped, code kept verbatim as text; cut once, when the index is
built: ``retrieval.shown``): a page's ``<script>`` in a code
block comes back as those characters, for the widget to set as text. Offsets count
UTF-16 code units, as JavaScript indexes a string.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from askai_graph.retrieval.bm25 import BM25Index
from askai_graph.retrieval.lexicon import Lexicon, QueryWord
from askai_graph.retrieval.pages import PageRetriever
from askai_graph.retrieval.shown import ShownRow, heading_terms
from askai_graph.text.terms import content_terms, stem

SNIPPET_CHARS = 160
"""About how long a snippet is (cut at words around the first match)."""
SECTIONS_PER_PAGE = 3
"""The most sections shown under one page."""
MAX_RESULTS = 20
"""The most pages one search returns."""
_PASSAGES_PER_PAGE = 4
_MAX_PASSAGES = 1280
"""The most passages one search reads while too few pages hold the best ones."""
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


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
    wanted = (limit * (8 if filtered else 1)) * _PASSAGES_PER_PAGE
    while True:
        ranked = _passages(index, typed, wanted)
        # One read of the passages as search shows them (cut into plain-text sections when the
        # index was built) with their pages' titles and URLs: never a page's body or Markdown.
        read = retriever._shown([doc for doc, _ in ranked])
        by_page: dict[int, list[tuple[int, int]]] = {}
        for document, held in ranked:
            row = read.get(document)
            if row is not None and (in_scope is None or row.post_id in in_scope):
                by_page.setdefault(row.post_id, []).append((document, held))
        # A huge page (700 KB of release notes) can hold every one of the best passages
        # and leave a short prefix one page; ask for more until enough pages answer.
        if len(by_page) >= limit or len(ranked) < wanted or wanted >= _MAX_PASSAGES:
            break
        wanted *= 4
    query_terms = frozenset(content_terms(query))
    # A lone word being typed is exactly a heading when the heading is one of its terms:
    # "depe" is on its way to the "Dependencies" page, not to the release notes that say it most.
    headings = [query_terms]
    if len(typed) == 1 and typed[0].prefix:
        headings += [frozenset({term}) for term in typed[0].terms]
    # Pages in rank order, a page with a heading that is the query first: only the pages
    # returned have their sections matched, the costly part.
    candidates = []
    for order, documents in enumerate(by_page.values()):
        passages = [read[doc] for doc, _ in sorted(documents[:_PASSAGES_PER_PAGE])]
        exact = any(terms and row.has_heading(terms) for row in passages for terms in headings)
        candidates.append(((not exact, -documents[0][1], order), passages))
    candidates.sort(key=lambda item: item[0])
    pages: list[tuple[tuple[bool, int, int], PageMatch]] = []
    matcher = _Matcher(typed)
    for (_, held, order), passages in candidates:
        page = passages[0]
        sections = _sections(passages, matcher, query_terms)
        if sections:
            exact = any(s.exact for s in sections) or any(_is_query(page.title, terms) for terms in headings)
            pages.append(((not exact, held, order), PageMatch(page.title, page.url, tuple(s.match for s in sections))))
        if len(pages) >= limit:
            break
    pages.sort(key=lambda item: item[0])
    return [page for _, page in pages]


def _passages(index: BM25Index, typed: Sequence[QueryWord], n: int) -> list[tuple[int, int]]:
    """Return up to ``n`` passages ``(document, query words held)``: most words held first, then by weighted BM25.

    Ties (the same words held, the same score) go to the lower document, as they are ordered.
    """
    columns = _columns(index, typed)
    if not columns:
        return []
    if len(columns) > 1:
        found = _holding_every_word(index, columns, n)
        if found is not None:
            return found
    data, indices = np.asarray(index.scores["data"]), np.asarray(index.scores["indices"])  # views: no memmap slices
    if len(columns) == 1 and len(columns[0]) == 1:
        # One word of one term (a finished word, a prefix of one): its postings are the
        # candidates, each once, scored as the full pass would (0 + its score, in float32).
        weight, start, end = columns[0][0]
        if start == end:
            return []
        scores_of = weight * data[start:end]
        best = _best(indices[start:end], scores_of.astype(np.float64) + (float(scores_of.max()) + 1.0), n)
        return [(int(doc), 1) for doc in best]
    return _full_pass(index, columns, n)


def _full_pass(index: BM25Index, columns: list[list[tuple[float, int, int]]], n: int) -> list[tuple[int, int]]:
    """Return ``_passages`` by scoring every posting of every term into arrays the size of the index."""
    data, indices = np.asarray(index.scores["data"]), np.asarray(index.scores["indices"])
    docs = int(index.scores["num_docs"])
    scores = np.zeros(docs, dtype=np.float32)
    held = np.zeros(docs, dtype=np.int32)
    for word in columns:
        holds = np.zeros(docs, dtype=bool)  # a mask, not np.unique: a common prefix's postings are long to sort
        for weight, start, end in word:
            rows = indices[start:end]
            scores[rows] += weight * data[start:end]
            holds[rows] = True
        held += holds
    candidates = np.flatnonzero(held != 0)  # a boolean's nonzero: a fifth of an int array's time
    if not len(candidates):  # every term is in the vocabulary but in no passage (its postings are empty)
        return []
    # Every word held outweighs any BM25 score: the largest score is far below one step.
    total = held[candidates] * (float(scores[candidates].max()) + 1.0) + scores[candidates]
    return [(int(doc), int(held[doc])) for doc in _best(candidates, total, n)]


_RARE_POSTINGS = 20_000
"""The most postings of a query's rarest word for which ``_holding_every_word`` is tried first."""


def _columns(index: BM25Index, typed: Sequence[QueryWord]) -> list[list[tuple[float, int, int]]]:
    """Return each query word with terms as ``(weight, start, end)`` of its terms' postings."""
    indptr, vocab = index.scores["indptr"], index.vocab_dict
    return [
        [(weight, int(indptr[vocab[term]]), int(indptr[vocab[term] + 1])) for term, weight in word.terms.items()]
        for word in typed
        if word.terms
    ]


def _holding_every_word(
    index: BM25Index, columns: list[list[tuple[float, int, int]]], n: int
) -> list[tuple[int, int]] | None:
    """Return the ``n`` best passages when at least ``n`` hold every word, else ``None``: read from the rarest word.

    A passage holding every word is in the postings of the rarest one, and it outranks
    every passage that does not: when ``n`` of them do, the others (most of the postings
    of a common word or prefix) need not be scored. Each of the rarest word's passages is
    looked up in the other terms' postings (each column's documents ascend); its score is
    summed in the same order, in the same precision, as the full pass sums it.
    """
    sizes = [sum(end - start for _, start, end in word) for word in columns]
    rare = columns[sizes.index(min(sizes))]
    if min(sizes) > _RARE_POSTINGS or min(sizes) < n:
        return None
    data, indices = np.asarray(index.scores["data"]), np.asarray(index.scores["indices"])
    # A column's documents ascend, each once: only several terms' need merging.
    docs = indices[rare[0][1] : rare[0][2]] if len(rare) == 1 else _distinct(
        np.concatenate([indices[start:end] for _, start, end in rare])
    )
    scores = np.zeros(len(docs), dtype=np.float32)
    every = np.ones(len(docs), dtype=bool)
    for word in columns:
        holds = np.zeros(len(docs), dtype=bool)
        for weight, start, end in word:
            column = indices[start:end]
            at = np.searchsorted(column, docs)
            at[at == len(column)] = 0
            hit = column[at] == docs if len(column) else np.zeros(len(docs), dtype=bool)
            scores[hit] += weight * data[start:end][at[hit]]
            holds |= hit
        every &= holds
    if int(every.sum()) < n:
        return None
    best = _best(docs[every], scores[every], n)
    return [(int(doc), len(columns)) for doc in best]


def _distinct(documents: np.ndarray) -> np.ndarray:
    """Return ``np.unique(documents)`` by sorting: numpy 2's hashing unique took 20x longer on 20k postings."""
    documents = np.sort(documents)
    first = np.empty(len(documents), dtype=bool)
    first[:1] = True
    np.not_equal(documents[1:], documents[:-1], out=first[1:])
    return documents[first]


def _best(documents: np.ndarray, total: np.ndarray, n: int) -> np.ndarray:
    """Return the ``n`` documents of highest ``total``, best first; a tie goes to the lower document."""
    if len(documents) > n:
        threshold = np.partition(total, len(total) - n)[len(total) - n]
        # Every document above the n-th total, then the lowest of those at it.
        keep = total >= threshold
        documents, total = documents[keep], total[keep]
    order = np.lexsort((documents, -total))[:n]
    return documents[order]


def _sections(passages: Sequence[ShownRow], matcher: _Matcher, query: frozenset[str]) -> list[_Scored]:
    """Return the page's best sections holding a query word, best first."""
    scored = []
    seen: set[tuple[str, str]] = set()
    for passage in passages:
        for section in passage.sections:
            if section.key in seen:
                continue
            seen.add(section.key)
            in_heading = {word for _, word in matcher.spans(section.heading)}
            held = set(in_heading)
            spans = matcher.spans(section.text, held)
            if not held:
                continue
            match = SectionMatch(section.heading, section.url, *_snippet(section.text, [span for span, _ in spans]))
            exact = bool(section.heading) and bool(query) and section.heading_terms == query
            scored.append(_Scored(match, exact, len(held), len(in_heading)))
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
        runs = {run.group() for start in self.starts if (run := _TOKEN.match(start))}
        self.candidates = _candidates(_shortest(runs))
        self.seen: dict[str, int] = {}

    def spans(self, text: str, held: set[int] | None = None) -> list[tuple[tuple[int, int], int]]:
        """Return ``((start, end), query word number)`` for each word of ``text`` a query word stands for.

        With ``held`` (the query words found so far, updated): only until every query word is
        held and the words are past any snippet cut around the first match (``_snippet``),
        the rest of a long section, full of a common word, changes neither.
        """
        lower = text.lower()
        if len(lower) != len(text):  # a character whose lower case is longer: offsets would drift
            found = self._scanned(text)
            if held is not None:
                held.update(word for _, word in found)
            return found
        found = []
        every, beyond = len(self.typed), len(text)
        for token in self.candidates.finditer(lower):
            which = self._verdict(token.group())
            if which >= 0:
                span = token.span()
                if held is not None:
                    if span[0] > beyond and len(held) == every:
                        break
                    if not found:
                        beyond = span[0] + SNIPPET_CHARS
                    held.add(which)
                found.append((span, which))
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


def _shortest(runs: set[str]) -> tuple[str, ...]:
    """Return ``runs`` without those another one begins, sorted.

    A candidate word is a whole run that begins with one of them, so ``instal`` finds every
    word ``installer`` would: a prefix's eight terms are one alternative, and the pattern
    (compiled per set, a few hundred microseconds for eight) recurs as a reader types.
    """
    kept: list[str] = []
    for run in sorted(runs, key=len):
        if not run.startswith(tuple(kept)):
            kept.append(run)
    return tuple(sorted(kept))


@lru_cache(maxsize=1024)
def _candidates(runs: tuple[str, ...]) -> re.Pattern[str]:
    """Return the pattern of the words beginning with one of ``runs`` (a whole run of letters and digits)."""
    alternatives = "|".join(re.escape(run) for run in runs) or "(?!)"
    return re.compile(f"(?<![A-Za-z0-9])(?:{alternatives})[A-Za-z0-9]*")


def _is_query(text: str, query: frozenset[str]) -> bool:
    """Whether ``text`` (a title or heading) has exactly the query's content terms."""
    return bool(query) and heading_terms(text) == query


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
    marks = []
    for a, b in spans[bisect.bisect_left(spans, (start, -1)) :]:  # in order, none overlapping
        if b > end:
            break
        marks.append((a + shift, b + shift))
    if not snippet.isascii() and _ASTRAL.search(snippet):  # a character beyond the BMP is two UTF-16 units
        marks = [(_utf16(snippet, a), _utf16(snippet, b)) for a, b in marks]
    return snippet, tuple(marks)


def _utf16(text: str, index: int) -> int:
    """Return the UTF-16 offset of code point ``index`` of ``text``."""
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)
