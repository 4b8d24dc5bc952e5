"""Request-level limits of ``/api/chat``: who the client is, how often it may ask, how many at once.

- **Client identity.** The remote address; behind a reverse proxy listed in
  ``trusted_proxies`` (``ASKAI_TRUSTED_PROXIES``), the nearest ``X-Forwarded-For`` hop
  that is not itself a trusted proxy (uvicorn's ``ProxyHeadersMiddleware`` does this;
  an untrusted peer's header is ignored, so a client cannot pick its own identity).
- **Rate limit.** ``rate_limit`` questions per client in a moving window (the ``limits``
  library, in-process; its Redis storage shares the counts between processes). Beyond
  it: ``429`` with ``Retry-After`` in seconds until the window lets one more through.
- **Stream cap.** ``max_streams`` answers at once; beyond it ``503`` with
  ``Retry-After`` at once, never a queue of long waits. A slot is held from admission
  until the response ends, however it ends (completed, failed, client gone). The
  methods are coroutines because the cap may be counted in Redis across processes
  (``shared_streams``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter


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

    def __init__(self, spec: str, storage: Storage | None = None, *, name: str = "askai-chat") -> None:
        """Parse ``spec`` (e.g. ``"30/minute"`` or ``"30/minute;5/second"``); empty means no limit.

        ``name`` keeps one limit's counts apart from another's in a shared storage.

        Raises:
            ValueError: ``spec`` is not in the ``limits`` notation.
        """
        self.items: list[RateLimitItem] = parse_many(spec) if spec.strip() else []
        self.limiter = MovingWindowRateLimiter(storage or MemoryStorage())
        self.name = name

    async def admit(self, client: str) -> int | None:
        """Count one request for ``client``; return ``None`` if allowed, else seconds to wait."""
        for item in self.items:
            if not await self.limiter.hit(item, self.name, client):
                stats = await self.limiter.get_window_stats(item, self.name, client)
                return max(1, math.ceil(stats.reset_time - time.time()))
        return None


def trusted_hosts(setting: str) -> list[str]:
    """Split ``trusted_proxies`` into what ``ProxyHeadersMiddleware`` takes."""
    return [host.strip() for host in setting.split(",") if host.strip()]
