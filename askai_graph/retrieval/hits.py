"""Ranked pages: one hit per page, grouped from ranked passages.

Every page retriever ranks passages, groups them by page (``group_pages``) and filters
the pages with the relevance floor (``relevance``); this is what both of them handle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PageHit:
    """One ranked page: its score and its matching passages."""

    post_id: int
    """The page (row id in a built index, position in an in-memory corpus)."""
    score: float
    """The page's score in its ranking (its best passage's, or the fused score)."""
    passages: tuple[int, ...]
    """Its matching passages (document ids), best first."""
    similarity: float | None = None
    """Its best passage's cosine similarity to the question, when a dense ranking found it."""


def group_pages(ranked: Sequence[tuple[int, float]], post_of: dict[int, int]) -> list[PageHit]:
    """Group ranked passages ``(document, score)`` by page; a page ranks by its best passage."""
    pages: dict[int, list[tuple[int, float]]] = {}
    for document, score in ranked:
        pages.setdefault(post_of[document], []).append((document, score))
    order = sorted(pages.items(), key=lambda item: -item[1][0][1])  # stable: ties keep passage order
    return [PageHit(post_id, hits[0][1], tuple(doc for doc, _ in hits)) for post_id, hits in order]
