"""The per-client rate limit shared by every ``askai serve`` process through Redis.

With ``cache_url`` set, the moving-window counts live in Redis (the ``limits`` library's
Redis storage, through redis-py), so a client asking N workers in turn is counted once,
not N times. Losing Redis must not lock everyone out: a failing count is logged once
and the question is admitted (the stream cap still bounds the load), and Redis is
tried again on the next question; its return is logged.

The stream cap (``max_streams``) is shared the same way, in ``shared_streams``.
"""

from __future__ import annotations

import logging

from limits.aio.storage import RedisStorage
from limits.errors import StorageError

from askai_graph.server.limits import ClientRateLimit

logger = logging.getLogger(__name__)


class SharedRateLimit(ClientRateLimit):
    """``ClientRateLimit`` with its counts in Redis (see module docstring)."""

    def __init__(self, spec: str, url: str, *, prefix: str = "askai:limits", timeout_seconds: float = 0.5) -> None:
        """Count ``spec`` per client in the Redis at ``url`` (``redis://``, ``rediss://``, ``unix://``).

        Raises:
            ValueError: ``spec`` is not in the ``limits`` notation.
        """
        import redis.asyncio as aioredis

        # Our own pool, so the app can close it with its lifespan (it belongs to the app's loop).
        self.pool = aioredis.ConnectionPool.from_url(
            url, socket_timeout=timeout_seconds, socket_connect_timeout=timeout_seconds
        )
        scheme, rest = url.split("://", 1)
        uri = f"async+{'redis+unix' if scheme == 'unix' else scheme}://{rest}"
        storage = RedisStorage(
            uri,
            wrap_exceptions=True,
            implementation="redispy",
            key_prefix=prefix,
            connection_pool=self.pool,  # type: ignore[arg-type]  # passed to redis-py; limits types options narrowly
        )
        super().__init__(spec, storage)
        self._down = False

    async def admit(self, client: str) -> int | None:
        """Count one question for ``client``; admit it when Redis cannot count."""
        try:
            wait = await super().admit(client)
        except StorageError as exc:
            if not self._down:
                self._down = True
                logger.warning("rate limit: Redis unreachable (%s); admitting questions uncounted", exc.storage_error)
            return None
        if self._down:
            self._down = False
            logger.warning("rate limit: Redis reachable again; counting questions")
        return wait

    async def aclose(self) -> None:
        """Close the connections."""
        await self.pool.disconnect()
