"""Threads over HTTP: issued, reused, refused; cached by standalone question; persisted across restarts.

Real uvicorn servers on 127.0.0.1 and a real SSE client. The persistence tests run
``askai serve`` itself as a process, stop it and start it again on the same SQLite
file, and run two processes on one PostgreSQL database (a database of their own on the
local server, dropped afterwards).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse
from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import Settings, build_graph
from askai_graph.models.prompts import CLARIFY_ANSWER
from askai_graph.server import create_app
from tests.fakes import PASSING, WallClockAhead, cited_draft, in_virtual_time, replies, retriever
from tests.live import AskaiServe, LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ROOT = Path(__file__).resolve().parents[1]
BM25_POST = "https://course.askai.example/articles/bm25-and-lexical-search"
FOLLOW_UP = "How do I tune its parameters?"
POSTGRES = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


class Reply:
    """One /api/chat answer: its status, its SSE events, or its JSON error."""

    def __init__(self, status: int, events: list[tuple[str, Any]], detail: str | None = None) -> None:
        self.status, self.events, self.detail = status, events, detail

    @property
    def done(self) -> dict[str, Any]:
        assert self.events[-1][0] == "done", self.events
        return dict(self.events[-1][1])

    def step(self, node: str) -> dict[str, Any]:
        return next(data for name, data in self.events if name == "step" and data["node"] == node)

    @property
    def answer(self) -> str:
        return "".join(data["text"] for name, data in self.events if name == "token")

    @property
    def sources(self) -> list[str]:
        return [source["url"] for name, data in self.events if name == "sources" for source in data]


def chat(base: str, message: str, thread: Any = None, started: threading.Event | None = None) -> Reply:
    """POST a message on ``thread`` and read the whole stream; ``started`` is set at the first event.

    ``thread`` is an earlier answer's ``done`` (its ``thread_id`` and ``thread_token`` are
    sent, as a client would), or any value sent as ``thread_id`` alone.
    """
    import json

    body: dict[str, Any] = {"message": message}
    if isinstance(thread, dict):
        body |= {key: thread[key] for key in ("thread_id", "thread_token") if thread.get(key) is not None}
    elif thread is not None:
        body["thread_id"] = thread
    with httpx.Client(timeout=60) as client:
        with connect_sse(client, "POST", f"{base}/api/chat", json=body) as source:
            if source.response.status_code != 200:
                source.response.read()
                return Reply(source.response.status_code, [], source.response.json()["detail"])
            events = []
            for sse in source.iter_sse():
                events.append((sse.event, json.loads(sse.data)))
                if started is not None:
                    started.set()
            return Reply(200, events)


@pytest.fixture
def offline_app(settings: Settings) -> Iterator[str]:
    with LiveServer(create_app(settings=settings)) as base:
        yield base


def test_a_thread_id_is_issued_then_reused_by_a_follow_up(offline_app: str) -> None:
    first = chat(offline_app, "What is BM25?")
    thread_id = first.done["thread_id"]
    assert uuid.UUID(thread_id).version == 4 and str(uuid.UUID(thread_id)) == thread_id
    assert first.step("research")["rewritten"] is False
    follow_up = chat(offline_app, FOLLOW_UP, first.done)
    assert follow_up.done["thread_id"] == thread_id and follow_up.done["run_id"] != first.done["run_id"]
    assert follow_up.step("research")["rewritten"] is True
    assert follow_up.done["outcome"] == "accepted" and follow_up.sources[0] == BM25_POST


def test_without_a_thread_id_every_request_starts_a_new_thread(offline_app: str) -> None:
    first, second = chat(offline_app, "What is BM25?"), chat(offline_app, FOLLOW_UP)
    assert first.done["thread_id"] != second.done["thread_id"]
    assert second.answer == CLARIFY_ANSWER and second.sources == []


@pytest.mark.parametrize(
    "thread_id",
    [
        "t1",
        42,
        "",
        str(uuid.uuid4()).upper(),
        str(uuid.uuid1()),
        str(uuid.uuid4()) + "\n",
        ["0b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d"],
    ],
)
def test_a_malformed_thread_id_is_a_422(offline_app: str, thread_id: Any) -> None:
    reply = chat(offline_app, "What is BM25?", thread_id)
    assert reply.status == 422
    assert reply.detail is not None and "'thread_id' must be an id this server issued" in reply.detail


def test_a_well_formed_thread_id_the_server_never_issued_is_a_404(offline_app: str) -> None:
    reply = chat(offline_app, FOLLOW_UP, str(uuid.uuid4()))
    assert reply.status == 404 and reply.detail is not None and "unknown" in reply.detail


def test_an_expired_thread_is_a_404(settings: Settings) -> None:
    clock = WallClockAhead()
    with LiveServer(create_app(settings=settings.model_copy(update={"thread_ttl_hours": 1}), clock=clock)) as base:
        thread = chat(base, "What is BM25?").done
        clock.skip(timedelta(hours=1, seconds=1))
        reply = chat(base, FOLLOW_UP, thread)
    assert reply.status == 404 and reply.detail is not None and "expired" in reply.detail


def test_a_second_request_on_a_streaming_thread_is_a_409(settings: Settings) -> None:
    graph = build_graph(
        writer=replies(cited_draft(1), delay=0.5),
        critic=replies(PASSING),
        retriever=retriever(1),
        settings=settings,
        checkpointer=InMemorySaver(),
    )
    off = settings.model_copy(update={"cache_enabled": False})
    with LiveServer(create_app(graph, off)) as base:
        thread = chat(base, "How does caching work?").done
        thread_id = thread["thread_id"]
        started = threading.Event()
        running: list[Reply] = []
        worker = threading.Thread(target=lambda: running.append(chat(base, "And streaming?", thread, started)))
        worker.start()
        assert started.wait(20)
        conflict = chat(base, "And retries?", thread)
        elsewhere = chat(base, "How does caching work?")  # another thread is not blocked
        worker.join(30)
        after = chat(base, "And retries?", thread)
    assert conflict.status == 409 and conflict.detail is not None and "still streaming" in conflict.detail
    assert elsewhere.status == 200 and elsewhere.done["outcome"] == "accepted"
    assert running[0].done["thread_id"] == thread_id
    assert after.status == 200 and after.done["thread_id"] == thread_id


def test_the_semantic_cache_is_keyed_by_the_standalone_question(offline_app: str) -> None:
    first = chat(offline_app, "What is BM25?")
    follow_up = chat(offline_app, FOLLOW_UP, first.done)
    assert not first.done["cached"] and not follow_up.done["cached"]
    # The same words on a fresh thread mean something else: not served from the cache.
    fresh = chat(offline_app, FOLLOW_UP)
    assert not fresh.done["cached"] and fresh.answer == CLARIFY_ANSWER
    # The same conversation on another thread: both turns come from the cache.
    again = chat(offline_app, "What is BM25?")
    cached_follow_up = chat(offline_app, FOLLOW_UP, again.done)
    assert again.done["cached"] and cached_follow_up.done["cached"]
    assert cached_follow_up.answer == follow_up.answer
    # No steps: the follow-up's answer and the cards it was first given.
    assert [name for name, _ in cached_follow_up.events if name != "token"] == ["sources", "done"]
    assert [data for name, data in cached_follow_up.events if name == "sources"] == [
        data for name, data in follow_up.events if name == "sources"
    ]
    # Cached turns are remembered: a further follow-up still knows the topic.
    more = chat(offline_app, "Any examples?", again.done)
    assert more.step("research")["rewritten"] is True and more.done["outcome"] != "fallback"


# --- persistence: `askai serve` processes ------------------------------------------------------


def Serve(database_url: str, index_cache: Path, log: Path) -> AskaiServe:  # noqa: N802 (used like a class)
    """``askai serve`` on ``database_url``, with the test session's BM25 cache."""
    return AskaiServe({"ASKAI_DATABASE_URL": database_url, "ASKAI_INDEX_CACHE_DIR": str(index_cache)}, log)


def test_a_restarted_askai_serve_keeps_the_thread_in_sqlite(tmp_path: Path, index_cache: Path) -> None:
    database = tmp_path / "threads.sqlite"
    url = f"sqlite:///{database}"
    with Serve(url, index_cache, tmp_path / "serve.log") as base:
        thread = chat(base, "What is BM25?").done
    assert database.stat().st_size > 0
    with Serve(url, index_cache, tmp_path / "serve.log") as base:
        follow_up = chat(base, FOLLOW_UP, thread)
    assert follow_up.status == 200, follow_up.detail
    assert follow_up.done["thread_id"] == thread["thread_id"] and follow_up.step("research")["rewritten"] is True
    assert follow_up.sources[0] == BM25_POST


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A database of this test's own on the local PostgreSQL server, dropped afterwards."""
    psycopg = pytest.importorskip("psycopg")
    name = f"askai_threads_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(f"{POSTGRES}/postgres", autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {POSTGRES} is not reachable (set ASKAI_TEST_POSTGRES): {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{POSTGRES}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_two_askai_serve_processes_share_threads_in_postgres(
    postgres_database: str, tmp_path: Path, index_cache: Path
) -> None:
    with Serve(postgres_database, index_cache, tmp_path / "a.log") as first:
        thread = chat(first, "What is BM25?").done
        with Serve(postgres_database, index_cache, tmp_path / "b.log") as second:
            follow_up = chat(second, FOLLOW_UP, thread)
    assert follow_up.status == 200, follow_up.detail
    assert follow_up.done["thread_id"] == thread["thread_id"] and follow_up.step("research")["rewritten"] is True
    assert follow_up.sources[0] == BM25_POST
    with Serve(postgres_database, index_cache, tmp_path / "c.log") as restarted:
        unknown = chat(restarted, FOLLOW_UP, str(uuid.uuid4()))
        kept = chat(restarted, "Any examples?", thread)
    assert unknown.status == 404
    assert kept.status == 200 and kept.step("research")["rewritten"] is True


def test_a_first_question_that_refers_to_nothing_is_never_served_from_the_cache(offline_app: str) -> None:
    # "the parameters" names no earlier turn: researched as asked, accepted and cached.
    # (Not a how-to: the bundled site answers it with no instruction, which the Critic
    # would rightly refuse, and only accepted answers are cached.)
    generic = chat(offline_app, "What are the parameters to tune?")
    assert generic.done["outcome"] == "accepted" and not generic.done["cached"]
    # Same content words, but "its" refers to a turn this new thread does not have.
    leaning = chat(offline_app, FOLLOW_UP)
    assert not leaning.done["cached"] and leaning.answer == CLARIFY_ANSWER


def test_leases_in_postgres_are_shared_by_every_process(postgres_database: str) -> None:
    import asyncio

    from psycopg_pool import AsyncConnectionPool

    from askai_graph.server.answers.leases import PostgresLeaseStore
    from askai_graph.stores.checkpoints import _postgres_kwargs

    async def scenario() -> None:
        pools = [AsyncConnectionPool(postgres_database, kwargs=_postgres_kwargs(), open=False) for _ in range(2)]
        async with pools[0] as first_pool, pools[1] as second_pool:  # two processes' pools
            first, second = PostgresLeaseStore(first_pool), PostgresLeaseStore(second_pool)
            token = await first.acquire("t", 60)
            assert token is not None
            assert await second.acquire("t", 60) is None  # a 409 in the other process
            await second.release("t", "not-the-holder")
            assert await second.acquire("t", 60) is None
            await first.release("t", token)
            assert await second.acquire("t", 60) is not None
            # A holder that died: once its lease has run out, the thread can be taken over. PostgreSQL
            # keeps the time (now()); the lease's length is ours, so this one ran out a second ago.
            assert await first.acquire("u", -1) is not None
            assert await second.acquire("u", 60) is not None

    asyncio.run(scenario())


def test_leases_in_memory_end_when_released_or_expired() -> None:
    import asyncio

    from askai_graph.server.answers.leases import InMemoryLeaseStore

    async def scenario() -> None:
        store = InMemoryLeaseStore()
        token = await store.acquire("t", 60)
        assert token is not None and await store.acquire("t", 60) is None
        await store.release("t", "not-the-holder")
        assert await store.acquire("t", 60) is None
        await store.release("t", token)
        assert await store.acquire("t", 60) is not None
        assert await store.acquire("u", 60) is not None
        await asyncio.sleep(59)  # on the loop's clock, which is virtual here
        assert await store.acquire("u", 60) is None
        await asyncio.sleep(2)
        assert await store.acquire("u", 60) is not None

    in_virtual_time(scenario())
