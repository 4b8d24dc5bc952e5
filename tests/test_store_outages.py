"""Threads and checkpoints through a PostgreSQL outage: 503 at once, an ``error`` for streams in flight, no restart.

A real uvicorn serving the default graph with ``ASKAI_DATABASE_URL`` on a database of the
test's own on the local PostgreSQL, reached through a TCP proxy the test cuts (every
connection reset, new ones refused) and restores; then the database is dropped and
created again under the same name. The answers wait at a gated chat model, so some are
in flight when the database goes.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from typing import Any

import httpx
import pytest

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.server.serving import uvicorn_config
from askai_graph.stores.schema_lock import LOCK_TIMEOUT
from tests.fakes import GatedChatServer, postgres_database
from tests.live import LiveServer
from tests.tcp_proxy import TcpProxy
from tests.test_server_threads import FOLLOW_UP, Reply

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

POSTGRES = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
BOUND = 2.0
"""The longest a request that needs the threads database may wait for it during an outage."""
IN_FLIGHT = 3
LOAD = 10


Thread = tuple[str, str]
"""A thread's id and the token issued with it (both are needed to continue it)."""


def chat_body(message: str, thread: Thread | None) -> dict[str, Any]:
    """Return the /api/chat body for ``message``, continuing ``thread`` when one is given."""
    return {"message": message} | ({"thread_id": thread[0], "thread_token": thread[1]} if thread else {})


async def timed(client: httpx.AsyncClient, base: str, message: str, thread: Thread | None) -> tuple[float, Any]:
    """POST one message and read the whole reply; return the seconds it took and the response."""
    body = chat_body(message, thread)
    started = time.monotonic()
    response = await client.post(f"{base}/api/chat", json=body)
    return time.monotonic() - started, response


async def at_once(base: str, asked: list[tuple[str, Thread | None]]) -> list[tuple[float, Any]]:
    """Send every message at once (one light asyncio client) and time each reply."""
    async with httpx.AsyncClient(timeout=60) as client:
        return list(await asyncio.gather(*(timed(client, base, *body) for body in asked)))


def ask(base: str, message: str, thread: Thread | None = None) -> Reply:
    """POST one message and read the answer to its end (heartbeats skipped); a refusal keeps its body."""
    from httpx_sse import connect_sse

    body = chat_body(message, thread)
    with httpx.Client(timeout=60) as client:
        with connect_sse(client, "POST", f"{base}/api/chat", json=body) as source:
            if source.response.status_code != 200:
                return Reply(source.response.status_code, [], source.response.read().decode())
            events = [(sse.event, json.loads(sse.data)) for sse in source.iter_sse() if sse.data]
            return Reply(200, events)


def read_stream(base: str, message: str, into: list[Any]) -> None:
    """Read one answer to its end, or note the transport error that cut it."""
    try:
        into.append(ask(base, message))
    except httpx.HTTPError as exc:  # a stream cut without an error event
        into.append(exc)


def recreate(database_url: str) -> None:
    """Drop the test's database (closing every session on it) and create it again, empty."""
    import psycopg

    server, name = database_url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def until_rated(base: str, rating: dict[str, Any], seconds: float = LOCK_TIMEOUT) -> httpx.Response:
    """Send feedback until it is stored, or time is up: meanwhile the run log's pool may
    still be reconnecting to the recreated database, and says so with a 503.

    Its new connection re-creates the run log's table under the schema lock that every
    store takes on that empty database, so the bound is the lock's (``LOCK_TIMEOUT``):
    15 s was too short twice in nine runs on a loaded 2-core machine."""
    give_up = time.monotonic() + seconds
    while True:
        rated = httpx.post(f"{base}/api/feedback", json=rating, timeout=10)
        if rated.status_code != 503 or time.monotonic() > give_up:
            return rated
        time.sleep(0.2)


def until_answered(base: str, message: str, thread: Thread | None = None, seconds: float = 15) -> Reply:
    """Ask until an answer ends with ``done`` (the server gets its database back by itself), or time is up."""
    give_up = time.monotonic() + seconds
    while True:
        reply = ask(base, message, thread)
        answered = reply.status == 200 and reply.events[-1][0] == "done"
        # Meanwhile a 503, or an error event: a connection made right then may still be creating the tables.
        if answered or reply.status not in (200, 503) or time.monotonic() > give_up:
            return reply
        time.sleep(0.2)


def test_a_postgres_outage_is_503_at_once_ends_streams_with_error_and_heals_without_a_restart(
    settings: Settings,
) -> None:
    model = GatedChatServer()
    model.gate.set()
    with (
        postgres_database(POSTGRES) as database,
        TcpProxy("127.0.0.1", 5432) as proxy,
        LiveServer(model.app()) as model_url,
    ):
        url = database.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
        update = {"database_url": url, "model": "gated", "base_url": f"{model_url}/v1", "cache_enabled": False}
        served = settings.model_copy(update=update | {"max_retries": 0, "thread_lease_renew_seconds": 2.0})
        app = create_app(settings=served)
        config = uvicorn_config(app, served, host="127.0.0.1", port=0, log_level="warning")
        with LiveServer(app, config) as base:
            first = ask(base, "What is BM25?").done
            thread = (first["thread_id"], first["thread_token"])
            # Answers in flight: each waits at the model while the database goes.
            model.gate.clear()
            model.asked.clear()
            streams: list[Any] = []
            readers = [
                threading.Thread(target=read_stream, args=(base, f"What is hybrid search ({n})?", streams))
                for n in range(IN_FLIGHT)
            ]
            for reader in readers:
                reader.start()
            assert model.asked.wait(30)
            time.sleep(1.0)  # every stream has reached the model
            proxy.cut()
            # Under load: new questions and follow-ups at once, more than the pool has connections.
            asked: list[tuple[str, Thread | None]] = [(f"What is a vector index ({n})?", None) for n in range(LOAD)]
            asked += [(FOLLOW_UP, thread)] * 2
            refused = asyncio.run(at_once(base, asked))
            model.gate.set()
            for reader in readers:
                reader.join(30)
            proxy.restore()
            healed = until_answered(base, FOLLOW_UP, thread)
            recreate(database)
            fresh = until_answered(base, "What is BM25?")
            rating = {"run_id": fresh.done["run_id"], "rating": "up"}
            rated = until_rated(base, rating)
            forgotten = ask(base, FOLLOW_UP, thread)  # the thread went with the old database
    for seconds, response in refused:
        assert response.status_code == 503 and int(response.headers["Retry-After"]) >= 1, response.text
        assert response.json() == {"detail": "the threads database is unreachable; retry shortly"}
        # A timing behaviour: unbounded, these would wait out the whole outage. The margin
        # is what twelve requests at once need on a loaded 2-core machine.
        assert seconds <= BOUND + 3.0, f"503 after {seconds:.2f}s"
    # Never cut without an event: each in-flight stream ends with error (its checkpoint cannot be written).
    assert [type(reply).__name__ for reply in streams] == ["Reply"] * IN_FLIGHT, streams
    assert [reply.events[-1][0] for reply in streams] == ["error"] * IN_FLIGHT, [r.events for r in streams]
    assert healed.status == 200 and healed.done["thread_id"] == thread[0]
    assert fresh.status == 200 and fresh.done["outcome"]
    assert rated.status_code == 200, rated.text  # the run log has its table again too
    assert forgotten.status == 404, forgotten.detail
