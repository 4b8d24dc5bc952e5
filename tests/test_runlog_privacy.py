"""The run log keeps no reader's secrets, forgets on request and after its retention: SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from askai_graph.stores.runlog import RunLog, SqlRunLog, open_run_log
from askai_graph.stores.runlog import store as runlog_store
from askai_graph.text.masking import findings
from tests.fakes import postgres_database
from tests.test_masking import POSITIVE
from tests.test_runlog_store import POSTGRES, run

SECRETS = [text for _, text, _ in POSITIVE]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'runs.sqlite'}"
        return
    with postgres_database(POSTGRES) as url:
        yield url


@pytest.fixture
def store(database: str) -> Iterator[SqlRunLog]:
    log = open_run_log(database)
    yield log
    log.close()


def stored_rows(database: str) -> list[str]:
    """Every row of the table as the database holds it, one JSON text each."""
    if database.startswith("sqlite:///"):
        with sqlite3.connect(database.removeprefix("sqlite:///")) as connection:
            rows = connection.execute("SELECT * FROM askai_runs").fetchall()
        return [json.dumps(row) for row in rows]
    import psycopg

    with psycopg.connect(database) as connection:
        return [str(row[0]) for row in connection.execute("SELECT row_to_json(r)::text FROM askai_runs r")]


def test_nothing_a_reader_typed_is_stored_unmasked(store: RunLog, database: str) -> None:
    records = [run(text, standalone_question=f"Standalone: {text}", gaps=[f"gap {text}"]) for text in SECRETS]
    for record in records:
        store.record(record)
    for record, text in zip(records, SECRETS, strict=True):
        assert store.add_feedback(record.run_id, "down", f"comment {text}")
    rows = stored_rows(database)
    assert len(rows) == len(SECRETS)
    for text in SECRETS:
        pasted = findings(text)[0].text
        assert not any(pasted in row for row in rows), pasted
    by_id = {r.run_id: r for r in store.runs()}
    for record, (_, _, masked) in zip(records, POSITIVE, strict=True):
        kept = by_id[record.run_id]
        assert kept.question == masked
        assert kept.standalone_question == f"Standalone: {masked}"
        assert kept.gaps == [f"gap {masked}"] and kept.comment == f"comment {masked}"


def test_the_reader_is_stored_as_given_a_keyed_hash(store: RunLog) -> None:
    record = run(reader="3f" * 16)
    store.record(record)
    assert [r.reader for r in store.runs()] == ["3f" * 16]


def test_retention_removes_older_runs_and_their_feedback_in_bounded_batches(
    store: RunLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runlog_store, "DELETE_BATCH", 2)
    now = datetime.now(UTC)
    old = [run(f"old {i}", at=now - timedelta(days=91 + i)) for i in range(5)]
    kept = run("recent", at=now - timedelta(days=89))
    for record in [*old, kept]:
        store.record(record)
    assert store.add_feedback(old[0].run_id, "up", "fine")
    assert store.prune(now - timedelta(days=90)) == 5
    assert [r.run_id for r in store.runs()] == [kept.run_id]
    assert store.add_feedback(old[0].run_id, "up", None) is False  # its feedback went with it


def test_forget_thread_removes_every_run_of_that_conversation_only(store: RunLog) -> None:
    thread, other = str(uuid.uuid4()), str(uuid.uuid4())
    mine = [run("first", thread_id=thread), run("second", thread_id=thread)]
    theirs = run("theirs", thread_id=other)
    for record in [*mine, theirs]:
        store.record(record)
    assert store.forget_thread(thread) == 2
    assert [r.run_id for r in store.runs()] == [theirs.run_id]
    assert store.forget_thread(thread) == 0


def test_forget_run_removes_that_run_only(store: RunLog) -> None:
    first, second = run("first"), run("second")
    store.record(first)
    store.record(second)
    assert store.forget_run(first.run_id) == 1
    assert [r.run_id for r in store.runs()] == [second.run_id]


def test_a_run_log_table_from_before_gets_the_reader_column(database: str) -> None:
    legacy = runlog_store._SCHEMA.replace("    reader TEXT,\n", "")
    assert "reader" not in legacy
    _execute(database, legacy)
    log = open_run_log(database)
    try:
        log.record(run(reader="ab" * 16))
        assert [r.reader for r in log.runs()] == ["ab" * 16]
    finally:
        log.close()


def _execute(database: str, sql: str) -> Any:
    if database.startswith("sqlite:///"):
        path = Path(database.removeprefix("sqlite:///"))
        path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(path) as connection:
            connection.execute(sql)
        return
    import psycopg

    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute(sql)
