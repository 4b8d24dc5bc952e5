"""Space the crawler's requests per host: a rate, ``Crawl-delay``, and ``Retry-After`` pauses.

Each host has a minimum interval between the starts of two requests (``1 / rate``, or
the site's ``Crawl-delay`` when that is longer). Requests wait their turn in the order
they ask; a 429 or 503 with ``Retry-After`` pushes the host's next turn back, for every
request at once. Concurrency (how many requests are in flight) is limited separately,
by the number of crawl workers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class HostPacer:
    """Hands out request start times per host, at least ``interval`` apart."""

    def __init__(
        self,
        rate: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """Allow ``rate`` requests per second per host (``0``: no spacing, concurrency alone limits)."""
        self._clock, self._sleep = clock, sleep
        self._interval = 1.0 / rate if rate > 0 else 0.0
        self._intervals: dict[str, float] = {}
        self._next: dict[str, float] = {}

    def slow_down(self, host: str, delay: float) -> None:
        """Space requests to ``host`` at least ``delay`` seconds apart (its ``Crawl-delay``)."""
        self._intervals[host] = max(self._interval, delay)

    def interval(self, host: str) -> float:
        """Return the seconds between two request starts on ``host``."""
        return self._intervals.get(host, self._interval)

    def pause(self, host: str, seconds: float) -> None:
        """Start no request to ``host`` in the next ``seconds`` (the server's ``Retry-After``)."""
        self._next[host] = max(self._next.get(host, 0.0), self._clock() + seconds)

    async def wait(self, host: str) -> None:
        """Return when a request to ``host`` may start."""
        now = self._clock()
        start = max(now, self._next.get(host, 0.0))
        # Claimed before sleeping (the event loop is single-threaded), so turns never overlap.
        self._next[host] = start + self.interval(host)
        if start > now:
            await self._sleep(start - now)
