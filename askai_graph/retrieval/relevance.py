"""The relevance floor: a page must cover enough of the question's distinctive vocabulary.

BM25 returns any page sharing one word with the question, and a dense ranking always
has a nearest page, so "How do I center a div in CSS?" on a Python framework's docs
still retrieves something and ends in a degraded answer quoting unrelated site text.
The floor asks how strongly a page's best passage covers the question: each distinct
question term weighs its IDF in *this* index (a term no passage has weighs the most),
and the passage's BM25 score over those terms is divided by their total weight. BM25
saturates each term's contribution towards its IDF, so the share is in [0, 1]: 1 for a
passage dense in every question term, about 0.2 for one that mentions a common word
or two in passing. Because the weights come from the index, the floor is calibrated per
index, not per site. Pages below ``min_term_coverage`` are no candidates; a question no
page covers retrieves nothing, fails the retrieval gate and ends in ``fallback`` with
no site text. Measured on three public docs sites and the bundled one, off-topic
questions reach at most about 0.25 (README "Evaluate"), answerable ones mostly 0.3 to 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from askai_graph.retrieval.bm25 import EMPTY_TOKEN, BM25Index, index_forms, term_weights
from askai_graph.text.terms import content_terms

if TYPE_CHECKING:
    from askai_graph.retrieval.hits import PageHit

DEFAULT_MIN_TERM_COVERAGE = 0.25
"""The default floor (``Settings.min_term_coverage``), measured as the module docstring says."""


MIN_SHARED_TERMS = 2
"""Distinct question terms a passage must hold to cover a question of three terms or more
(half of them, rounded up, for a shorter one)."""


MAX_UNKNOWN_SHARE = 1 / 3
"""Words no page has, as a share of the question's, below which they weigh ``UNKNOWN_WEIGHT``: a question
made mostly of words the site never uses ("bake sourdough bread") is about something else."""
UNKNOWN_WEIGHT = 0.5
"""What a word no page has weighs in the floor, as a share of its IDF (the highest there is)."""


def term_coverage(index: BM25Index, query: str, hits: Sequence[PageHit], locale: str | None = None) -> list[float]:
    """Return, per hit, its best passage's BM25 score over the query's distinct terms, divided by their IDF sum.

    Only passages holding at least ``MIN_SHARED_TERMS`` distinct question terms count
    (half of them, rounded up, for a shorter question): BM25 lets one term repeated often score
    close to its full weight, so a page laying out a phone screen (``center`` eight
    times in its styles) would otherwise "cover" "How do I center a div in CSS?".
    A question's terms are covered together or not at all.
    """
    terms = index_forms(index, content_terms(query, locale))
    weights = term_weights(index, terms)
    unknown = [term for term in weights if term not in index.vocab_dict]
    if unknown and len(unknown) < MAX_UNKNOWN_SHARE * len(weights):
        # A reader's own word no page has ("quit" for exit) is no sign the site lacks the
        # answer while most of the question is the site's vocabulary: it weighs less.
        weights = {term: weight * (UNKNOWN_WEIGHT if term in unknown else 1.0) for term, weight in weights.items()}
    total = sum(weights.values())
    ids = [index.vocab_dict[t] for t in weights if t in index.vocab_dict and t != EMPTY_TOKEN]
    if not hits or total <= 0 or not ids:
        return [0.0] * len(hits)
    scores = index.get_scores_from_ids(ids)
    present = np.sum([index.get_scores_from_ids([i]) > 0 for i in ids], axis=0)
    # Half of a short question's terms: "Which quantization should I pick?" is covered by
    # a page on quantization that never says "pick".
    need = min(MIN_SHARED_TERMS, (len(weights) + 1) // 2)
    covered = np.where(present >= need, scores, 0.0)
    return [float(np.max(covered[list(hit.passages)]) / total) if hit.passages else 0.0 for hit in hits]


def above_floor(
    index: BM25Index, query: str, hits: Sequence[PageHit], floor: float, locales: Sequence[str] = ("",)
) -> list[PageHit]:
    """Return the hits whose term coverage reaches ``floor`` (all of them when the floor is 0).

    The question is read as each of ``locales``' languages (``terms.content_terms``: the reader's,
    and the default one of the pages standing in for untranslated ones); a page's best reading counts.
    """
    if floor <= 0 or not hits:
        return list(hits)
    readings = [term_coverage(index, query, hits, locale) for locale in locales]
    shares = [max(reading[i] for reading in readings) for i in range(len(hits))]
    return [hit for hit, share in zip(hits, shares, strict=True) if share >= floor]
