"""A thread is no bearer token: continuing it needs the ``thread_token`` issued with it.

Real uvicorn servers on 127.0.0.1 over the bundled sample site. "How do I tune its
parameters?" finds the BM25 article only on the thread whose first question was about
BM25, so a follow-up that reached the thread shows it; every refusal is compared with
the refusal of an id the server never issued, body and all. Expiry is tested where the
server decides it (``ThreadLeases``), on a clock the test moves instead of waiting.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.answers.leases import ThreadLeases, utc_now
from askai_graph.server.guards.request import BadRequest
from askai_graph.stores.thread_tokens import checkpoint_thread, new_thread_token
from askai_graph.stores.threads import new_thread_id, run_config
from tests.live import LiveServer
from tests.test_server_threads import BM25_POST, FOLLOW_UP, Reply, chat

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


@pytest.fixture(scope="module")
def base(index_cache: Path) -> Iterator[str]:
    """The default app, threads in memory, the cache off so every answer runs the graph."""
    with LiveServer(create_app(settings=Settings(index_cache_dir=index_cache, cache_enabled=False))) as url:
        yield url


def never_issued(base: str) -> Reply:
    """The refusal of a well-formed thread id this server never issued: what every refusal must equal."""
    return chat(base, FOLLOW_UP, {"thread_id": str(uuid.uuid4()), "thread_token": new_thread_token()})


def same_refusal(reply: Reply, reference: Reply) -> bool:
    return (reply.status, reply.detail) == (reference.status, reference.detail) == (404, reference.detail)


def test_done_carries_a_token_per_thread_and_the_same_one_on_its_follow_ups(base: str) -> None:
    first, other = chat(base, "What is BM25?"), chat(base, "What is BM25?")
    token = first.done["thread_token"]
    assert isinstance(token, str) and len(token) == 43 and token != other.done["thread_token"]
    follow_up = chat(base, FOLLOW_UP, first.done)
    assert follow_up.done["thread_id"] == first.done["thread_id"] and follow_up.done["thread_token"] == token
    assert follow_up.step("research")["rewritten"] is True and follow_up.sources[0] == BM25_POST


def test_a_thread_id_without_its_token_is_refused_like_an_unknown_one(base: str) -> None:
    first = chat(base, "What is BM25?")
    reply = chat(base, FOLLOW_UP, {"thread_id": first.done["thread_id"], "thread_token": None})
    assert same_refusal(reply, never_issued(base)), reply.detail
    assert "unknown" in str(reply.detail)


def test_a_wrong_token_is_refused_like_an_unknown_thread(base: str) -> None:
    first = chat(base, "What is BM25?")
    reply = chat(base, FOLLOW_UP, first.done | {"thread_token": new_thread_token()})
    assert same_refusal(reply, never_issued(base)), reply.detail


def test_the_token_of_another_thread_is_refused_like_an_unknown_thread(base: str) -> None:
    mine, theirs = chat(base, "What is BM25?"), chat(base, "What is hybrid search?")
    reply = chat(base, FOLLOW_UP, mine.done | {"thread_token": theirs.done["thread_token"]})
    assert same_refusal(reply, never_issued(base)), reply.detail
    # Both threads are untouched: each owner goes on with its own token.
    assert chat(base, FOLLOW_UP, mine.done).sources[0] == BM25_POST


def test_an_expired_thread_is_expired_to_its_owner_and_unknown_to_anyone_else(settings: Settings) -> None:
    # Where the server decides (``ThreadLeases``), on a clock the test moves past the threads' lifetime.
    at = [utc_now()]
    leases = ThreadLeases(settings, clock=lambda: at[0])
    graph = build_graph(settings=settings, checkpointer=InMemorySaver())
    owner, other = (new_thread_id(), new_thread_token()), (new_thread_id(), new_thread_token())
    for thread_id, token in (owner, other):
        graph.invoke({"question": "What is BM25?"}, run_config(checkpoint_thread(thread_id, token)))

    def claim(thread_id: str, token: str) -> tuple[int, str]:
        async def claimed() -> tuple[int, str]:
            try:
                _, release = await leases.claim(graph, thread_id, token)
            except BadRequest as refused:
                return refused.status, refused.message
            await release()
            return 200, ""

        return asyncio.run(claimed())

    assert claim(*owner) == (200, "")  # still within its lifetime
    at[0] += timedelta(hours=settings.thread_ttl_hours, seconds=1)
    stranger = claim(other[0], new_thread_token())
    reference = claim(str(uuid.uuid4()), new_thread_token())
    expired = claim(*owner)
    assert stranger == reference and reference[0] == 404 and "unknown" in reference[1]
    assert expired[0] == 404 and "expired" in expired[1]


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"thread_token": "short"}, "'thread_token' must be the 43-character thread_token"),
        ({"thread_token": 42}, "'thread_token' must be the 43-character thread_token"),
    ],
)
def test_a_malformed_token_is_a_422(base: str, fields: dict[str, Any], complaint: str) -> None:
    reply = chat(base, "What is BM25?", {"thread_id": str(uuid.uuid4())} | fields)
    assert reply.status == 422 and reply.detail is not None and complaint in reply.detail, reply.detail


def test_a_token_without_a_thread_id_is_ignored_and_a_new_thread_gets_its_own(base: str) -> None:
    stray = new_thread_token()
    reply = chat(base, "What is BM25?", {"thread_id": None, "thread_token": stray})
    assert reply.status == 200 and reply.done is not None
    assert reply.done["thread_token"] != stray


def test_the_token_is_kept_nowhere_and_the_thread_is_stored_under_a_hash(tmp_path: Path, index_cache: Path) -> None:
    database = tmp_path / "askai.sqlite"
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, database_url=f"sqlite:///{database}")
    app = create_app(settings=settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")  # opens the database
    with LiveServer(app, config) as url:
        done = chat(url, "What is BM25?").done
        assert chat(url, FOLLOW_UP, done).status == 200
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("askai.sqlite*"))
    assert done["run_id"].encode() in stored, "precondition: the run log is in this database"
    assert done["thread_token"].encode() not in stored
    assert checkpoint_thread(done["thread_id"], done["thread_token"]).encode() in stored
