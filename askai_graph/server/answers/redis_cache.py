"""A ``CacheStore`` in Redis, so every ``askai serve`` process serves the others' cached answers.

Plain Redis 7 is enough (no search module). The layout under ``prefix``:

- ``{prefix}:e:{namespace}:{digest}``: one cached answer (JSON), ``digest`` being a
  hash of the question's key. A lookup by the exact key is one ``GET``: its cost does
  not depend on the number of workers or of entries, and an entry written by one
  process is read by the next lookup of any other (Redis has no replication lag here).
- ``{prefix}:lru``: a sorted set of every entry, scored by its last use. Storing an
  entry beyond ``max_entries`` evicts the least recently used ones (``ZPOPMIN`` is
  atomic, so two processes evicting at once never evict the same entry twice).
- ``{prefix}:v:{namespace}``: a hash of the entries' vectors (float32), only when the
  cache has an ``Embeddings``; ``nearest`` reads the namespace's vectors and ranks
  them here, which costs one round trip and grows with the entries, never the workers.

Every entry expires ``ttl_seconds`` after it was stored (Redis ``EX``), whatever its use.

Losing Redis must never cost an answer: a failing command is logged once, the store
then answers as an empty cache (misses, nothing stored) and tries Redis again after
``retry_seconds``; the first command that succeeds again logs the recovery.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from askai_graph.server.answers.cache import CachedAnswer
from askai_graph.server.scaleout.redis_outage import RedisOutage, redis_client

logger = logging.getLogger(__name__)



class RedisCacheStore:
    """Bounded, least-recently-used ``CacheStore`` shared through Redis (see module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        max_entries: int,
        ttl_seconds: int,
        prefix: str = "askai:cache",
        timeout_seconds: float = 0.5,
        retry_seconds: float = 1.0,
    ) -> None:
        """Connect lazily to ``url`` (``redis://``, ``rediss://`` or ``unix://``).

        Args:
            url: The Redis server (a database number may follow the host: ``redis://host/2``).
            max_entries: Answers kept across all namespaces before the least recently used go.
            ttl_seconds: Seconds an entry lives after it is stored.
            prefix: Prefix of every key this store writes (several caches may share a server).
            timeout_seconds: Longest a Redis command may take before it counts as a failure.
            retry_seconds: After a failure, how long the store answers as empty before
                trying Redis again.

        Raises:
            ValueError: a bound is below 1 or the URL is not a Redis URL.
            ImportError: the ``redis`` extra is not installed.
        """
        if max_entries < 1 or ttl_seconds < 1:
            raise ValueError("max_entries and ttl_seconds must be at least 1")
        self.max_entries, self.ttl_seconds, self.prefix = max_entries, ttl_seconds, prefix
        self.retry_seconds = retry_seconds
        self._client = redis_client(url, timeout_seconds)
        self._outage = RedisOutage(
            logger,
            lost="answer cache: Redis unreachable (%s); serving without the cache, retrying every %.1f s",
            back="answer cache: Redis reachable again after %.1f s",
            retry_seconds=retry_seconds,
        )
        self._call = self._outage.call

    async def aclose(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    def available(self) -> bool:
        """Say whether the last command reached Redis (or none has failed yet)."""
        return self._outage.reachable

    async def get(self, namespace: str, key: str) -> CachedAnswer | None:
        """Return the entry under ``key`` (one ``GET``); a hit becomes the most recently used."""
        name = self._entry(namespace, key)
        raw = await self._call(lambda: self._client.get(name), None)
        if raw is None:
            return None
        await self._call(lambda: self._client.zadd(self._lru, {name: time.time()}, xx=True), None)
        return CachedAnswer.model_validate_json(raw)

    async def nearest(self, namespace: str, vector: Sequence[float]) -> tuple[float, CachedAnswer] | None:
        """Return the most similar entry with a vector in ``namespace`` and its cosine."""
        unit = _unit(vector)
        if unit is None:
            return None
        stored: dict[bytes, bytes] = await self._call(lambda: self._client.hgetall(self._vectors(namespace)), {})
        best: tuple[float, bytes] | None = None
        for name, blob in stored.items():
            candidate = np.frombuffer(blob, dtype=np.float32)
            if candidate.shape != unit.shape:
                raise ValueError(f"vector has shape {unit.shape}; this store holds {candidate.shape[0]}-d vectors")
            score = float(candidate @ unit)
            if best is None or score > best[0]:
                best = (score, name)
        if best is None:
            return None
        entry_name = best[1].decode()
        raw = await self._call(lambda: self._client.get(entry_name), None)
        if raw is None:  # expired: forget its vector too
            await self._call(lambda: self._client.hdel(self._vectors(namespace), entry_name), None)
            return None
        await self._call(lambda: self._client.zadd(self._lru, {entry_name: time.time()}, xx=True), None)
        return best[0], CachedAnswer.model_validate_json(raw)

    async def add(self, namespace: str, key: str, entry: CachedAnswer, vector: Sequence[float] | None = None) -> None:
        """Store ``entry`` for ``ttl_seconds``; evict the least recently used beyond the bound."""
        name = self._entry(namespace, key)
        unit = None if vector is None else _unit(vector)

        async def store() -> None:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.set(name, entry.model_dump_json(), ex=self.ttl_seconds)
                pipe.zadd(self._lru, {name: time.time()})
                # Entries unused for a whole TTL have expired: drop them from the LRU index.
                pipe.zremrangebyscore(self._lru, "-inf", time.time() - self.ttl_seconds)
                if unit is not None:
                    pipe.hset(self._vectors(namespace), name, unit.astype(np.float32).tobytes())
                    pipe.expire(self._vectors(namespace), self.ttl_seconds)
                pipe.zcard(self._lru)
                *_, size = await pipe.execute()
            if size > self.max_entries:
                evicted: Any = await self._client.zpopmin(self._lru, size - self.max_entries)
                if evicted:
                    names = [member.decode() for member, _ in evicted]
                    async with self._client.pipeline(transaction=False) as pipe:
                        pipe.delete(*names)
                        for gone in names:
                            pipe.hdel(self._vectors(gone.split(":e:", 1)[1].rsplit(":", 1)[0]), gone)
                        await pipe.execute()

        await self._call(store, None)

    async def size(self) -> int:
        """Return the number of entries the LRU index holds (0 when Redis is unreachable)."""
        return int(await self._call(lambda: self._client.zcard(self._lru), 0))

    @property
    def _lru(self) -> str:
        return f"{self.prefix}:lru"

    def _entry(self, namespace: str, key: str) -> str:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return f"{self.prefix}:e:{namespace}:{digest}"

    def _vectors(self, namespace: str) -> str:
        return f"{self.prefix}:v:{namespace}"


def _unit(vector: Sequence[float]) -> np.ndarray[Any, Any] | None:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else None
