"""The answer cache in Redis: shared between processes, bounded, expiring, and never an error when Redis goes.

Each test runs a ``redis-server`` of its own on a free port (``tests.redis_server``), so
it can stop and restart it without touching the machine's shared server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import Any

import pytest
import redis.asyncio

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.answers.cache import CachedAnswer, SemanticCache
from askai_graph.server.answers.redis_cache import RedisCacheStore
from askai_graph.state import Source
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer, sse_events
from tests.redis_server import RedisServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do retrieval and caching work?"
GATES: Any = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def answer(question: str) -> CachedAnswer:
    return CachedAnswer(question=question, answer=f"About {question}", outcome="accepted", gates=GATES)


def store(server: RedisServer, **options: Any) -> RedisCacheStore:
    return RedisCacheStore(server.url, **({"max_entries": 100, "ttl_seconds": 3600} | options))


def test_an_entry_stored_by_one_client_is_a_hit_for_another(redis_server: RedisServer) -> None:
    async def scenario() -> tuple[Any, Any]:
        writer, reader = store(redis_server), store(redis_server)
        await writer.add("ns", "bm25 what", answer("What is BM25?"))
        try:
            return await reader.get("ns", "bm25 what"), await reader.get("other-ns", "bm25 what")
        finally:
            await writer.aclose()
            await reader.aclose()

    hit, other_namespace = asyncio.run(scenario())
    assert hit == answer("What is BM25?")
    assert other_namespace is None


CARDS = [
    Source(title="BM25", url="https://site.example/bm25", section="Ranking", anchor_url="https://site.example/bm25#ranking",
           quote="BM25 ranks documents by term frequency."),
    Source(title="Caching", url="https://site.example/caching", anchor_url="https://site.example/caching"),
]


def semantic(server: RedisServer) -> SemanticCache:
    """One process' answer cache over the shared Redis (same namespace as the others')."""
    return SemanticCache(store(server), namespace="corpus-fp")


def test_a_cached_answer_round_trips_its_cards_through_redis(redis_server: RedisServer) -> None:
    async def scenario() -> Any:
        first, second = semantic(redis_server), semantic(redis_server)
        try:
            probe = await first.lookup("What is BM25?")
            final = {"question": "What is BM25?", "answer": "A ranking.", "outcome": "accepted", "gates": GATES}
            assert await first.remember(probe, final | {"sources": CARDS})
            return (await second.lookup("What is BM25?")).hit
        finally:
            await first.store.aclose()  # type: ignore[attr-defined]
            await second.store.aclose()  # type: ignore[attr-defined]

    hit = asyncio.run(scenario())
    assert hit is not None and hit.sources == tuple(CARDS)


def test_an_entry_an_older_version_stored_without_cards_is_a_miss_until_answered_again(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> tuple[Any, Any]:
        cache = semantic(redis_server)
        probe = await cache.lookup("What is BM25?")
        # The layout the module documents: {prefix}:e:{namespace}:{digest of the key}; no "sources".
        name = f"askai:cache:e:{cache.namespace}:{hashlib.sha256(probe.key.encode()).hexdigest()[:32]}"
        old = {"question": "What is BM25?", "answer": "Old.", "outcome": "accepted", "gates": GATES}
        client = redis.asyncio.Redis.from_url(redis_server.url)
        try:
            await client.set(name, json.dumps(old))
            missed = await cache.lookup("What is BM25?")
            await cache.remember(missed, old | {"answer": "Fresh.", "sources": CARDS[:1]})
            return missed.hit, (await cache.lookup("What is BM25?")).hit
        finally:
            await client.aclose()
            await cache.store.aclose()  # type: ignore[attr-defined]

    missed, hit = asyncio.run(scenario())
    assert missed is None
    assert hit is not None and (hit.answer, hit.sources) == ("Fresh.", (CARDS[0],))


def test_the_store_keeps_max_entries_and_evicts_the_least_recently_used(redis_server: RedisServer) -> None:
    async def scenario() -> tuple[list[bool], int]:
        cache = store(redis_server, max_entries=3)
        for key in "abc":
            await cache.add("ns", key, answer(key))
        await cache.get("ns", "a")  # "b" is now the least recently used
        await cache.add("ns", "d", answer("d"))
        try:
            return [await cache.get("ns", key) is not None for key in "abcd"], await cache.size()
        finally:
            await cache.aclose()

    present, size = asyncio.run(scenario())
    assert present == [True, False, True, True]
    assert size == 3


def test_an_entry_expires_ttl_seconds_after_it_is_stored(redis_server: RedisServer) -> None:
    import redis

    async def scenario() -> None:
        cache = store(redis_server, ttl_seconds=90, prefix="ttl-test")
        await cache.add("ns", "k", answer("k"))
        await cache.aclose()

    asyncio.run(scenario())
    client = redis.Redis.from_url(redis_server.url)
    (name,) = client.keys("ttl-test:e:*")
    assert 0 < client.ttl(name) <= 90


def test_nearest_returns_the_most_similar_vector_of_the_namespace(redis_server: RedisServer) -> None:
    async def scenario() -> tuple[Any, Any]:
        cache = store(redis_server)
        await cache.add("ns", "x", answer("x"), [1.0, 0.0])
        await cache.add("ns", "y", answer("y"), [0.0, 1.0])
        await cache.add("elsewhere", "z", answer("z"), [1.0, 0.1])
        try:
            return await cache.nearest("ns", [0.9, 0.1]), await cache.nearest("empty", [1.0, 0.0])
        finally:
            await cache.aclose()

    near, none = asyncio.run(scenario())
    assert near is not None and near[1].question == "x" and near[0] == pytest.approx(0.9939, abs=1e-3)
    assert none is None


def test_losing_redis_gives_misses_logged_once_and_hits_resume_when_it_returns(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> tuple[list[bool], list[bool]]:
        cache = store(redis_server, retry_seconds=0)
        await cache.add("ns", "k", answer("k"))
        redis_server.stop()
        while_down = [await cache.get("ns", "k") is not None for _ in range(3)]
        await cache.add("ns", "k", answer("k"))  # storing while Redis is gone is skipped, not raised
        redis_server.start()  # an empty server: nothing survived
        await cache.add("ns", "k", answer("k"))
        after = [await cache.get("ns", "k") is not None for _ in range(3)]
        await cache.aclose()
        return while_down, after

    with caplog.at_level(logging.WARNING, logger="askai_graph.server.answers.redis_cache"):
        while_down, after = asyncio.run(scenario())
    unreachable = [r for r in caplog.records if "unreachable" in r.getMessage()]
    assert while_down == [False, False, False]
    assert after == [True, True, True]
    assert len(unreachable) == 1
    assert any("reachable again" in r.getMessage() for r in caplog.records)


def chat_app(settings: Settings) -> tuple[Any, Any]:
    writer = replies(cited_draft(1))
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=retriever(1), settings=settings)
    return create_app(graph, settings, namespace="corpus-fp"), writer


def test_apps_with_the_same_cache_url_serve_each_others_answers(settings: Settings, redis_server: RedisServer) -> None:
    shared = settings.model_copy(update={"cache_url": redis_server.url})
    first, _ = chat_app(shared)
    second, _ = chat_app(shared)
    with live(first) as base:
        asked = sse_events(base, QUESTION)
    with live(second) as base:
        again = sse_events(base, QUESTION)
    # (The graph runs while the cache is consulted, so the second app's Writer may have
    # started before the hit stopped it: what counts is the answer served.)
    assert asked[-1][1]["cached"] is False and again[-1][1]["cached"] is True
    assert answer_text(again) == answer_text(asked)


def answer_text(events: list[tuple[str, Any, str]]) -> str:
    return "".join(data["text"] for name, data, _ in events if name == "token")


def test_an_app_answers_while_redis_is_down_and_serves_hits_once_it_is_back(
    settings: Settings, redis_server: RedisServer
) -> None:
    app, writer = chat_app(settings.model_copy(update={"cache_url": redis_server.url}))
    with live(app) as base:
        sse_events(base, QUESTION)
        redis_server.stop()
        down = [sse_events(base, QUESTION)[-1][1] for _ in range(2)]
        redis_server.start()
        calls = writer.calls
        # The first request after the back-off window reaches Redis again and stores the answer.
        stored = _until_cached(base)
    assert [done["outcome"] for done in down] == ["accepted", "accepted"]
    assert [done["cached"] for done in down] == [False, False]
    assert stored["cached"] is True and writer.calls > calls


def live(app: Any) -> LiveServer:
    """A live server that runs the app's lifespan (which closes its Redis connections)."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none", timeout_graceful_shutdown=2)
    return LiveServer(app, config)


def _until_cached(base: str) -> dict[str, Any]:
    """Ask until the answer comes from the cache (the store retries Redis once a second)."""
    for _ in range(200):
        done: dict[str, Any] = sse_events(base, QUESTION)[-1][1]
        if done["cached"]:
            return done
        time.sleep(0.05)
    raise AssertionError("the cache never served a hit after Redis came back")


def status(base: str, message: str = QUESTION) -> int:
    import httpx

    with httpx.Client(timeout=20) as client:
        response = client.post(f"{base}/api/chat", json={"message": message})
    return response.status_code


def test_apps_with_the_same_cache_url_share_the_rate_limit(settings: Settings, redis_server: RedisServer) -> None:
    shared = settings.model_copy(update={"cache_url": redis_server.url, "rate_limit": "2/minute"})
    first, _ = chat_app(shared)
    second, _ = chat_app(shared)
    with live(first) as one, live(second) as other:
        statuses = [status(one), status(other), status(one), status(other)]
    assert statuses == [200, 200, 429, 429]


def test_apps_with_the_same_cache_url_share_the_feedback_rate_limit_apart_from_the_questions(
    settings: Settings, redis_server: RedisServer
) -> None:
    import httpx

    limits = {"cache_url": redis_server.url, "feedback_per_minute": 2, "rate_limit": "2/minute"}
    shared = settings.model_copy(update=limits)
    first, _ = chat_app(shared)
    second, _ = chat_app(shared)
    rating = {"run_id": "6f1c1c9e-3d1a-4b7e-9a43-2f1d3c4b5a69", "rating": "up"}
    with live(first) as one, live(second) as other:
        # No run log here: an admitted rating is a 404, a counted-out one a 429.
        rated = [httpx.post(f"{base}/api/feedback", json=rating, timeout=20) for base in (one, other, one)]
        asked = status(other)
    assert [reply.status_code for reply in rated] == [404, 404, 429]
    assert int(rated[2].headers["Retry-After"]) >= 1
    assert asked == 200  # the questions' count is apart from the ratings'


def test_the_rate_limit_admits_questions_while_redis_is_down(
    settings: Settings, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    app, _ = chat_app(settings.model_copy(update={"cache_url": redis_server.url, "rate_limit": "1/minute"}))
    with caplog.at_level(logging.WARNING, logger="askai_graph.server.guards.limits"), live(app) as base:
        assert status(base) == 200
        redis_server.stop()
        down = [status(base) for _ in range(3)]
        redis_server.start()  # an empty server: the count starts again
        back = [status(base), status(base)]
    assert down == [200, 200, 200]
    assert back == [200, 429]
    limits = "askai_graph.server.guards.limits"
    unreachable = [r for r in caplog.records if r.name == limits and "unreachable" in r.getMessage()]
    assert len(unreachable) == 1
