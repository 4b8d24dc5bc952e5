"""Reciprocal rank fusion: merge rankings from retrievers whose scores are not comparable.

BM25 scores and cosine similarities live on different scales, so hybrid retrieval fuses
their *ranks* instead (Cormack, Clarke and Büttcher, SIGIR 2009): an item at rank ``r``
(1-based) of a ranking scores ``1 / (k + r)`` there, and its fused score is the sum over
the rankings it appears in. A large ``k`` flattens the head of each ranking (rank 1 and
rank 5 score almost alike), a small one lets a single ranking's top item dominate; 60 is
the constant of the original paper and of most search engines that fuse this way.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

Item = TypeVar("Item", bound=Hashable)

DEFAULT_RRF_K = 60


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Item]], k: int = DEFAULT_RRF_K) -> list[tuple[Item, float]]:
    """Return every ranked item with its fused score ``sum(1 / (k + rank))``, best first.

    Args:
        rankings: Each a sequence of items, best first (ranks start at 1). An item listed
            twice in one ranking counts once there, at its better rank.
        k: The fusion constant (at least 1).

    Returns:
        ``(item, score)`` pairs by descending score; equal scores keep the order in which
        the items first appear (the first ranking's items before the second's).

    Raises:
        ValueError: ``k`` is below 1.
    """
    if k < 1:
        raise ValueError(f"the fusion constant k must be at least 1 (got {k})")
    scores: dict[Item, float] = {}
    for ranking in rankings:
        seen: set[Item] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    first_seen = {item: position for position, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], first_seen[pair[0]]))
