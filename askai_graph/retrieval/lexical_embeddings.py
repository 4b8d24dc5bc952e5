"""The offline question embedding: a signed, hashed bag of stemmed content terms.

Two questions get the same vector when they use the same content words, whatever their
order, case, punctuation, stop words or inflection ("How do I cache answers?" and
"caching answers: how?"); questions that share only some words stay far apart ("What is
semantic caching?" vs "What is prompt caching?" has cosine 0.5). Words that flip a
question's meaning are kept even though they are stop words elsewhere: negations (all
folded into ``not``), order and comparison words (``before``, ``after``, ``more``...) and
the specific question words ``why``/``when``/``where``/``who``. Numbers are kept, so
"GPT-3" and "GPT-4" differ.

Each term is hashed (BLAKE2b, stable across processes, so a shared store can compare
vectors made by different workers) into one of ``dimensions`` buckets with a sign from
the same hash: two colliding terms with opposite signs cancel instead of matching.
Vectors are L2-normalised, so cosine similarity is a dot product.

This is a real, deterministic lexical model, not a fake; any LangChain ``Embeddings``
(a neural model catches paraphrases with different words) can replace it.
"""

from __future__ import annotations

import hashlib
import math

from langchain_core.embeddings import Embeddings

from askai_graph.text.terms import STOP_WORDS, stem, words

NEGATIONS = frozenset({"no", "not", "nor", "never", "without", "cannot", "none", "neither"})
"""Words folded into the single term ``not`` (as is every ``...n't`` contraction)."""

MEANINGFUL = frozenset(
    {"before", "after", "above", "below", "more", "most", "few", "over", "under", "against", "only"}
    | {"why", "when", "where", "who", "whom"}
)
"""Stop words elsewhere, but they change what a question asks."""

_CACHE_STOP_WORDS = STOP_WORDS - NEGATIONS - MEANINGFUL


def question_terms(text: str) -> frozenset[str]:
    """Return the set of stemmed terms that identify what ``text`` asks.

    Args:
        text: A question.

    Returns:
        Stemmed content terms, negations folded into ``not``; empty when the text has
        no content words at all.
    """
    terms: set[str] = set()
    for word in words(text.replace("\u2019", "'")):
        if word in NEGATIONS or word.endswith("n't"):
            terms.add("not")
        elif word not in _CACHE_STOP_WORDS and (len(word) > 1 or word.isdigit()):
            terms.add(stem(word))
    return frozenset(terms)


class LexicalEmbeddings(Embeddings):
    """Offline ``Embeddings`` over :func:`question_terms` (see the module docstring)."""

    def __init__(self, dimensions: int = 4096) -> None:
        """Hash terms into ``dimensions`` buckets (more buckets, fewer collisions).

        Args:
            dimensions: Vector length; at least 64.

        Raises:
            ValueError: ``dimensions`` is below 64.
        """
        if dimensions < 64:
            raise ValueError("dimensions must be at least 64")
        self.dimensions = dimensions

    @property
    def name(self) -> str:
        """Identify the vector space; vectors from different spaces never compare."""
        return f"lexical-v1-{self.dimensions}"

    def embed_query(self, text: str) -> list[float]:
        """Embed one question (the zero vector when it has no content terms)."""
        buckets: dict[int, float] = {}
        for term in question_terms(text):
            digest = int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "big")
            bucket = digest % self.dimensions
            buckets[bucket] = buckets.get(bucket, 0.0) + (1.0 if digest >> 63 else -1.0)
        vector = [0.0] * self.dimensions
        norm = math.sqrt(sum(value * value for value in buckets.values()))
        for bucket, value in buckets.items():
            if norm:
                vector[bucket] = value / norm
        return vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts the same way as queries."""
        return [self.embed_query(text) for text in texts]

    async def aembed_query(self, text: str) -> list[float]:
        """Embed inline: it takes microseconds, less than a hop to a worker thread."""
        return self.embed_query(text)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts inline."""
        return self.embed_documents(texts)
