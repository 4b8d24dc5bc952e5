"""Dashboard sessions signed out before they expire: the record every worker checks.

A session is a signed cookie that any worker accepts without a shared store
(``admin_session``), so signing out must leave a record, or a copy of the cookie would
open the dashboard until it expires. The record is the session's nonce, kept until the
session would have expired anyway:

- in process, always (``--workers`` without Redis: each worker knows only its own
  sign-outs, as it does its own rate limits);
- and in Redis at ``cache_url`` when set, under ``askai:admin:revoked:<nonce>`` with
  the session's expiry, so a sign-out on one worker ends the session on every one.

A session whose record Redis cannot be asked about is taken as signed out (the loss is
logged once): the dashboard is then unavailable until Redis is back, never open to a
cookie that was signed out.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from askai_graph.server.scaleout.redis_outage import RedisOutage, redis_client

logger = logging.getLogger(__name__)

KEY = "askai:admin:revoked:"
"""Prefix of a revoked session's key in Redis; its nonce follows."""


class Revocations:
    """Sessions signed out: ``revoke`` records one, ``revoked`` asks (see module docstring)."""

    def __init__(self, cache_url: str | None = None) -> None:
        """Keep the record in process, and in Redis at ``cache_url`` if given."""
        self._local: dict[str, float] = {}  # nonce -> the session's expiry
        self._redis: Any = redis_client(cache_url, 0.5) if cache_url else None
        self._outage = RedisOutage(
            logger,
            lost="dashboard sign-outs: Redis unreachable (%s); sessions refused, retrying every %.1f s",
            back="dashboard sign-outs: Redis reachable again after %.1f s",
        )

    async def revoke(self, nonce: str, until: float) -> None:
        """Record that the session ``nonce``, valid until ``until`` (a timestamp), is signed out."""
        now = time.time()
        self._local = {kept: expiry for kept, expiry in self._local.items() if expiry > now}
        self._local[nonce] = until
        if self._redis is not None and until > now:
            await self._outage.call(lambda: self._redis.set(KEY + nonce, b"1", exat=int(until) + 1), None)

    async def revoked(self, nonce: str) -> bool:
        """Whether the session ``nonce`` was signed out (here, or on any worker sharing Redis)."""
        if nonce in self._local:
            return True
        if self._redis is None:
            return False
        return bool(await self._outage.call(lambda: self._redis.exists(KEY + nonce), True))

    async def aclose(self) -> None:
        """Close the Redis connections, if any."""
        if self._redis is not None:
            await self._redis.aclose()
