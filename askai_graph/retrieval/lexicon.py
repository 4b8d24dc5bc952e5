"""What a typed query's words mean in one BM25 index: exact terms, prefixes and typos.

Search as you type reads a query while it is being written, so its words are of three
kinds, each looked up in the index's own vocabulary (its stems):

- a finished word whose stem the index holds is that term;
- the last word, while the reader is still typing it (no space after it yet), also
  stands for the terms it begins (``instal`` → ``instal``, ``installer``), the
  ``PREFIX_TERMS`` most frequent of them, as long as together they are in at most
  ``PREFIX_POSTINGS_SHARE`` of the passages (the most frequent one always): a
  two-letter prefix of common words would otherwise score most of the index (the
  search's slowest queries at 100k pages), for terms too common to rank by. The index
  holds stems, often shorter than what is typed (``configura`` is on its way to
  ``configuration``, whose stem is ``configur``), so the word being typed also stands for
  the stem of each of its usual completions (``COMPLETIONS``) that it already contains;
- a word of ``TYPO_MIN_CHARS`` letters or more that the index does not hold stands for
  the terms within a small edit distance of its stem (one edit below eight letters, two
  from eight on; a swap of two neighbours is one edit), via rapidfuzz's optimal string
  alignment distance in C++. Only terms of the same first letter and a close length are
  compared: a typo in the first letter is rare, and the bucket is what keeps a
  100k-page vocabulary inside the search's time budget.

``Lexicon.of(index)`` builds the sorted vocabulary and its buckets once per opened
index (a new index, after a reload, gets its own).
"""

from __future__ import annotations

import bisect
import threading
import weakref
from dataclasses import dataclass

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from askai_graph.retrieval.bm25 import EMPTY_TOKEN, BM25Index
from askai_graph.text.terms import STOP_WORDS, known_form, stem, words

PREFIX_TERMS = 8
"""The most terms the word being typed stands for (the most frequent ones it begins)."""
PREFIX_POSTINGS_SHARE = 0.1
"""The word being typed stands for its most frequent terms only while together they are in at most this share
of the passages (the most frequent one always): a short prefix of common words would otherwise make a search
score most of the index, for terms too common to rank by."""
PREFIX_POSTINGS_FLOOR = 10_000
"""Postings the word being typed may always reach: on a small site every prefix term costs nothing."""
PREFIX_MIN_CHARS = 2
"""A word being typed expands to the terms it begins once it has this many letters."""
COMPLETIONS = (
    "", "e", "s", "d", "n", "g", "t", "y", "ng", "on", "ed", "es", "er", "al", "ce", "cy", "nt",
    "ion", "ing", "ies", "ent", "nce", "ncy", "ity", "ive", "ment", "ence", "tion", "ation",
)  # fmt: skip
"""Endings that complete a word being typed into one whose stem it may already hold (``testin`` + ``g``)."""
TYPO_MIN_CHARS = 5
"""Words shorter than this are never corrected: too many short words are one edit apart."""
TYPO_TERMS = 3
"""The most terms one misspelt word stands for."""


@dataclass(frozen=True)
class QueryWord:
    """One word of a typed query and the index terms it stands for."""

    word: str
    """The word as typed, lower-cased."""
    terms: dict[str, float]
    """Index term -> weight: 1 for the word's own stem, less for a prefix's or a typo's terms."""
    prefix: bool = False
    """Whether the word is still being typed (its terms include those it begins)."""


class Lexicon:
    """An index's vocabulary sorted for prefixes and bucketed for typos."""

    _built: weakref.WeakKeyDictionary[BM25Index, Lexicon] = weakref.WeakKeyDictionary()
    _lock = threading.Lock()

    def __init__(self, index: BM25Index) -> None:
        """Sort ``index``'s terms and bucket them by first letter and length."""
        self.index = index
        vocab = index.vocab_dict
        self.sorted = sorted(term for term in vocab if term != EMPTY_TOKEN)
        indptr = np.asarray(index.scores["indptr"])
        self.frequency = np.diff(indptr)  # documents holding each term id
        self.buckets: dict[tuple[str, int], list[str]] = {}
        for term in self.sorted:
            self.buckets.setdefault((term[0], len(term)), []).append(term)

    @classmethod
    def of(cls, index: BM25Index) -> Lexicon:
        """Return the lexicon of ``index``, built on first use."""
        with cls._lock:
            found = cls._built.get(index)
            if found is None:
                found = cls._built[index] = Lexicon(index)
            return found

    def words(self, query: str) -> list[QueryWord]:
        """Return the words of ``query`` with their terms; the last is being typed unless a space follows it.

        Stop words are dropped, except the word being typed: ``the`` may be the start of ``theme``.
        """
        typed = list(dict.fromkeys(words(query)))
        typing = bool(query) and not query[-1].isspace()
        found = []
        for i, word in enumerate(typed):
            last = typing and i == len(typed) - 1
            if (word in STOP_WORDS or len(word) < 2) and not last:
                continue
            found.append(QueryWord(word, self._terms(word, last), prefix=last))
        return found

    def _terms(self, word: str, typing: bool) -> dict[str, float]:
        vocab = self.index.vocab_dict
        terms: dict[str, float] = {}
        own = known_form(stem(word), vocab) if len(word) > 1 and word not in STOP_WORDS else ""
        if own in vocab:
            terms[own] = 1.0
        if typing and len(word) >= PREFIX_MIN_CHARS:
            for term in self.beginning(word) + self.completed(word):
                terms.setdefault(term, 0.8)
        if not terms and len(word) >= TYPO_MIN_CHARS:
            for term in self.close(stem(word)):
                terms.setdefault(term, 0.6)
        return terms

    def beginning(self, prefix: str) -> list[str]:
        """Return the ``PREFIX_TERMS`` most frequent terms starting with ``prefix``, within the postings budget."""
        start = bisect.bisect_left(self.sorted, prefix)
        end = bisect.bisect_left(self.sorted, prefix + "\U0010ffff", start)
        vocab = self.index.vocab_dict
        candidates = self.sorted[start:end]
        if not candidates:
            return []
        counts = self.frequency[[vocab[t] for t in candidates]]
        best = np.argsort(-counts, kind="stable")[:PREFIX_TERMS]
        # The most frequent first, then the next ones while together they stay within the share.
        budget = max(PREFIX_POSTINGS_SHARE * int(self.index.scores["num_docs"]), PREFIX_POSTINGS_FLOOR)
        within = np.cumsum(counts[best]) <= budget
        within[0] = True
        return [candidates[i] for i in best[within]]

    def completed(self, word: str) -> list[str]:
        """Return the stems, already typed in full, of the words that ``word`` is on its way to (``COMPLETIONS``)."""
        vocab = self.index.vocab_dict
        found = dict.fromkeys(known_form(stem(word + ending), vocab) for ending in COMPLETIONS)
        return [term for term in found if term in vocab and word.startswith(term) and term != word]

    def close(self, term: str) -> list[str]:
        """Return up to ``TYPO_TERMS`` terms within the typo bound of ``term``, closest (then most frequent) first."""
        bound = 1 if len(term) < 8 else 2
        candidates = [
            known
            for length in range(len(term) - bound, len(term) + bound + 1)
            for known in self.buckets.get((term[0], length), ())
        ]
        if not candidates:
            return []
        matches = process.extract(term, candidates, scorer=OSA.distance, score_cutoff=bound, limit=None)
        vocab = self.index.vocab_dict
        matches.sort(key=lambda m: (m[1], -int(self.frequency[vocab[m[0]]]), m[0]))
        return [match[0] for match in matches[:TYPO_TERMS]]
