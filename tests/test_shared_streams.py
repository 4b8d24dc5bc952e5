"""The stream cap counted in Redis: one cap across connections, leases renewed, never an error when Redis goes.

Each test runs a ``redis-server`` of its own on a free port (``tests.redis_server``); the
tests with real ``askai serve`` processes are in ``test_scale_out``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest

from askai_graph.server.answers.redis_cache import RedisCacheStore
from askai_graph.server.guards.limits import Slot
from askai_graph.server.scaleout.shared_streams import SharedStreamSlots
from tests.fakes import FakeClock
from tests.redis_server import RedisServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


def slots(server: RedisServer, capacity: int, **options: Any) -> SharedStreamSlots:
    return SharedStreamSlots(capacity, server.url, **({"retry_seconds": 0.2} | options))


async def take(cap: SharedStreamSlots, count: int) -> list[Slot | None]:
    return [await cap.try_acquire() for _ in range(count)]


def test_slots_taken_through_one_connection_count_against_the_others(redis_server: RedisServer) -> None:
    async def scenario() -> tuple[list[bool], bool, bool]:
        first, second = slots(redis_server, 2), slots(redis_server, 2)
        held = [await first.try_acquire(), await second.try_acquire()]
        refused = [await first.try_acquire() is None, await second.try_acquire() is None]
        full = await second.full()
        assert held[0] is not None
        await held[0].release()
        again = await second.try_acquire() is not None
        await first.aclose()
        await second.aclose()
        return refused, full, again

    refused, full, again = asyncio.run(scenario())
    assert refused == [True, True] and full is True
    assert again is True


def test_the_last_slot_goes_to_exactly_one_of_many_racing_processes(redis_server: RedisServer) -> None:
    async def scenario() -> int:
        caps = [slots(redis_server, 3) for _ in range(10)]
        taken = await asyncio.gather(*(take(cap, 2) for cap in caps))
        for cap in caps:
            await cap.aclose()
        return sum(slot is not None for pair in taken for slot in pair)

    assert asyncio.run(scenario()) == 3


LEASE = 15.0  # stream_lease_seconds' default


def test_a_held_slot_is_renewed_past_its_lease(redis_server: RedisServer) -> None:
    clock = FakeClock()  # the leases' time, in the scripts and between the renewals

    async def scenario() -> tuple[bool, bool]:
        holder = slots(redis_server, 1, lease_seconds=LEASE, clock=clock, sleep=clock.sleep)
        other = slots(redis_server, 1, lease_seconds=LEASE, clock=clock)
        slot = await holder.try_acquire()
        assert slot is not None
        await clock.advance(LEASE * 2.5)  # a renewal every third of a lease
        refused = await other.try_acquire() is None
        await slot.release()
        admitted = await other.try_acquire() is not None
        await holder.aclose()
        await other.aclose()
        return refused, admitted

    assert asyncio.run(scenario()) == (True, True)


def test_a_slot_nobody_renews_is_free_once_its_lease_runs_out(redis_server: RedisServer) -> None:
    clock = FakeClock()

    async def scenario() -> tuple[bool, bool]:
        # The holder's renewals wait on a clock that never moves: a worker that died holding the slot.
        dead = slots(redis_server, 1, lease_seconds=LEASE, clock=clock, sleep=FakeClock().sleep)
        other = slots(redis_server, 1, lease_seconds=LEASE, clock=clock)
        assert await dead.try_acquire() is not None
        await clock.advance(LEASE * 0.9)
        refused = await other.try_acquire() is None
        await clock.advance(LEASE * 0.2)
        admitted = await other.try_acquire() is not None
        await dead.aclose()
        await other.aclose()
        return refused, admitted

    assert asyncio.run(scenario()) == (True, True)


def test_closing_gives_back_the_slots_still_held(redis_server: RedisServer) -> None:
    async def scenario() -> bool:
        holder, other = slots(redis_server, 1), slots(redis_server, 1)
        assert await holder.try_acquire() is not None
        await holder.aclose()
        admitted = await other.try_acquire() is not None
        await other.aclose()
        return admitted

    assert asyncio.run(scenario()) is True


def test_losing_redis_caps_per_process_logged_once_and_the_shared_cap_returns_with_it(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()  # times the retry window

    async def scenario() -> tuple[list[bool], list[bool]]:
        first, second = slots(redis_server, 2, clock=clock), slots(redis_server, 2, clock=clock)
        redis_server.stop()
        down_first, down_second = await take(first, 3), await take(second, 2)
        down = [slot is not None for slot in [*down_first, *down_second]]
        for slot in [*down_first, *down_second]:
            if slot is not None:
                await slot.release()
        redis_server.start()
        await clock.advance(0.3)  # past the retry window
        back = [slot is not None for slot in [*await take(first, 1), *await take(second, 2)]]
        await first.aclose()
        await second.aclose()
        return down, back

    with caplog.at_level(logging.WARNING, logger="askai_graph.server.scaleout.shared_streams"):
        down, back = asyncio.run(scenario())
    # Down: each process allows its own max_streams; back: two across both again.
    assert down == [True, True, False, True, True]
    assert back == [True, True, False]
    messages = [record.getMessage() for record in caplog.records if record.name.endswith("shared_streams")]
    assert sum("unreachable" in message for message in messages) == 2  # once per process
    assert sum("reachable again" in message for message in messages) == 2


@pytest.mark.parametrize(
    "make",
    [lambda url: SharedStreamSlots(2, url), lambda url: RedisCacheStore(url, max_entries=10, ttl_seconds=60)],
    ids=["stream-cap", "answer-cache"],
)
def test_a_url_that_is_not_redis_is_refused_before_any_connection(make: Callable[[str], object]) -> None:
    with pytest.raises(ValueError, match=r"must be redis://host:port\[/db\], rediss://\.\.\. or unix://"):
        make("http://127.0.0.1:6379")
