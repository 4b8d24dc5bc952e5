"""Per-day rollups of the run log: what the dashboard's overview reads instead of every run.

Three tables, changed in the same transaction as every change to ``askai_runs`` (an
answer written, a rating changed, runs deleted by retention or erasure), so they always
agree with the runs, on SQLite and PostgreSQL, with any number of server processes:

- ``askai_run_days``: per UTC day and outcome, the answers, cache hits, thumbs up and down;
- ``askai_run_latency``: per UTC day, the answers per latency bucket (``BOUNDS``, 5% wide);
- ``askai_run_readers``: per UTC day, each reader (a keyed hash) and its answers; the row
  goes when its reader has no answer left that day, so erasure leaves no hash behind;
- ``askai_readers``: each reader's last day with an answer (gone with its last answer).

``overview`` reads the period's whole days from them and the rest of its first day from
the runs. Distinct readers are those whose last day falls in the period (an index
range), plus those seen only in the first day's rest. Each percentile is
exact: the buckets say which bucket holds the rank and where in it, and one read of the
runs in that bucket (the ``askai_runs_latency`` index) returns the value.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from askai_graph.stores.runlog.overview import Day, Overview

TABLES = (
    "CREATE TABLE IF NOT EXISTS askai_run_days (day TEXT NOT NULL, outcome TEXT NOT NULL, runs INTEGER NOT NULL,"
    " cached INTEGER NOT NULL, up INTEGER NOT NULL, down INTEGER NOT NULL, PRIMARY KEY (day, outcome))",
    "CREATE TABLE IF NOT EXISTS askai_run_latency (day TEXT NOT NULL, bucket INTEGER NOT NULL,"
    " runs INTEGER NOT NULL, PRIMARY KEY (day, bucket))",
    "CREATE TABLE IF NOT EXISTS askai_run_readers (day TEXT NOT NULL, reader TEXT NOT NULL,"
    " runs INTEGER NOT NULL, PRIMARY KEY (day, reader))",
    "CREATE INDEX IF NOT EXISTS askai_run_readers_reader ON askai_run_readers (reader, day)",
    "CREATE TABLE IF NOT EXISTS askai_readers (reader TEXT PRIMARY KEY, last_day TEXT)",
    "CREATE INDEX IF NOT EXISTS askai_readers_last_day ON askai_readers (last_day)",
)
NEWEST = "askai_readers"
"""The table added last: a run log without it has its rollups counted anew when opened."""
ROW = "created_at, outcome, cached, rating, reader, latency_ms"
"""The columns of a run that its rollups count (what ``Rollups.add`` takes, in order)."""
BOUNDS = tuple(1.05**i for i in range(400))
"""Latency bucket bounds in ms: bucket ``b`` holds ``[BOUNDS[b-1], BOUNDS[b])`` (1 ms to about 3.5 days)."""
_LOWEST, _HIGHEST = -1e308, 1e308


def bucket(latency_ms: float) -> int:
    """Return the latency bucket of ``latency_ms``."""
    return bisect_right(BOUNDS, latency_ms)


@dataclass
class Rollups:
    """Changes to the rollups, summed before they are written (one statement per table)."""

    days: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """(day, outcome) -> [answers, cache hits, thumbs up, thumbs down]."""
    latency: Counter[tuple[str, int]] = field(default_factory=Counter)
    readers: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(
        self, created_at: str, outcome: str, cached: Any, rating: str | None, reader: str | None, latency_ms: float,
        *,
        sign: int = 1,
    ) -> None:  # fmt: skip
        """Count one run (``sign=-1``: uncount a deleted one); arguments in ``ROW`` order."""
        day = created_at[:10]
        counts = self.days.setdefault((day, outcome), [0, 0, 0, 0])
        counts[0] += sign
        counts[1] += sign * bool(cached)
        self.rate(created_at, outcome, None, rating, sign)
        self.latency[day, bucket(latency_ms)] += sign
        if reader is not None:
            self.readers[day, reader] += sign

    def rate(self, created_at: str, outcome: str, old: str | None, new: str | None, sign: int = 1) -> None:
        """Count a run's rating changing from ``old`` to ``new``."""
        counts = self.days.setdefault((created_at[:10], outcome), [0, 0, 0, 0])
        counts[2] += sign * ((new == "up") - (old == "up"))
        counts[3] += sign * ((new == "down") - (old == "down"))

    def write(self, cursor: Any, p: str) -> None:
        """Apply the changes through ``cursor`` (inside the transaction that changed the runs), keys in order."""
        days = [(*key, *counts) for key, counts in sorted(self.days.items()) if any(counts)]
        if days:
            cursor.executemany(
                "INSERT INTO askai_run_days (day, outcome, runs, cached, up, down)"
                f" VALUES ({p}, {p}, {p}, {p}, {p}, {p})"
                " ON CONFLICT (day, outcome) DO UPDATE SET runs = askai_run_days.runs + excluded.runs,"
                " cached = askai_run_days.cached + excluded.cached, up = askai_run_days.up + excluded.up,"
                " down = askai_run_days.down + excluded.down",
                days,
            )
        for table, column, changes in (("askai_run_latency", "bucket", self.latency),
                                       ("askai_run_readers", "reader", self.readers)):  # fmt: skip
            rows = [(*key, n) for key, n in sorted(changes.items()) if n]
            if rows:
                cursor.executemany(
                    f"INSERT INTO {table} (day, {column}, runs) VALUES ({p}, {p}, {p})"
                    f" ON CONFLICT (day, {column}) DO UPDATE SET runs = {table}.runs + excluded.runs",
                    rows,
                )
        # Rows whose runs are all gone go too (a reader's hash included).
        gone = [key for key, counts in sorted(self.days.items()) if counts[0] < 0]
        if gone:
            cursor.executemany(f"DELETE FROM askai_run_days WHERE day = {p} AND outcome = {p} AND runs <= 0", gone)
        for table, column, changes in (("askai_run_latency", "bucket", self.latency),
                                       ("askai_run_readers", "reader", self.readers)):  # fmt: skip
            emptied = [key for key, n in sorted(changes.items()) if n < 0]
            if emptied:
                cursor.executemany(f"DELETE FROM {table} WHERE day = {p} AND {column} = {p} AND runs <= 0", emptied)
        self._write_last_days(cursor, p)

    def _write_last_days(self, cursor: Any, p: str) -> None:
        seen: dict[str, str] = {}
        for (day, reader), n in self.readers.items():
            if n > 0:
                seen[reader] = max(seen.get(reader, day), day)
        if seen:
            cursor.executemany(
                f"INSERT INTO askai_readers (reader, last_day) VALUES ({p}, {p}) ON CONFLICT (reader) DO UPDATE"
                " SET last_day = CASE WHEN excluded.last_day > askai_readers.last_day"
                " THEN excluded.last_day ELSE askai_readers.last_day END",
                sorted(seen.items()),
            )
        # A reader that lost answers: its last day is what its day rows still say (none: it goes).
        lost = sorted({reader for (_, reader), n in self.readers.items() if n < 0})
        if lost:
            cursor.executemany(
                f"UPDATE askai_readers SET last_day = (SELECT MAX(day) FROM askai_run_readers WHERE reader = {p})"
                f" WHERE reader = {p}",
                [(reader, reader) for reader in lost],
            )
            cursor.executemany(
                f"DELETE FROM askai_readers WHERE reader = {p} AND last_day IS NULL", [(reader,) for reader in lost]
            )


def rebuild(cursor: Any, p: str) -> None:
    """Recount every rollup from the runs (a run log created before rollups, or filled in bulk)."""
    for table in ("askai_run_days", "askai_run_latency", "askai_run_readers", "askai_readers"):
        cursor.execute(f"DELETE FROM {table}")
    cursor.execute(f"SELECT {ROW} FROM askai_runs")
    counted(cursor.fetchall()).write(cursor, p)


def overview(cursor: Any, p: str, since: datetime) -> Overview:
    """Return the overview of the runs recorded at or after ``since`` (read inside one transaction)."""
    since = since.astimezone(UTC)
    start, whole = since.isoformat(), (since.date() + timedelta(days=1)).isoformat()
    per_day: Counter[tuple[str, str]] = Counter()
    histogram: Counter[int] = Counter()
    result = Overview(since=since)
    # The rest of the first day, from the runs.
    cursor.execute(f"SELECT {ROW} FROM askai_runs WHERE created_at >= {p} AND created_at < {p}", (start, whole))
    for created_at, outcome, cached, rating, _, latency in cursor.fetchall():
        per_day[created_at[:10], outcome] += 1
        result.cached += bool(cached)
        result.thumbs_up += rating == "up"
        result.thumbs_down += rating == "down"
        histogram[bucket(latency)] += 1
    # Whole days, from the rollups.
    cursor.execute(f"SELECT day, outcome, runs, cached, up, down FROM askai_run_days WHERE day >= {p}", (whole,))
    for day, outcome, runs, cached, up, down in cursor.fetchall():
        per_day[day, outcome] += runs
        result.cached += cached
        result.thumbs_up += up
        result.thumbs_down += down
    cursor.execute(f"SELECT bucket, SUM(runs) FROM askai_run_latency WHERE day >= {p} GROUP BY bucket", (whole,))
    histogram.update({int(b): int(n) for b, n in cursor.fetchall()})
    cursor.execute(f"SELECT COUNT(*) FROM askai_readers WHERE last_day >= {p}", (whole,))
    result.readers = int(cursor.fetchone()[0])
    cursor.execute(
        "SELECT COUNT(DISTINCT r.reader) FROM askai_runs AS r JOIN askai_readers AS l ON l.reader = r.reader"
        f" WHERE r.created_at >= {p} AND r.created_at < {p} AND l.last_day < {p}",
        (start, whole, whole),
    )
    result.readers += int(cursor.fetchone()[0])
    days: dict[str, Day] = {}
    for (day, outcome), count in sorted(per_day.items()):
        days.setdefault(day, Day(day=day)).outcomes[outcome] = count
        result.outcomes[outcome] = result.outcomes.get(outcome, 0) + count
    result.days = list(days.values())
    total = sum(histogram.values())
    if total:
        result.p50_ms = _at_rank(cursor, p, start, histogram, (total - 1) // 2)
        result.p95_ms = _at_rank(cursor, p, start, histogram, min(total - 1, int(0.95 * total)))
    return result


def _at_rank(cursor: Any, p: str, start: str, histogram: Counter[int], rank: int) -> float:
    """Return the latency at 0-based ``rank`` among the period's, sorted: its bucket, then one indexed read."""
    below, found = 0, 0
    for found, count in sorted(histogram.items()):  # noqa: B007 (the bucket the loop stops at)
        if rank < below + count:
            break
        below += count
    low = BOUNDS[found - 1] if found > 0 else _LOWEST
    high = BOUNDS[found] if found < len(BOUNDS) else _HIGHEST
    cursor.execute(
        f"SELECT latency_ms FROM askai_runs WHERE latency_ms >= {p} AND latency_ms < {p} AND created_at >= {p}"
        f" ORDER BY latency_ms LIMIT 1 OFFSET {int(rank - below)}",
        (low, high, start),
    )
    return float(cursor.fetchone()[0])


def counted(rows: Iterable[tuple[Any, ...]], sign: int = 1) -> Rollups:
    """Return the rollups of ``rows`` (each the ``ROW`` columns of a run)."""
    changes = Rollups()
    for row in rows:
        changes.add(*row, sign=sign)
    return changes
