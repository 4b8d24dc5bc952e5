"""The dashboard's overview over a large run log: response time on SQLite and PostgreSQL.

Run: ``.venv/bin/python bench/admin_overview.py [--runs 100000] [--calls 15] [--postgres URL]``

Fills a run log with ``--runs`` runs spread over 90 days (mixed outcomes, ratings, cache
hits, readers and latencies; written in bulk and its rollups counted, not timed), then
times ``GET /admin/api/overview?days=N`` for 7, 30 and 90 days through the app
(``httpx.ASGITransport``, signed in), ``--calls`` times each, interleaved. Prints the
median and the worst per period and backend. The target is 300 ms.

The baseline, measured in the same run on the same database: the overview computed by
scanning the period's runs (what the dashboard did before the per-day rollups), called
directly on the store; and the rollups' overview called the same way. Both must agree.
And what the rollups cost each answer's write: ``_insert`` (the row and its rollups, one
transaction) against the row's ``INSERT`` alone (the write before rollups), interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runlog_overhead import postgres_database  # noqa: E402

from askai_graph import Settings  # noqa: E402
from askai_graph.stores.runlog import open_run_log, rollups  # noqa: E402
from askai_graph.stores.runlog.overview import Day, Overview  # noqa: E402
from askai_graph.stores.runlog.store import _COLUMNS, _JSON_FIELDS  # noqa: E402

TOKEN = "bench-admin-token-0123456789"
OUTCOMES = ["accepted"] * 6 + ["accepted_early", "degraded", "fallback", "fallback"]


def rows(count: int, seed: int = 7) -> list[list[Any]]:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    made = []
    for _ in range(count):
        data: dict[str, Any] = {
            "run_id": str(uuid.uuid4()),
            "created_at": (now - timedelta(seconds=rng.uniform(0, 90 * 86400))).isoformat(),
            "question": f"How do I configure option {rng.randint(1, 500)}?",
            "standalone_question": "",
            "thread_id": None,
            "reader": f"{rng.randint(1, 5000):032x}",
            "outcome": rng.choice(OUTCOMES),
            "attempts": rng.randint(0, 3),
            "cached": int(rng.random() < 0.2),
            "gates": {"retrieval": "passed"},
            "failure_codes": [],
            "gaps": [],
            "cited_urls": ["https://site.example/a"],
            "retrieved_urls": ["https://site.example/a", "https://site.example/b"],
            "source_urls": [],
            "stage_ms": {"research": 2.0},
            "latency_ms": rng.lognormvariate(6.5, 0.6),
            "rating": rng.choice([None] * 8 + ["up", "down"]),
            "comment": None,
            "search_id": None,  # asked in the chat, not from the search box's launcher
        }
        made.append([json.dumps(data[c]) if c in _JSON_FIELDS else data[c] for c in _COLUMNS])
    return made


def fill(log: Any, made: list[list[Any]]) -> None:
    placeholders = ", ".join([log._p] * len(_COLUMNS))
    sql = f"INSERT INTO askai_runs ({', '.join(_COLUMNS)}) VALUES ({placeholders})"
    sqlite = log._p == "?"  # autocommit: one transaction per batch, not per row
    for start in range(0, len(made), 5000):
        with log._cursor() as cursor:
            if sqlite:
                cursor.execute("BEGIN")
            cursor.executemany(sql, made[start : start + 5000])
            if sqlite:
                cursor.execute("COMMIT")


def count_rollups(url: str) -> None:
    """Count the rollups of the bulk-written runs, on a connection of its own (no per-call time bound)."""
    if url.startswith("sqlite:///"):
        import sqlite3

        connection: Any = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        p = "?"
    else:
        import psycopg

        connection, p = psycopg.connect(url, autocommit=True), "%s"
    try:
        cursor = connection.cursor()
        cursor.execute("BEGIN")
        rollups.rebuild(cursor, p)
        cursor.execute("COMMIT")
    finally:
        connection.close()


def scan_overview(cursor: Any, p: str, since: datetime) -> Overview:
    """The overview from one scan of the period's runs (the dashboard before rollups): the baseline."""
    cursor.execute(
        f"SELECT substr(created_at, 1, 10), outcome, cached, rating, reader, latency_ms FROM askai_runs"
        f" WHERE created_at >= {p}",
        (since.astimezone(UTC).isoformat(),),
    )
    per_day: dict[tuple[str, str], int] = {}
    readers: set[str] = set()
    latencies: list[float] = []
    found = Overview(since=since)
    for day, outcome, hit, rating, reader, latency in cursor.fetchall():
        per_day[day, outcome] = per_day.get((day, outcome), 0) + 1
        found.cached += bool(hit)
        found.thumbs_up += rating == "up"
        found.thumbs_down += rating == "down"
        if reader is not None:
            readers.add(reader)
        latencies.append(latency)
    days: dict[str, Day] = {}
    for (day, outcome), count in sorted(per_day.items()):
        days.setdefault(day, Day(day=day)).outcomes[outcome] = count
        found.outcomes[outcome] = found.outcomes.get(outcome, 0) + count
    found.days, found.readers = list(days.values()), len(readers)
    if latencies:
        latencies.sort()
        found.p50_ms = float(latencies[(len(latencies) - 1) // 2])
        found.p95_ms = float(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))])
    return found


def time_writes(log: Any, count: int) -> dict[str, list[float]]:
    """Time one answer's write with its rollups against the bare row insert (the baseline), interleaved."""
    from askai_graph.stores.runlog import RunRecord

    placeholders = ", ".join([log._p] * len(_COLUMNS))
    sql = f"INSERT INTO askai_runs ({', '.join(_COLUMNS)}) VALUES ({placeholders}) ON CONFLICT (run_id) DO NOTHING"
    times: dict[str, list[float]] = {"row only": [], "row and rollups": []}
    for made in rows(2 * count, seed=11)[::2]:
        data = dict(zip(_COLUMNS, made, strict=True))
        start = time.perf_counter()
        with log._cursor() as cursor:
            cursor.execute(sql, made)
        times["row only"].append(time.perf_counter() - start)
        record = RunRecord.model_validate(
            {c: json.loads(v) if c in _JSON_FIELDS else v for c, v in data.items()}
            | {"run_id": str(uuid.uuid4()), "created_at": datetime.now(UTC), "cached": bool(data["cached"])}
        )
        start = time.perf_counter()
        log._insert(record)
        times["row and rollups"].append(time.perf_counter() - start)
    return times


def time_direct(log: Any, calls: int) -> dict[tuple[str, int], list[float]]:
    """Time the scan (baseline) and the rollups on the store itself, interleaved; check they agree."""
    times: dict[tuple[str, int], list[float]] = {(way, days): [] for days in (7, 30, 90) for way in ("scan", "rollups")}
    for _ in range(calls):
        for days in (7, 30, 90):
            since = datetime.now(UTC) - timedelta(days=days)
            start = time.perf_counter()
            with log._cursor() as cursor:
                scanned = scan_overview(cursor, log._p, since)
            times["scan", days].append(time.perf_counter() - start)
            start = time.perf_counter()
            rolled = log.overview(since)
            times["rollups", days].append(time.perf_counter() - start)
            assert rolled == scanned, (days, rolled, scanned)
    return times


async def time_overview(log: Any, calls: int) -> dict[int, list[float]]:
    import httpx
    from pydantic import SecretStr

    from askai_graph.server import create_app
    from tests.fakes import ungated_graph

    settings = Settings(admin_token=SecretStr(TOKEN), rate_limit="")
    app = create_app(ungated_graph("x"), settings, run_log=log)
    transport = httpx.ASGITransport(app=app)
    times: dict[int, list[float]] = {7: [], 30: [], 90: []}
    views: dict[tuple[str, int], list[float]] = {(view, days): [] for view in ("gaps", "pages") for days in times}
    async with httpx.AsyncClient(transport=transport, base_url="https://bench") as client:
        signed = await client.post("/admin/login", data={"token": TOKEN})
        assert signed.status_code == 303, signed.text
        await client.get("/admin/api/overview?days=7")  # warm-up
        for _ in range(calls):
            for days in times:
                start = time.perf_counter()
                response = await client.get(f"/admin/api/overview?days={days}")
                times[days].append(time.perf_counter() - start)
                assert response.status_code == 200, response.text
        for _ in range(max(1, calls // 2)):
            for view, days in views:
                start = time.perf_counter()
                response = await client.get(f"/admin/{view}?days={days}")
                views[view, days].append(time.perf_counter() - start)
                assert response.status_code == 200, response.text
    for (view, days), values in views.items():
        print(
            f"  GET /admin/{view}?days={days:<3}  median {statistics.median(values) * 1000:7.1f} ms"
            f"   worst {max(values) * 1000:7.1f} ms   ({len(values)} calls; no target)"
        )
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    made = rows(args.runs)
    folder = tempfile.TemporaryDirectory()
    backends: dict[str, str] = {"sqlite": f"sqlite:///{Path(folder.name) / 'runs.sqlite'}"}
    postgres = postgres_database(args.postgres)
    if postgres is not None:
        backends["postgresql"] = postgres[0]
    try:
        for name, url in backends.items():
            log = open_run_log(url)
            try:
                start = time.perf_counter()
                fill(log, made)
                count_rollups(url)
                print(f"{name}: {args.runs:,} runs written in {time.perf_counter() - start:.1f} s (not timed below)")
                for days, values in asyncio.run(time_overview(log, args.calls)).items():
                    print(
                        f"  GET /admin/api/overview?days={days:<3} median {statistics.median(values) * 1000:7.1f} ms"
                        f"   worst {max(values) * 1000:7.1f} ms   ({len(values)} calls)"
                    )
                direct = time_direct(log, args.calls)
                for days in (7, 30, 90):
                    scan, rolled = (statistics.median(direct[way, days]) * 1000 for way in ("scan", "rollups"))
                    print(
                        f"  store, {days:>2} days: scan (baseline) median {scan:7.1f} ms, rollups {rolled:7.1f} ms"
                        f"   ratio {rolled / scan:.2f}x   (results equal)"
                    )
                # Last: the bare rows it writes have no rollups, which the comparison above would see.
                writes = time_writes(log, 200)
                bare, rolled = (statistics.median(writes[way]) * 1000 for way in ("row only", "row and rollups"))
                print(f"  one answer's write: row only (baseline) {bare:.2f} ms, row and rollups {rolled:.2f} ms"
                      f"   ratio {rolled / bare:.2f}x   (medians of 200)")  # fmt: skip
            finally:
                log.close()
    finally:
        if postgres is not None:
            postgres[1]()
        folder.cleanup()


if __name__ == "__main__":
    main()
