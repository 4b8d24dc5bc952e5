"""The stream cap (``max_streams``) counted across every ``askai serve`` process through Redis.

With ``cache_url`` set, the answers in flight are members of one Redis sorted set, each
scored by the moment its lease runs out. Taking a slot is one small Lua script, so the
"count, then add" step is atomic however many workers race for the last slot: it drops
the expired leases, counts the rest and adds the new one only below the cap. Scores
come from the Redis server's own clock (``TIME``), so workers on machines whose clocks
differ still agree on what has expired. (A test gives a ``clock`` whose time the
scripts use instead, and a ``sleep`` on it for the renewals: seconds of leases then
pass in no time.)

A worker renews the leases it holds every third of ``lease_seconds`` (one script call
for all of them) and removes a slot when its answer ends. A worker that dies without
removing its slots stops renewing them: they expire after ``lease_seconds`` and the
others may use them again.

Every process also keeps its own count, so no worker streams more than ``max_streams``
even when Redis is gone. Losing Redis must not refuse questions the process could
answer: a failing command is logged once, the cap falls back to that per-process count
(so N workers stream at most N × ``max_streams``), and Redis is tried again after
``retry_seconds``; its return is logged. A slot taken while Redis was away holds only a
local place.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from functools import partial

from askai_graph.server.guards.limits import Slot, StreamSlots
from askai_graph.server.scaleout.redis_outage import RedisOutage, redis_client

logger = logging.getLogger(__name__)

# The time in ms: ARGV's ``now`` when the caller gives one (a test's clock), else the server's.
_NOW = """
local function now_ms(given)
  if given ~= '' then
    return tonumber(given)
  end
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
"""

# KEYS[1]: the sorted set of leases. ARGV: now, cap, lease in ms, slot id. Returns 1 if taken.
ACQUIRE = _NOW + """
local ms = now_ms(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""

# KEYS[1]: the sorted set. ARGV: now, lease in ms, then the ids to renew (only those still held).
RENEW = _NOW + """
local until_ms = now_ms(ARGV[1]) + tonumber(ARGV[2])
for i = 3, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""

# KEYS[1]: the sorted set. ARGV: now. Returns how many unexpired leases it holds.
COUNT = _NOW + """
return redis.call('ZCOUNT', KEYS[1], '(' .. now_ms(ARGV[1]), '+inf')
"""


class SharedStreamSlots(StreamSlots):
    """``StreamSlots`` whose capacity holds across processes (see module docstring)."""

    def __init__(
        self,
        capacity: int,
        url: str,
        *,
        lease_seconds: float = 15.0,
        key: str = "askai:streams",
        timeout_seconds: float = 0.5,
        retry_seconds: float = 1.0,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """Count ``capacity`` answers at once in the Redis at ``url``.

        Args:
            capacity: Answers allowed at once, across every process on this Redis.
            url: The Redis server (``redis://``, ``rediss://`` or ``unix://``).
            lease_seconds: How long a slot outlives its process if that process dies.
            key: The sorted set holding the leases (several sites may share a server).
            timeout_seconds: Longest a Redis command may take before it counts as a failure.
            retry_seconds: After a failure, how long only the per-process cap applies
                before Redis is tried again.
            clock: The time leases are scored in, in seconds; ``None``: the Redis server's
                own (see the module docstring). It also times ``retry_seconds`` (this
                process's monotonic clock when ``None``).
            sleep: Waits between two renewals (``clock``'s own, with a test's clock).

        Raises:
            ValueError: the URL is not a Redis URL.
            ImportError: the ``redis`` extra is not installed.
        """
        super().__init__(capacity)
        self.key, self.lease_ms, self.retry_seconds = key, max(1, int(lease_seconds * 1000)), retry_seconds
        self._client = redis_client(url, timeout_seconds)
        self._acquire = self._client.register_script(ACQUIRE)
        self._renew = self._client.register_script(RENEW)
        self._count = self._client.register_script(COUNT)
        self._clock, self._sleep = clock, sleep
        self._held: set[str] = set()
        self._renewer: asyncio.Task[None] | None = None
        self._outage = RedisOutage(
            logger,
            lost="stream cap: Redis unreachable (%s); capping streams per process, retrying every %.1f s",
            back="stream cap: Redis reachable again after %.1f s; capping streams across processes",
            retry_seconds=retry_seconds,
            clock=clock or time.monotonic,
        )
        self._call = self._outage.call

    async def full(self) -> bool:
        """Say whether a new answer would be refused, here or across the processes."""
        if await super().full():
            return True
        in_use = await self._call(lambda: self._count(keys=[self.key], args=[self._now()]), None)
        return in_use is not None and int(in_use) >= self.capacity

    async def try_acquire(self) -> Slot | None:
        """Take a slot if this process and Redis both have one free; never wait."""
        if await super().full():
            return None
        slot_id = uuid.uuid4().hex
        acquire = partial(self._acquire, keys=[self.key], args=[self._now(), self.capacity, self.lease_ms, slot_id])
        taken = await self._call(acquire, None)
        if taken is not None and not int(taken):
            return None
        if await super().full():  # other questions of this process took the last place meanwhile
            if taken is not None:
                await self._call(lambda: self._client.zrem(self.key, slot_id), None)
            return None
        self.in_use += 1
        if taken is None:  # Redis unreachable: a place in this process only
            return Slot(self)
        self._held.add(slot_id)
        self._keep_renewing()
        return _SharedSlot(self, slot_id)

    def _now(self) -> str:
        """Return the scripts' ``now`` argument: the clock's time in ms, or empty for the server's."""
        return "" if self._clock is None else str(int(self._clock() * 1000))

    async def _give_back(self, slot_id: str) -> None:
        self._held.discard(slot_id)
        # If Redis cannot hear it, the lease runs out by itself.
        await self._call(lambda: self._client.zrem(self.key, slot_id), None)

    def _keep_renewing(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew_forever())

    async def _renew_forever(self) -> None:
        while self._held:
            await self._sleep(self.lease_ms / 3000)
            if self._held:
                renew = partial(self._renew, keys=[self.key], args=[self._now(), self.lease_ms, *self._held])
                await self._call(renew, None)

    async def aclose(self) -> None:
        """Stop renewing, give back the slots still held, and close the connections."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        if self._held:
            await self._call(partial(self._client.zrem, self.key, *self._held), None)
        await self._client.aclose()

class _SharedSlot(Slot):
    """A slot with a lease in Redis as well as a place in this process."""

    def __init__(self, slots: SharedStreamSlots, slot_id: str) -> None:
        super().__init__(slots)
        self._shared: SharedStreamSlots | None = slots
        self._id = slot_id

    async def release(self) -> None:
        """Give the place and the lease back (once)."""
        await super().release()
        shared, self._shared = self._shared, None
        if shared is not None:
            await shared._give_back(self._id)
