"""The run log and reader feedback over real HTTP: ``done`` carries ``run_id``, answers are
logged, ``POST /api/feedback`` rates them, bad input is a 4xx, and the log can be off."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from limits.aio.storage import MemoryStorage
from pydantic import SecretStr

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.guards.limits import ClientRateLimit
from askai_graph.server.guards.request import BadRequest, parse_json
from askai_graph.server.routes.bodies import FeedbackBody
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog, open_run_log
from tests.fakes import PASSING, cited_draft, postgres_database, replies, retriever, review, url
from tests.live import LiveServer, sse_events

POSTGRES = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
QUESTION = "How do retrieval and caching work?"


def live(test: Any) -> Any:
    """Mark a test that serves over a real socket."""
    return pytest.mark.integration(pytest.mark.enable_socket(test))


def serve(settings: Settings, run_log: RunLog | None, critic: Any = None, **kwargs: Any) -> LiveServer:
    graph = build_graph(
        writer=replies(cited_draft(1, 2)),
        critic=critic or replies(PASSING),
        retriever=retriever(1, 2, 3),
        settings=settings,
    )
    return LiveServer(create_app(graph, settings, run_log=run_log, **kwargs))


@pytest.fixture
def run_log(tmp_path: Path) -> Iterator[RunLog]:
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield log
    log.close()


def feedback(base: str, body: Any, **kwargs: Any) -> httpx.Response:
    return httpx.post(f"{base}/api/feedback", json=body, timeout=10, **kwargs)


@live
def test_each_answer_is_logged_under_the_run_id_done_carries(settings: Settings, run_log: RunLog) -> None:
    with serve(settings, run_log) as base:
        done = sse_events(base, QUESTION)[-1][1]
    (record,) = run_log.runs()
    assert record.run_id == done["run_id"] and uuid.UUID(done["run_id"])
    assert (record.question, record.outcome, record.attempts, record.cached) == (QUESTION, "accepted", 1, False)
    assert record.gates == {"retrieval": "passed", "validation": "passed", "critic": "passed"}
    # Page 3 was retrieved, never cited: it is no card, so no source URL of the run.
    assert record.cited_urls == [url(1), url(2)] and record.source_urls == [url(1), url(2)]
    assert record.retrieved_urls == [url(1), url(2), url(3)]
    assert record.latency_ms > 0 and set(record.stage_ms) >= {"research", "writer", "validation", "critic"}


def _asked_from(settings: Settings, run_log: RunLog, search_id: str) -> str | None:
    """Ask from the search ``search_id`` (as the client 127.0.0.1); return the search id the run log kept."""
    from httpx_sse import connect_sse

    body = {"message": QUESTION, "search_id": search_id}
    with serve(settings, run_log) as base, httpx.Client(timeout=20) as client:
        with connect_sse(client, "POST", f"{base}/api/chat", json=body) as source:
            assert [sse.event for sse in source.iter_sse()][-1] == "done"
    (record,) = run_log.runs()
    return record.search_id


@live
def test_an_answer_is_queued_for_the_log_on_the_event_loop_without_a_thread_hop(
    settings: Settings, run_log: RunLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued_on_loop: list[bool] = []
    record = run_log.record

    def noting(run: Any) -> None:
        try:
            asyncio.get_running_loop()  # raises in a worker thread
            queued_on_loop.append(True)
        except RuntimeError:
            queued_on_loop.append(False)
        record(run)

    monkeypatch.setattr(run_log, "record", noting)
    with serve(settings, run_log) as base:
        sse_events(base, QUESTION)
    assert queued_on_loop == [True]
    assert len(run_log.runs()) == 1


@live
def test_a_question_asked_from_a_search_is_logged_with_its_search_id(settings: Settings, run_log: RunLog) -> None:
    settings = settings.model_copy(update={"reader_hash_key": SecretStr("k" * 32)})
    readers = ReaderHash(settings.reader_hash_key)
    mine = readers.issue(readers("127.0.0.1"))
    assert _asked_from(settings, run_log, mine) == mine


@live
@pytest.mark.parametrize("whose", ["another reader's", "made up"])
def test_a_question_cannot_name_a_search_another_reader_made(settings: Settings, run_log: RunLog, whose: str) -> None:
    settings = settings.model_copy(update={"reader_hash_key": SecretStr("k" * 32)})
    readers = ReaderHash(settings.reader_hash_key)
    theirs = readers.issue(readers("203.0.113.9")) if whose == "another reader's" else "ab" * 16
    assert _asked_from(settings, run_log, theirs) is None  # answered all the same, linked to nothing


@live
def test_a_degraded_answer_logs_its_failure_codes_and_gaps(settings: Settings, run_log: RunLog) -> None:
    doubtful = review(confidence=0.2, gaps=["eviction policy"])
    with serve(settings, run_log, critic=replies(doubtful, doubtful, doubtful)) as base:
        sse_events(base, QUESTION)
    (record,) = run_log.runs()
    assert record.outcome == "degraded" and record.gates["critic"] == "failed"
    assert record.failure_codes == ["low_confidence"] and record.gaps == ["eviction policy"]
    assert record.source_urls == []


@live
def test_a_cache_hit_is_logged_as_cached(settings: Settings, run_log: RunLog) -> None:
    with serve(settings, run_log) as base:
        first = sse_events(base, "What is semantic caching?")[-1][1]
        second = sse_events(base, "semantic CACHING -- what is it?")[-1][1]
    assert second["cached"] is True and second["run_id"] != first["run_id"]
    assert [(r.run_id, r.cached) for r in run_log.runs()] == [(first["run_id"], False), (second["run_id"], True)]
    # The hit showed its first answer's cards: the log (and the dashboard's run page) says so.
    fresh, hit = run_log.runs()
    assert fresh.source_urls and hit.source_urls == fresh.source_urls


@live
def test_feedback_rates_a_logged_answer(settings: Settings, run_log: RunLog) -> None:
    with serve(settings, run_log) as base:
        run_id = sse_events(base, QUESTION)[-1][1]["run_id"]
        reply = feedback(base, {"run_id": run_id, "rating": "down", "comment": "  too vague  "})
    assert reply.status_code == 200 and reply.json() == {"run_id": run_id, "rating": "down"}
    (record,) = run_log.runs()
    assert (record.rating, record.comment) == ("down", "too vague")


@live
def test_feedback_on_an_unknown_run_id_is_404(settings: Settings, run_log: RunLog) -> None:
    with serve(settings, run_log) as base:
        reply = feedback(base, {"run_id": str(uuid.uuid4()), "rating": "up"})
    assert reply.status_code == 404 and reply.json()["detail"].startswith("unknown run_id")


@live
def test_bad_feedback_is_a_4xx_with_a_detail(settings: Settings, run_log: RunLog) -> None:
    with serve(settings, run_log) as base:
        wrong_type = httpx.post(f"{base}/api/feedback", content=b"rating=up", timeout=10)
        bad_rating = feedback(base, {"run_id": str(uuid.uuid4()), "rating": "meh"})
    assert wrong_type.status_code == 415 and "application/json" in wrong_type.json()["detail"]
    assert bad_rating.status_code == 422 and bad_rating.json() == {"detail": "'rating' must be 'up' or 'down'"}


@live
def test_feedback_is_rate_bounded_per_client(settings: Settings, run_log: RunLog) -> None:
    bounded = settings.model_copy(update={"feedback_per_minute": 3})
    with serve(bounded, run_log) as base:
        codes = [feedback(base, {"run_id": str(uuid.uuid4()), "rating": "up"}).status_code for _ in range(4)]
    assert codes == [404, 404, 404, 429]


@live
def test_the_run_log_setting_turns_logging_and_feedback_off(settings: Settings, run_log: RunLog) -> None:
    with serve(settings.model_copy(update={"run_log": False}), run_log) as base:
        done = sse_events(base, QUESTION)[-1][1]
        reply = feedback(base, {"run_id": done["run_id"], "rating": "up"})
    assert run_log.runs() == []
    assert reply.status_code == 404 and "run log is off" in reply.json()["detail"]


@live
def test_the_run_log_goes_to_postgresql_when_the_database_url_says_so(settings: Settings) -> None:
    with postgres_database(POSTGRES) as database_url:
        configured = settings.model_copy(update={"database_url": database_url})
        with serve(configured, None) as base:
            run_id = sse_events(base, QUESTION)[-1][1]["run_id"]
            assert feedback(base, {"run_id": run_id, "rating": "up"}).status_code == 200
        log = open_run_log(database_url)
        try:
            assert [(r.run_id, r.rating) for r in log.runs()] == [(run_id, "up")]
        finally:
            log.close()


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        (b"{", 400, "request body is not valid JSON"),
        (b"[]", 422, "request body must be a JSON object"),
        (b'{"rating": "up"}', 422, "'run_id' is required"),
        (b'{"run_id": 7, "rating": "up"}', 422, "'run_id' must be a string, not a number"),
        (b'{"run_id": "abc", "rating": "up"}', 422, "'run_id' must be the run_id of an answer"),
        (b'{"run_id": "6f1c1c9e-3d1a-4b7e-9a43-2f1d3c4b5a69", "rating": "up", "x": 1}', 422, "unknown field(s) 'x'"),
        (b'{"run_id": "6f1c1c9e-3d1a-4b7e-9a43-2f1d3c4b5a69", "rating": "up", "comment": 5}', 422, "'comment' must"),
        (
            b'{"run_id": "6f1c1c9e-3d1a-4b7e-9a43-2f1d3c4b5a69", "rating": "up", "comment": "' + b"x" * 1001 + b'"}',
            422,
            "'comment' is 1001 characters; the limit is 1000",
        ),
    ],
)
def test_parse_feedback_refuses_bad_input(body: bytes, status: int, detail: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse_json(body, FeedbackBody, Settings())
    assert refused.value.status == status and refused.value.message.startswith(detail)


def test_feedback_and_questions_share_one_rate_limit_type_with_separate_counts() -> None:
    async def scenario() -> tuple[list[int | None], int | None, int | None]:
        storage = MemoryStorage()
        feedback = ClientRateLimit("2/minute", storage, name="askai-feedback")
        questions = ClientRateLimit("2/minute", storage)
        first = [await feedback.admit("a") for _ in range(3)]
        return first, await feedback.admit("b"), await questions.admit("a")

    first, other_client, questions = asyncio.run(scenario())
    assert first[:2] == [None, None] and isinstance(first[2], int) and first[2] >= 1
    assert other_client is None and questions is None


@live
def test_a_postgres_outage_under_load_loses_no_answer_and_feedback_gets_503(settings: Settings) -> None:
    import time

    from tests.tcp_proxy import TcpProxy

    with postgres_database(POSTGRES) as database, TcpProxy("127.0.0.1", 5432) as proxy:
        log = open_run_log(database.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}"))
        try:
            with serve(settings, log) as base:
                before = sse_events(base, QUESTION)[-1][1]["run_id"]
                proxy.cut()
                during = [sse_events(base, QUESTION)[-1][1] for _ in range(12)]
                started = time.monotonic()
                refused = feedback(base, {"run_id": before, "rating": "down"})
                # Bounded by the store (2 s, plus a busy machine's scheduling), not by the outage, which lasts
                # until restore() below.
                assert time.monotonic() - started <= 6.0
                assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
                assert all(done["outcome"] == "accepted" for done in during)  # answers never wait on the log
                proxy.restore()
                deadline = time.monotonic() + 60  # a wait for the pool to reconnect, not a bound under test
                while (rated := feedback(base, {"run_id": before, "rating": "down"})).status_code == 503:
                    assert time.monotonic() < deadline, "the run log never reconnected"
                    time.sleep(0.5)
                assert rated.status_code == 200
                later = feedback(base, {"run_id": during[-1]["run_id"], "rating": "up"})
                assert later.status_code == 200  # an answer logged while the database was away
            logged = {record.run_id: record for record in log.runs()}
        finally:
            log.close()
    assert set(logged) == {before} | {done["run_id"] for done in during}
    assert logged[before].rating == "down" and logged[during[-1]["run_id"]].rating == "up"
