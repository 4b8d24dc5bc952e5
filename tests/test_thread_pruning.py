"""Expired threads are pruned in the background, in SQLite, PostgreSQL and memory alike."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from askai_graph import build_graph
from askai_graph.stores.checkpoints import open_async_checkpointer
from askai_graph.stores.pruning import PruneCounts, checkpoint_time, prune_expired, prune_forever
from askai_graph.stores.threads import new_thread_id, run_config
from tests.fakes import postgres_database

POSTGRES = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


@asynccontextmanager
async def saver(kind: str, tmp_path: Path) -> AsyncIterator[Any]:
    if kind == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver()
    elif kind == "sqlite":
        async with open_async_checkpointer(f"sqlite:///{tmp_path / 'threads.sqlite'}") as checkpointer:
            yield checkpointer
    else:
        with postgres_database(POSTGRES) as url:
            async with open_async_checkpointer(url) as checkpointer:
                yield checkpointer


KINDS = ["memory", "sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]


async def last_activity(graph: Any, thread_id: str) -> datetime:
    snapshot = await graph.aget_state(run_config(thread_id))
    return datetime.fromisoformat(snapshot.created_at)


@pytest.mark.parametrize("kind", KINDS)
def test_only_threads_idle_past_the_ttl_are_deleted(kind: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with saver(kind, tmp_path) as checkpointer:
            graph = build_graph(checkpointer=checkpointer)
            old, recent = new_thread_id(), new_thread_id()
            await graph.ainvoke({"question": "What is BM25?"}, run_config(old))
            time.sleep(0.2)
            await graph.ainvoke({"question": "What is BM25?"}, run_config(recent))
            old_at, recent_at = await last_activity(graph, old), await last_activity(graph, recent)
            # The cut-off falls between the two: the ttl ends between their last questions.
            ttl_hours = (recent_at - old_at).total_seconds() / 2 / 3600
            assert await prune_expired(checkpointer, ttl_hours, now=recent_at + timedelta(microseconds=1)) == 1
            assert (await graph.aget_state(run_config(old))).created_at is None
            assert (await graph.aget_state(run_config(recent))).values["history"]
            assert await prune_expired(checkpointer, ttl_hours=24) == 0

    asyncio.run(scenario())


def test_a_checkpoint_id_tells_when_it_was_made(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with saver("sqlite", tmp_path) as checkpointer:
            graph = build_graph(checkpointer=checkpointer)
            thread = new_thread_id()
            await graph.ainvoke({"question": "What is BM25?"}, run_config(thread))
            snapshot = await graph.aget_state(run_config(thread))
            made = checkpoint_time(snapshot.config["configurable"]["checkpoint_id"])
            assert made is not None
            assert abs((made - datetime.fromisoformat(snapshot.created_at)).total_seconds()) < 1

    asyncio.run(scenario())
    assert checkpoint_time("not-a-uuid") is None
    assert checkpoint_time("0b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d") is None  # a UUID4 has no time


def test_background_pruning_counts_its_passes_and_survives_a_failing_one() -> None:
    class Flaky:
        calls = 0

        async def alist(self, _: Any) -> AsyncIterator[Any]:
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise RuntimeError("database away")
            for _item in ():
                yield _item

    async def scenario() -> PruneCounts:
        counts = PruneCounts()
        task = asyncio.create_task(prune_forever(Flaky(), 1.0, 0.01, counts))
        while counts.runs < 2:
            await asyncio.sleep(0.01)
        task.cancel()
        return counts

    counts = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert Flaky.calls >= 3 and counts.runs >= 2 and counts.pruned == 0 and counts.last_at


@pytest.mark.integration
@pytest.mark.enable_socket
def test_askai_serve_prunes_expired_threads_in_the_background_and_says_so(tmp_path: Path, settings: Any) -> None:
    import httpx
    import uvicorn

    from askai_graph.server import create_app
    from tests.live import LiveServer
    from tests.test_server_threads import chat

    served = settings.model_copy(
        update={
            "database_url": f"sqlite:///{tmp_path / 'threads.sqlite'}",
            "thread_ttl_hours": 1 / 3600,  # one second
            "thread_prune_seconds": 0.2,
        }
    )
    app = create_app(settings=served)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")  # the threads database
    with LiveServer(app, config) as base:
        thread = chat(base, "What is BM25?").done
        deadline = time.monotonic() + 20
        while not (httpx.get(f"{base}/healthz").json().get("threads_pruned") or {}).get("pruned"):
            assert time.monotonic() < deadline, "the expired thread was never pruned"
            time.sleep(0.2)
        assert chat(base, "And its parameters?", thread).status == 404
