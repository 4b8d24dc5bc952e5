"""Riding out a lost Redis: short timeouts, one failure logged, a fallback answer, a retry after a pause.

The Redis answer cache and the shared stream cap both must keep the server answering
when Redis goes away. Both talk to it through ``redis_client``, whose commands give up
after a fraction of a second, and run each command through ``RedisOutage.call``, which on a Redis
or socket error logs the loss once, answers the caller's fallback (a miss, the
per-process cap) and skips Redis for ``retry_seconds`` so a dead server is not waited
on by every question; the first command that succeeds again logs the return.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def redis_client(url: str, timeout_seconds: float) -> Any:
    """Return an asyncio Redis client for ``url``; connecting or a command past ``timeout_seconds`` fails.

    It connects on its first command.

    Raises:
        ValueError: ``url`` is not ``redis://``, ``rediss://`` or ``unix://``.
        ImportError: the ``redis`` extra is not installed.
    """
    if not url.startswith(REDIS_SCHEMES):
        raise ValueError("the Redis URL must be redis://host:port[/db], rediss://... or unix://...")
    try:
        import redis.asyncio as aioredis
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("Redis needs the redis extra: pip install 'askai-graph[redis]'") from exc
    return aioredis.Redis.from_url(url, socket_timeout=timeout_seconds, socket_connect_timeout=timeout_seconds)


class RedisOutage:
    """Tracks whether Redis is reachable for one user of it (see module docstring)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        lost: str,
        back: str,
        retry_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Log ``lost`` (formatted with the error and ``retry_seconds``) and ``back`` (with the seconds away).

        ``clock`` times the pause before Redis is tried again.
        """
        self.logger, self.lost, self.back, self.retry_seconds = logger, lost, back, retry_seconds
        self._clock = clock
        self._down_since: float | None = None
        self._retry_at = 0.0

    @property
    def reachable(self) -> bool:
        """Whether the last command reached Redis (or none has failed yet)."""
        return self._down_since is None

    async def call(self, command: Callable[[], Awaitable[Any]], fallback: T) -> Any | T:
        """Run ``command``; on a Redis failure log once, answer ``fallback`` and back off."""
        from redis.exceptions import RedisError

        now = self._clock()
        if self._down_since is not None and now < self._retry_at:
            return fallback
        try:
            result = await command()
        except (RedisError, OSError) as exc:
            if self._down_since is None:
                self._down_since = now
                self.logger.warning(self.lost, exc, self.retry_seconds)
            self._retry_at = now + self.retry_seconds
            return fallback
        if self._down_since is not None:
            self.logger.warning(self.back, now - self._down_since)
            self._down_since = None
        return result
