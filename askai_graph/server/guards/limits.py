"""Request-level limits: who the client is, how often it may ask or rate, how many answers at once.

- **Client identity.** The remote address; behind a reverse proxy listed in
  ``trusted_proxies`` (``ASKAI_TRUSTED_PROXIES``), the nearest ``X-Forwarded-For`` hop
  that is not itself a trusted proxy (uvicorn's ``ProxyHeadersMiddleware`` does this;
  an untrusted peer's header is ignored, so a client cannot pick its own identity),
  kept only as its keyed hash (``stores.readers.ReaderHash``): the rate limits' counts,
  in process or in Redis, and the run log never hold the address itself.
- **Rate limits.** One type, ``ClientRateLimit``, for ``/api/chat`` (``rate_limit``
  questions per client) and ``/api/feedback`` (``feedback_per_minute`` ratings), each
  under its own name: a moving window of the ``limits`` library, counted in process, or
  in Redis with ``cache_url`` so that every process shares the counts (``rate_limit_for``).
  Beyond it: ``429`` with ``Retry-After`` in seconds until the window lets one more
  through. Losing Redis must not lock everyone out: a failing count is logged once and
  the request admitted (the stream cap still bounds the load), Redis is tried again on
  the next request, and its return is logged.
- **Stream cap.** ``max_streams`` answers at once; beyond it ``503`` with
  ``Retry-After`` at once, never a queue of long waits. A slot is held from admission
  until the response ends, however it ends (completed, failed, client gone). The
  methods are coroutines because the cap may be counted in Redis across processes
  (``shared_streams``).
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import cast

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from starlette.requests import Request

from askai_graph.stores.readers import ReaderHash

logger = logging.getLogger(__name__)


class Slot:
    """One admitted answer's place; releasing it twice is harmless."""

    def __init__(self, slots: StreamSlots) -> None:
        """Hold a place in ``slots`` (already counted)."""
        self._slots: StreamSlots | None = slots

    async def release(self) -> None:
        """Give the place back (once)."""
        if self._slots is not None:
            self._slots.in_use -= 1
            self._slots = None


@dataclass
class StreamSlots:
    """A non-blocking counter of answers in flight."""

    capacity: int
    """Answers allowed at once."""
    in_use: int = field(default=0, init=False)
    """Answers in flight now."""

    async def full(self) -> bool:
        """Say whether a new answer would be refused."""
        return self.in_use >= self.capacity

    async def try_acquire(self) -> Slot | None:
        """Take a slot if one is free; never wait."""
        if await self.full():
            return None
        self.in_use += 1
        return Slot(self)


class ClientRateLimit:
    """Per-client moving-window rate limit (see module docstring): questions and feedback alike."""

    def __init__(
        self,
        spec: str,
        storage: Storage | None = None,
        *,
        name: str = "askai-chat",
        close: Callable[[], Awaitable[None]] | None = None,
        readers: ReaderHash | None = None,
        shared_key: Callable[[], Awaitable[bytes]] | None = None,
    ) -> None:
        """Parse ``spec`` (e.g. ``"30/minute"`` or ``"30/minute;5/second"``); empty means no limit.

        ``name`` keeps one limit's counts apart from another's in a shared storage;
        ``close`` releases the storage's connections (``aclose``); ``readers`` turns a
        client's address into the keyed hash counted in its place (a random key when
        ``None``), so no storage ever holds an address. ``shared_key`` fetches the key
        that processes sharing ``storage`` agree on, used when ``readers`` has none of
        its own: else each process would count one reader under another name.

        Raises:
            ValueError: ``spec`` is not in the ``limits`` notation.
        """
        self.items: list[RateLimitItem] = parse_many(spec) if spec.strip() else []
        self.limiter = MovingWindowRateLimiter(storage or MemoryStorage())
        self.name = name
        self._close = close
        self._readers = readers or ReaderHash(None)
        self._shared_key = shared_key if not self._readers.keyed else None
        self._down = False

    async def admit(self, client: str) -> int | None:
        """Count one request for ``client`` (its keyed hash); return ``None`` if allowed, else seconds to wait."""
        try:
            if self._shared_key is not None:
                self._readers, self._shared_key = ReaderHash(await self._shared_key()), None
            wait = await self._count(self._readers(client))
        except StorageError as exc:
            if not self._down:
                self._down = True
                error = exc.storage_error
                logger.warning("%s rate limit: Redis unreachable (%s); admitting uncounted", self.name, error)
            return None
        if self._down:
            self._down = False
            logger.warning("%s rate limit: Redis reachable again; counting", self.name)
        return wait

    async def _count(self, client: str) -> int | None:
        for item in self.items:
            if not await self.limiter.hit(item, self.name, client):
                stats = await self.limiter.get_window_stats(item, self.name, client)
                return max(1, math.ceil(stats.reset_time - time.time()))
        return None

    async def aclose(self) -> None:
        """Close the storage's connections, if it has any."""
        if self._close is not None:
            await self._close()


def rate_limit_for(
    spec: str, *, name: str, cache_url: str | None, readers: ReaderHash | None = None
) -> ClientRateLimit:
    """Return the rate limit ``spec`` named ``name``, counted in Redis at ``cache_url`` if set, else in process.

    ``readers`` hashes the client addresses counted (``ClientRateLimit``).
    """
    if not cache_url or not spec.strip():
        return ClientRateLimit(spec, name=name, readers=readers)
    import redis.asyncio as aioredis
    from limits.aio.storage import RedisStorage
    from redis.exceptions import RedisError

    # Its own pool, so the app's lifespan can close it (it belongs to the app's loop).
    pool = aioredis.ConnectionPool.from_url(cache_url, socket_timeout=0.5, socket_connect_timeout=0.5)
    scheme, rest = cache_url.split("://", 1)
    storage = RedisStorage(
        f"async+{'redis+unix' if scheme == 'unix' else scheme}://{rest}",
        wrap_exceptions=True,
        implementation="redispy",
        key_prefix="askai:limits",
        connection_pool=pool,  # type: ignore[arg-type]  # passed to redis-py; limits types options narrowly
    )

    async def shared_key() -> bytes:
        # The first process to count draws the key; every other one sharing Redis reads it.
        client = aioredis.Redis(connection_pool=pool)
        try:
            await client.set(SHARED_READER_KEY, secrets.token_hex(32), nx=True)
            return cast(bytes, await client.get(SHARED_READER_KEY))
        except RedisError as exc:  # Redis down: admitted uncounted, like the counts' own storage errors
            raise StorageError(exc) from exc

    return ClientRateLimit(
        spec, storage, name=name, close=pool.disconnect, readers=readers, shared_key=shared_key
    )


SHARED_READER_KEY = "askai:limits:reader-hash-key"
"""Where processes that share a Redis and set no ``reader_hash_key`` keep the one they hash readers under."""


def client_address(request: Request) -> str:
    """Return who is asking: the client's address (already resolved through trusted proxies)."""
    return request.client.host if request.client else "unknown"


def reader_of(request: Request, readers: ReaderHash) -> str:
    """Return the keyed hash that stands for the client (what the run log keeps; the rate limits hash alike)."""
    return readers(client_address(request))


def trusted_hosts(setting: str) -> list[str]:
    """Split ``trusted_proxies`` into what ``ProxyHeadersMiddleware`` takes."""
    return [host.strip() for host in setting.split(",") if host.strip()]
