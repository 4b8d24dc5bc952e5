"""The semantic answer cache: a pluggable store of accepted answers, found by similarity.

``SemanticCache`` embeds a question with any LangChain ``Embeddings`` and asks a
``CacheStore`` for the most similar stored question in its *namespace*; a cosine at or
above the threshold is a hit. The namespace ties every entry to the corpus fingerprint
and the embedding space, so a changed corpus (or another embedding model) never serves
an old answer. Only ``accepted`` answers are stored: an early-accepted, degraded or
fallback answer is never replayed.

``CacheStore`` is the seam for a shared store (Redis, Postgres + pgvector): two async
methods, cosine over L2-normalised vectors. ``InMemoryCacheStore`` is the in-process
default: a bounded LRU over a NumPy matrix; a lookup is one matrix-vector product over
the query's non-zero dimensions.
"""

from __future__ import annotations

import logging
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict

from askai_graph.state import GateStatus, Outcome

logger = logging.getLogger(__name__)

# Vectors this close are the same question: a new answer replaces the old entry.
_SAME_QUESTION = 0.9999


class CachedAnswer(BaseModel):
    """An accepted answer as the cache stores and replays it."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The question the answer was written for."""
    answer: str
    """The final answer text (replayed as ``token`` events)."""
    outcome: Outcome
    """Always ``accepted``: nothing else is stored."""
    gates: dict[str, GateStatus]
    """Gate statuses of the run that produced the answer."""


@runtime_checkable
class CacheStore(Protocol):
    """Where cached answers live; replace the in-process default with a shared store."""

    async def nearest(self, namespace: str, vector: Sequence[float]) -> tuple[float, CachedAnswer] | None:
        """Return the most similar entry of ``namespace`` and its cosine, or ``None``."""
        ...

    async def add(self, namespace: str, vector: Sequence[float], entry: CachedAnswer) -> None:
        """Store ``entry`` under ``vector`` in ``namespace`` (evicting as the store sees fit)."""
        ...


class InMemoryCacheStore:
    """Bounded, least-recently-used, in-process ``CacheStore`` (one per app, one event loop)."""

    def __init__(self, max_entries: int) -> None:
        """Keep at most ``max_entries`` answers across all namespaces.

        Raises:
            ValueError: ``max_entries`` is below 1.
        """
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        # Rows 0..len-1 are in use: a row is only ever freed by being reused.
        self._matrix: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self._namespaces: list[str] = []
        self._lru: OrderedDict[int, CachedAnswer] = OrderedDict()

    def __len__(self) -> int:
        """Return the number of stored answers."""
        return len(self._lru)

    async def nearest(self, namespace: str, vector: Sequence[float]) -> tuple[float, CachedAnswer] | None:
        """Return the best match in ``namespace``; a hit becomes the most recently used."""
        found = self._best(namespace, vector)
        if found is None:
            return None
        slot, score = found
        self._lru.move_to_end(slot)
        return score, self._lru[slot]

    async def add(self, namespace: str, vector: Sequence[float], entry: CachedAnswer) -> None:
        """Store ``entry``; replace the same question, else evict the least recently used."""
        unit = self._unit(vector)
        if unit is None:
            return
        if self._matrix is None:
            self._matrix = np.zeros((self.max_entries, unit.shape[0]), dtype=np.float32)
        same = self._best(namespace, vector)
        if same is not None and same[1] >= _SAME_QUESTION:
            slot = same[0]
        elif len(self._lru) < self.max_entries:
            slot = len(self._lru)
            self._namespaces.append(namespace)
        else:
            slot, _ = self._lru.popitem(last=False)
        self._matrix[slot] = unit
        self._namespaces[slot] = namespace
        self._lru[slot] = entry
        self._lru.move_to_end(slot)

    def _best(self, namespace: str, vector: Sequence[float]) -> tuple[int, float] | None:
        unit = self._unit(vector)
        if unit is None or self._matrix is None or not self._lru:
            return None
        rows = len(self._lru)
        eligible = np.fromiter((ns == namespace for ns in self._namespaces), bool, rows)
        if not eligible.any():
            return None
        # Only the query's non-zero dimensions contribute: a sparse (lexical) query costs
        # rows x terms, and stays clear of multi-threaded BLAS, which stalls under load.
        dims = np.flatnonzero(unit)
        if len(dims) < unit.shape[0] // 8:
            scores = self._matrix[:rows, dims] @ unit[dims]
        else:
            scores = self._matrix[:rows] @ unit
        scores[~eligible] = -np.inf
        slot = int(np.argmax(scores))
        return slot, float(scores[slot])

    def _unit(self, vector: Sequence[float]) -> np.ndarray[Any, np.dtype[np.float32]] | None:
        array = np.asarray(vector, dtype=np.float32)
        if self._matrix is not None and array.shape != (self._matrix.shape[1],):
            raise ValueError(f"vector has shape {array.shape}; this store holds {self._matrix.shape[1]}-d vectors")
        norm = float(np.linalg.norm(array))
        return array / norm if norm else None


@dataclass(frozen=True)
class Probe:
    """One cache lookup: the question's vector (reused to store) and the hit, if any."""

    vector: list[float]
    """The question's embedding."""
    hit: CachedAnswer | None
    """The cached answer, when one was similar enough."""


def embedding_space(embeddings: Embeddings) -> str:
    """Return a name for the vector space of ``embeddings`` (part of the namespace)."""
    name = getattr(embeddings, "name", None) or getattr(embeddings, "model", None)
    return f"{type(embeddings).__name__}:{name}" if name else type(embeddings).__name__


class SemanticCache:
    """Look questions up by meaning; store only accepted answers (see module docstring)."""

    def __init__(
        self, embeddings: Embeddings, store: CacheStore, *, namespace: str | None = None, threshold: float = 0.9
    ) -> None:
        """Create a cache.

        Args:
            embeddings: Embeds questions; its vector space becomes part of the namespace.
            store: Where entries live.
            namespace: The corpus fingerprint (or any key of what answers depend on);
                ``None`` means a random one: entries then live only as long as this object.
            threshold: Cosine similarity a hit needs, in (0, 1].
        """
        if not 0 < threshold <= 1:
            raise ValueError("threshold must be in (0, 1]")
        self.embeddings = embeddings
        self.store = store
        self.threshold = threshold
        self.namespace = f"{namespace or uuid.uuid4().hex}:{embedding_space(embeddings)}"

    async def lookup(self, question: str) -> Probe:
        """Embed ``question`` and return the cached answer if one is similar enough.

        A failing embedder or store is logged and treated as a miss: the cache may
        only ever save work, never break an answer.
        """
        try:
            vector = await self.embeddings.aembed_query(question)
        except Exception:
            logger.exception("semantic cache: embedding failed; treating as a miss")
            return Probe(vector=[], hit=None)
        try:
            found = await self.store.nearest(self.namespace, vector)
        except Exception:
            logger.exception("semantic cache: lookup failed; treating as a miss")
            return Probe(vector=vector, hit=None)
        hit = found[1] if found is not None and found[0] >= self.threshold else None
        return Probe(vector=vector, hit=hit)

    async def remember(self, probe: Probe, final: Mapping[str, Any]) -> bool:
        """Store a finished run's answer if its outcome is ``accepted``; say whether it was stored."""
        if final.get("outcome") != "accepted" or not probe.vector or not final.get("answer"):
            return False
        entry = CachedAnswer(
            question=str(final["question"]), answer=final["answer"], outcome="accepted", gates=dict(final["gates"])
        )
        try:
            await self.store.add(self.namespace, probe.vector, entry)
        except Exception:
            logger.exception("semantic cache: store failed; the answer is not cached")
            return False
        return True
