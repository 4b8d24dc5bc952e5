"""The overview's per-day rollups agree with the runs through every change: SQLite and PostgreSQL."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from askai_graph.stores.runlog import RunRecord, SqlRunLog, open_run_log
from askai_graph.stores.runlog.overview import Day, Overview
from askai_graph.stores.runlog.rollups import BOUNDS, bucket
from tests.test_runlog_privacy import _execute, database, store  # noqa: F401 (fixtures)
from tests.test_runlog_store import run

NOW = datetime.now(UTC)
OUTCOMES = ["accepted", "accepted", "accepted_early", "degraded", "fallback"]


def scanned(runs: list[RunRecord], since: datetime) -> Overview:
    """The overview computed from every run of the period, in Python: what the rollups must equal."""
    inside = [r for r in runs if r.created_at >= since]
    found = Overview(since=since)
    days: dict[str, Day] = {}
    for r in sorted(inside, key=lambda r: (r.created_at.date(), r.outcome)):
        day = days.setdefault(r.created_at.date().isoformat(), Day(day=r.created_at.date().isoformat()))
        day.outcomes[r.outcome] = day.outcomes.get(r.outcome, 0) + 1
        found.outcomes[r.outcome] = found.outcomes.get(r.outcome, 0) + 1
    found.days = list(days.values())
    found.cached = sum(r.cached for r in inside)
    found.thumbs_up = sum(r.rating == "up" for r in inside)
    found.thumbs_down = sum(r.rating == "down" for r in inside)
    found.readers = len({r.reader for r in inside if r.reader is not None})
    latencies = sorted(r.latency_ms for r in inside)
    if latencies:
        found.p50_ms = latencies[(len(latencies) - 1) // 2]
        found.p95_ms = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    return found


def seeded(count: int, rng: random.Random, threads: list[str]) -> list[RunRecord]:
    return [
        run(
            f"question {i}",
            at=NOW - timedelta(days=rng.uniform(0, 12)),
            outcome=rng.choice(OUTCOMES),
            cached=rng.random() < 0.3,
            reader=rng.choice([None, "r1", "r2", "r3", "r4"]),
            latency_ms=round(rng.choice([rng.uniform(0, 3), rng.lognormvariate(6, 1), 250.0]), 3),
            rating=rng.choice([None, None, "up", "down"]),
            thread_id=rng.choice(threads),
        )
        for i in range(count)
    ]


def test_the_overview_equals_a_scan_of_the_runs_after_writes_feedback_erasure_and_retention(
    store: SqlRunLog,  # noqa: F811
) -> None:
    rng = random.Random(41)
    threads = [str(uuid.uuid4()) for _ in range(4)]
    for record in seeded(120, rng, threads):
        store.record(record)

    def agree(step: str) -> None:
        runs = store.runs()
        for since in (NOW - timedelta(hours=5), NOW - timedelta(days=1), NOW - timedelta(days=7, hours=3),
                      NOW - timedelta(days=30)):  # fmt: skip
            assert store.overview(since) == scanned(runs, since), (step, since)

    agree("written")
    runs = store.runs()
    for record in rng.sample(runs, 30):
        assert store.add_feedback(record.run_id, rng.choice(["up", "down"]), None)
    agree("rated")
    store.forget_run(runs[0].run_id)
    store.forget_thread(threads[0])
    agree("forgotten")
    store.prune(NOW - timedelta(days=6, hours=5))
    agree("pruned")
    store.record(runs[0].model_copy(update={"run_id": str(uuid.uuid4())}))  # a late write into a past day
    agree("written late")


def test_erasing_a_readers_runs_leaves_no_hash_in_the_rollups(store: SqlRunLog) -> None:  # noqa: F811
    thread = str(uuid.uuid4())
    for record in (run("mine", thread_id=thread, reader="ab" * 16), run("theirs", reader="cd" * 16)):
        store.record(record)
    assert store.forget_thread(thread) == 1
    with store._cursor() as cursor:
        cursor.execute("SELECT reader FROM askai_run_readers UNION ALL SELECT reader FROM askai_readers")
        assert [row[0] for row in cursor.fetchall()] == ["cd" * 16] * 2
    assert store.prune(datetime.now(UTC) + timedelta(seconds=1)) == 1
    with store._cursor() as cursor:
        cursor.execute("SELECT (SELECT COUNT(*) FROM askai_run_readers) + (SELECT COUNT(*) FROM askai_readers)")
        assert cursor.fetchone()[0] == 0


def test_a_run_log_from_before_the_rollups_gets_them_counted_once_when_opened(database: str) -> None:  # noqa: F811
    records = seeded(40, random.Random(7), [str(uuid.uuid4())])
    log = open_run_log(database)
    try:
        for record in records:
            log.record(record)
        log.flush()
    finally:
        log.close()
    for table in ("askai_run_days", "askai_run_latency", "askai_run_readers", "askai_readers"):
        _execute(database, f"DROP TABLE {table}")
    for _ in range(2):  # the second opening must not count them again
        log = open_run_log(database)
        try:
            since = NOW - timedelta(days=30)
            assert log.overview(since) == scanned(log.runs(), since)
        finally:
            log.close()


@pytest.mark.parametrize("latency", [0.0, 0.999, 1.0, 1.05, 250.0, 1e12])
def test_a_latency_falls_in_the_bucket_whose_bounds_hold_it(latency: float) -> None:
    found = bucket(latency)
    assert found == 0 or BOUNDS[found - 1] <= latency
    assert found == len(BOUNDS) or latency < BOUNDS[found]


def test_an_insert_that_repeats_a_run_id_counts_nothing(store: SqlRunLog) -> None:  # noqa: F811
    record = run(reader="ef" * 16)
    store.record(record)
    store.record(record.model_copy(update={"outcome": "accepted"}))
    assert store.overview(NOW - timedelta(days=1)).outcomes == {"degraded": 1}
