"""The run log store: records, feedback and time filters, in SQLite and in PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from askai_graph.stores.runlog import RunLog, RunLogError, RunRecord, open_run_log
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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunLog]:
    if request.param == "sqlite":
        log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
        yield log
        log.close()
        return
    with postgres_database(POSTGRES) as url:
        log = open_run_log(url)
        yield log
        log.close()


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
