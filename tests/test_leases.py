"""Thread leases in process: held while the answer streams (renewed past their hold), free once released.

The leases keep the event loop's time; these scenarios run on a loop whose clock is
virtual (``fakes.VirtualTimeLoop``), so the default holds pass in no time and in order.
"""

from __future__ import annotations

import asyncio

from askai_graph import Settings
from askai_graph.server.answers.leases import ThreadLeases
from askai_graph.server.guards.request import BadRequest
from tests.fakes import in_virtual_time

HOLD = 10.0  # thread_lease_renew_seconds' default


def test_a_lease_is_renewed_while_its_answer_streams_and_freed_when_released() -> None:
    async def scenario() -> tuple[str | None, str | None]:
        leases = ThreadLeases(Settings(thread_lease_renew_seconds=HOLD))
        thread, release = await leases.claim(None, None)
        store = leases.store(None)
        await asyncio.sleep(HOLD * 3)  # three holds: only renewals keep it
        taken = await store.acquire(thread.thread_id, HOLD)
        await release()
        return taken, await store.acquire(thread.thread_id, HOLD)

    taken, after = in_virtual_time(scenario())
    assert taken is None and after is not None


def test_a_lease_stops_being_renewed_at_the_longest_hold() -> None:
    async def scenario() -> str | None:
        leases = ThreadLeases(Settings(thread_lease_renew_seconds=HOLD, thread_lease_seconds=HOLD * 2))
        thread, _ = await leases.claim(None, None)
        await asyncio.sleep(HOLD * 4)  # never released (a client that hangs on), yet it expires
        return await leases.store(None).acquire(thread.thread_id, HOLD)

    assert in_virtual_time(scenario()) is not None


def test_a_409_says_to_retry_not_to_wait_for_a_done_event_that_may_never_come() -> None:
    async def scenario() -> BadRequest:
        leases = ThreadLeases(Settings(thread_lease_renew_seconds=4))
        crashed, _ = await leases.claim(None, None)  # its server died mid-answer: never released
        try:
            await leases.claim(None, crashed.thread_id)
        except BadRequest as refused:
            return refused
        raise AssertionError("claimed a thread another lease holds")

    refused = asyncio.run(scenario())
    assert refused.status == 409 and "done event" not in refused.message
    assert "stopped mid-answer; retry in 2 s" in refused.message and refused.headers == {"Retry-After": "2"}
