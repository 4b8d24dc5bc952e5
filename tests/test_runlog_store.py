"""The run log store: records, feedback and time filters, in SQLite and in PostgreSQL."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from askai_graph.stores.runlog import RunLog, RunLogError, RunLogUnavailable, RunRecord, SqlRunLog, open_run_log
from askai_graph.stores.runlog.store import create_schema
from tests.fakes import postgres_database

POSTGRES = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


def run(question: str = "How does BM25 work?", *, at: datetime | None = None, **fields: object) -> RunRecord:
    data: dict[str, object] = {
        "run_id": str(uuid.uuid4()),
        "created_at": at or datetime.now(UTC),
        "question": question,
        "outcome": "degraded",
        "attempts": 3,
        "gates": {"retrieval": "passed", "validation": "passed", "critic": "failed"},
        "failure_codes": ["low_confidence"],
        "gaps": ["tuning"],
        "cited_urls": ["https://site.example/a"],
        "retrieved_urls": ["https://site.example/a", "https://site.example/b"],
        "latency_ms": 12.5,
        "stage_ms": {"research": 2.0},
    }
    return RunRecord.model_validate(data | fields)


STORES = ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
"""The run log's two stores, as fixture params: PostgreSQL is an integration test."""


@contextmanager
def run_log_on(kind: str, folder: Path) -> Iterator[RunLog]:
    """Open a run log on ``kind`` (``sqlite`` in ``folder``, or a PostgreSQL database of its own); close it after."""
    with contextlib.ExitStack() as stack:
        sqlite = f"sqlite:///{folder / 'runs.sqlite'}"
        url = sqlite if kind == "sqlite" else stack.enter_context(postgres_database(POSTGRES))
        log = open_run_log(url)
        try:
            yield log
        finally:
            log.close()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunLog]:
    with run_log_on(request.param, tmp_path) as log:
        yield log


def test_a_record_round_trips(store: RunLog) -> None:
    record = run()
    store.record(record)
    assert store.runs() == [record]


def test_feedback_attaches_to_a_known_run_and_the_latest_wins(store: RunLog) -> None:
    record = run()
    store.record(record)
    assert store.add_feedback(record.run_id, "up", None)
    assert store.add_feedback(record.run_id, "down", "missed the tuning part")
    (stored,) = store.runs()
    assert (stored.rating, stored.comment) == ("down", "missed the tuning part")


def test_feedback_on_an_unknown_run_is_refused(store: RunLog) -> None:
    assert store.add_feedback(str(uuid.uuid4()), "up", None) is False


def test_runs_since_keeps_only_recent_answers_oldest_first(store: RunLog) -> None:
    now = datetime.now(UTC)
    old, recent, newest = (
        run("old", at=now - timedelta(days=10)),
        run("recent", at=now - timedelta(days=2)),
        run("new", at=now),
    )
    for record in (newest, old, recent):
        store.record(record)
    assert [r.question for r in store.runs(since=now - timedelta(days=7))] == ["recent", "new"]


def test_an_unknown_database_url_is_a_clear_error() -> None:
    with pytest.raises(RunLogError, match="must be sqlite:///path or postgresql://"):
        open_run_log("mysql://localhost/x")


def outcome_within(seconds: float, call: Callable[[], object]) -> object:
    """Run ``call`` in a thread; return what it returned or raised, or fail if it still runs after ``seconds``."""
    result: list[object] = []

    def target() -> None:
        try:
            result.append(call())
        except Exception as exc:  # the outcome under test
            result.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still waiting after {seconds:g}s"
    return result[0]


@pytest.mark.integration
@pytest.mark.enable_socket
def test_a_peer_gone_silent_makes_the_run_log_unavailable_instead_of_hanging_it() -> None:
    from tests.tcp_proxy import TcpProxy

    with postgres_database(POSTGRES) as database, TcpProxy("127.0.0.1", 5432) as proxy:
        log = open_run_log(database.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}"))
        try:
            written = run()
            log.record(written)
            log.flush()
            proxy.stall()  # the pooled connection now gets no answer, and no reset either
            # The pool checks the connection before lending it: that check is abandoned too.
            # Unbounded, this waits for as long as the peer stays silent (here: forever).
            # The bound is generous: the check's, then a statement's, on a loaded machine.
            failed = outcome_within(30, lambda: log.add_feedback(written.run_id, "up", None))
            assert isinstance(failed, RunLogUnavailable), failed
            proxy.resume()
            assert outcome_within(30, lambda: log.add_feedback(written.run_id, "up", None)) is True
        finally:
            log.close()


def test_a_reader_call_waits_for_a_stuck_write_at_most_the_bound(tmp_path: Path) -> None:
    # A writer holding the database (its statement waits on a peer) must not hold every
    # call that flushes first: each is refused once the bound has passed.
    shared = sqlite3.connect(tmp_path / "runs.sqlite", check_same_thread=False, isolation_level=None)
    create_schema(shared)
    release, entered = threading.Event(), threading.Event()

    @contextmanager
    def connections() -> Iterator[sqlite3.Connection]:
        if threading.current_thread().name == "askai-run-log":
            entered.set()
            release.wait(60)  # the writer's statement, stuck
        yield shared

    log = SqlRunLog(connections, "?", unavailable=(sqlite3.OperationalError,), close=shared.close)
    queued = run()
    log.record(queued)
    try:
        assert entered.wait(30)
        refused = outcome_within(30, lambda: log.add_feedback(queued.run_id, "up", None))
        assert isinstance(refused, RunLogUnavailable), refused
        assert "writer" in str(refused)
    finally:
        release.set()
    assert outcome_within(30, lambda: log.add_feedback(queued.run_id, "up", None)) is True
    log.close()


def test_closing_a_sqlite_run_log_waits_for_a_call_still_using_its_connection(tmp_path: Path) -> None:
    # SQLite crashes the process when its connection is closed under a running statement.
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    assert isinstance(log, SqlRunLog)
    reading, release = threading.Event(), threading.Event()

    def slow_read() -> None:
        with log._connections():  # what a statement holds while it runs
            reading.set()
            release.wait(30)

    reader = threading.Thread(target=slow_read, daemon=True)
    reader.start()
    assert reading.wait(30)
    closer = threading.Thread(target=log.close, daemon=True)
    closer.start()
    closer.join(0.5)
    assert closer.is_alive()  # waits for the read
    release.set()
    closer.join(30)
    assert not closer.is_alive()


def test_a_record_the_database_refuses_is_dropped_and_the_writer_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from askai_graph.stores.runlog import store as runlog_store

    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    assert isinstance(log, SqlRunLog)
    refused, kept = run("refused"), run("kept")
    insert = log._insert

    def refuse_one(records: list[RunRecord]) -> None:
        if refused.run_id in {record.run_id for record in records}:
            raise ValueError("not storable")  # any error other than the database being away
        insert(records)

    monkeypatch.setattr(log, "_insert", refuse_one)
    with caplog.at_level("ERROR", logger=runlog_store.__name__):
        log.record(refused)
        log.record(kept)
        log.flush()
    assert [r.question for r in log.runs()] == ["kept"]
    assert "refused is dropped" in caplog.text
    log.close()


def test_answers_queued_together_are_written_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    assert isinstance(log, SqlRunLog)
    opened = log._transaction
    commits = 0

    def counted(*, write: bool = True) -> Any:
        nonlocal commits
        commits += write
        return opened(write=write)

    monkeypatch.setattr(log, "_transaction", counted)
    with log._writing:  # the writer thread is busy: what is recorded meanwhile queues
        for n in range(3):
            log.record(run(f"queued {n}"))
    log.flush()
    assert commits == 1
    assert sorted(r.question for r in log.runs()) == ["queued 0", "queued 1", "queued 2"]
    assert log.overview(datetime(2000, 1, 1, tzinfo=UTC)).total == 3  # the rollups count each
    log.close()
