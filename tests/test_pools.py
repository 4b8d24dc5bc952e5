"""The two thread pools: bookkeeping never waits behind collaborators, and ``done`` never waits past its bound."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from askai_graph.server.guards.pools import bookkeeping, collaborators, settle
from tests.fakes import in_virtual_time


def test_bookkeeping_runs_while_every_collaborator_thread_hangs() -> None:
    release = threading.Event()

    async def scenario() -> tuple[str, bool]:
        async with collaborators(2):
            loop = asyncio.get_running_loop()
            hung = [loop.run_in_executor(None, release.wait, 10) for _ in range(2)]
            # A third collaborator call queues; the bookkeeping call does not.
            queued = asyncio.ensure_future(asyncio.to_thread(lambda: "late"))
            name = await asyncio.wait_for(bookkeeping(lambda: threading.current_thread().name), 2)
            waiting = not queued.done()
            release.set()
            await asyncio.gather(*hung, queued)
            return name, waiting

    try:
        name, waiting = asyncio.run(scenario())
    finally:
        release.set()
    assert name.startswith("askai-bookkeeping") and waiting


def test_collaborators_are_the_default_executor_with_their_own_threads() -> None:
    async def scenario() -> str:
        async with collaborators(1) as executor:
            assert isinstance(executor, ThreadPoolExecutor)
            return await asyncio.to_thread(lambda: threading.current_thread().name)

    assert asyncio.run(scenario()).startswith("askai-collaborator")


def test_settle_returns_at_its_bound_and_the_late_work_still_finishes() -> None:
    finished: list[str] = []

    async def slow_write() -> None:
        await asyncio.sleep(0.5)
        finished.append("written")

    async def scenario() -> tuple[bool, int]:
        settled = await settle(slow_write(), 0.05, what="a slow write")
        before = len(finished)  # settle returned before the work ended
        await asyncio.sleep(1.0)
        return settled, before

    settled, before = in_virtual_time(scenario())  # the loop's clock: the waits pass in no time
    assert settled is False and before == 0
    assert finished == ["written"]  # not cancelled: a late run-log record is still written


def test_settle_reports_work_done_in_time() -> None:
    async def quick() -> None:
        await asyncio.sleep(0)

    assert asyncio.run(settle(quick(), 1.0, what="a quick write")) is True
