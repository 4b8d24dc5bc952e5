"""Over real HTTP: the run answers the question masked at its first stage; the run log, cache and thread keep it so."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import Settings, build_graph
from askai_graph.server import InMemoryCacheStore, SemanticCache, create_app
from askai_graph.server.housekeeping.retention import expire_once
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog, open_run_log
from askai_graph.stores.thread_tokens import checkpoint_thread
from askai_graph.stores.threads import run_config
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer
from tests.test_runlog_store import run
from tests.test_server_cache import ask

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]
JANE = "My e-mail is jane@example.org: how does BM25 rank pages?"
JOE = "My e-mail is joe@example.net: how does BM25 rank pages?"
MASKED = "My e-mail is [email]: how does BM25 rank pages?"


@pytest.fixture
def run_log(tmp_path: Path) -> Iterator[RunLog]:
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield log
    log.close()


def test_a_question_differing_only_in_an_email_is_a_cache_hit_and_is_logged_masked(
    settings: Settings, run_log: RunLog
) -> None:
    writer = replies(cited_draft(1, 2))
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=retriever(1, 2), settings=settings)
    with LiveServer(create_app(graph, settings, run_log=run_log)) as base, httpx.Client(timeout=20) as client:
        first = ask(client, base, JANE)
        second = ask(client, base, JOE)
    assert "jane@example.org" not in writer.prompts[0]  # the run answered the question masked, as it keeps it
    assert "how does BM25 rank pages?" in writer.prompts[0]
    assert (first["cached"], second["cached"]) == (False, True)
    records = run_log.runs()
    assert [r.question for r in records] == [MASKED, MASKED]
    # The reader is a keyed hash of the client address, never the address.
    assert all(r.reader and re.fullmatch(r"[0-9a-f]{32}", r.reader) for r in records)
    assert records[0].reader == records[1].reader != "127.0.0.1"


def test_the_thread_history_keeps_the_question_masked(settings: Settings) -> None:
    writer = replies(cited_draft(1), cited_draft(1))
    checkpointer = InMemorySaver()
    graph = build_graph(
        writer=writer, critic=replies(PASSING), retriever=retriever(1), settings=settings, checkpointer=checkpointer
    )
    with LiveServer(create_app(graph, settings)) as base, httpx.Client(timeout=20) as client:
        first = ask(client, base, JANE)
        ask(client, base, "And how does it rank titles?", thread=first)
    config = run_config(checkpoint_thread(first["thread_id"], first["thread_token"]))
    history = graph.get_state(config).values["history"]
    assert [turn.question for turn in history][0] == MASKED
    assert "jane@example.org" not in writer.prompts[1]  # the follow-up's Writer read the masked turn


def test_the_cache_stores_the_answer_with_the_readers_own_values_masked() -> None:
    cache = SemanticCache(InMemoryCacheStore(10))
    probe = asyncio.run(cache.lookup(JANE))
    final = {
        "question": JANE,
        "answer": "Write to jane@example.org; the docs' example is admin@site.test.",
        "outcome": "accepted",
        "gates": {"retrieval": "passed", "validation": "passed", "critic": "passed"},
    }
    assert asyncio.run(cache.remember(probe, final))
    hit = asyncio.run(cache.lookup(JOE)).hit
    assert hit is not None and hit.question == MASKED
    assert hit.answer == "Write to [email]; the docs' example is admin@site.test."


def test_the_reader_hash_is_keyed() -> None:
    assert ReaderHash("k1")("203.0.113.9") == ReaderHash("k1")("203.0.113.9")
    assert ReaderHash("k1")("203.0.113.9") != ReaderHash("k2")("203.0.113.9")
    assert "203.0.113.9" not in ReaderHash(None)("203.0.113.9")


def test_the_servers_retention_pass_removes_runs_older_than_the_setting(run_log: RunLog) -> None:
    now = datetime.now(UTC)
    old, recent = run("old", at=now - timedelta(days=31)), run("recent", at=now - timedelta(days=29))
    run_log.record(old)
    run_log.record(recent)
    assert asyncio.run(expire_once(run_log, 30)) == 1
    assert [r.run_id for r in run_log.runs()] == [recent.run_id]


def test_the_retention_setting_reads_askai_runlog_retention_days(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_RUNLOG_RETENTION_DAYS", "30")
    assert Settings().runlog_retention_days == 30
    monkeypatch.delenv("ASKAI_RUNLOG_RETENTION_DAYS")
    assert Settings().runlog_retention_days == 90


def _everything_stored(database: str, folder: Path) -> bytes:
    """Every byte the server's databases hold: the SQLite files, or every PostgreSQL row as text."""
    if database.startswith("sqlite:///"):
        return b"".join(path.read_bytes() for path in folder.iterdir() if path.name.startswith("threads.sqlite"))
    import psycopg

    with psycopg.connect(database) as connection:
        tables = [row[0] for row in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        )]  # fmt: skip
        rows = [str(row[0]) for table in tables for row in connection.execute(f'SELECT t::text FROM "{table}" t')]
    return "\n".join(rows).encode()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_nothing_the_reader_pasted_reaches_any_store(settings: Settings, tmp_path: Path, backend: str) -> None:
    from tests.fakes import postgres_database
    from tests.test_runlog_store import POSTGRES

    pasted = ["jane@example.org", "4111 1111 1111 1111"]
    question = f"My e-mail is {pasted[0]} and my card {pasted[1]}: how does BM25 rank pages?"
    with contextlib.ExitStack() as stack:
        if backend == "sqlite":
            database = f"sqlite:///{tmp_path / 'threads.sqlite'}"
        else:
            database = stack.enter_context(postgres_database(POSTGRES))
        import uvicorn

        app = create_app(settings=settings.model_copy(update={"database_url": database}))
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none", lifespan="on")
        with LiveServer(app, config) as base, httpx.Client(timeout=30) as client:
            first = ask(client, base, question)
            second = ask(client, base, "And how does it rank titles?", thread=first)
            assert second["thread_id"] == first["thread_id"]
        stored = _everything_stored(database, tmp_path)
    assert b"BM25" in stored  # the stores were read
    for value in pasted:
        assert value.encode() not in stored and value.encode().hex() not in stored.decode(errors="replace"), value


def test_a_rate_limit_counts_a_keyed_hash_never_the_address() -> None:
    from limits.aio.storage import MemoryStorage

    from askai_graph.server.guards.limits import ClientRateLimit

    storage = MemoryStorage()
    limit = ClientRateLimit("1/minute", storage, readers=ReaderHash("k1"))
    assert asyncio.run(limit.admit("203.0.113.9")) is None
    assert asyncio.run(limit.admit("203.0.113.9")) is not None  # the same reader is counted
    kept = repr(vars(storage))
    assert "203.0.113.9" not in kept and ReaderHash("k1")("203.0.113.9") in kept
