"""The dashboard's overview of a period, computed in the database (one pass per figure, no record loaded).

Questions per day by outcome, thumbs, cache hits, distinct readers, and the p50/p95
time from the request to the ``done`` event. The run log streams answer tokens only
once the answer is final, so that time is also when the reader sees the first token.
Plain SQL that SQLite and PostgreSQL read alike (``created_at`` is ISO-8601 UTC text,
so its first ten characters are the UTC day).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

OUTCOMES = ("accepted", "accepted_early", "degraded", "fallback")


class Day(BaseModel):
    """One UTC day's questions."""

    day: str
    """``YYYY-MM-DD``."""
    outcomes: dict[str, int] = Field(default_factory=dict)
    """Questions per outcome."""

    @property
    def total(self) -> int:
        """Questions that day."""
        return sum(self.outcomes.values())


class Overview(BaseModel):
    """What the dashboard's overview shows for one period."""

    since: datetime
    """Start of the period (UTC)."""
    days: list[Day] = Field(default_factory=list)
    """Days with questions, oldest first."""
    outcomes: dict[str, int] = Field(default_factory=dict)
    """Questions per outcome over the period."""
    thumbs_up: int = 0
    """Answers rated up."""
    thumbs_down: int = 0
    """Answers rated down."""
    cached: int = 0
    """Answers served from the answer cache."""
    readers: int = 0
    """Distinct readers (keyed hashes of client addresses)."""
    p50_ms: float | None = None
    """Median time to answer (request to ``done``), ``None`` without answers."""
    p95_ms: float | None = None
    """95th percentile of that time."""

    @property
    def total(self) -> int:
        """Questions over the period."""
        return sum(self.outcomes.values())

    @property
    def cache_hit_rate(self) -> float:
        """Share of answers served from the cache (0 without answers)."""
        return self.cached / self.total if self.total else 0.0


def compute_overview(cursor: Any, placeholder: str, since: datetime) -> Overview:
    """Return the overview of the runs recorded at or after ``since``, read through DB-API ``cursor``."""
    p = placeholder
    start = since.astimezone(UTC).isoformat()
    cursor.execute(
        "SELECT substr(created_at, 1, 10), outcome, COUNT(*), SUM(cached),"
        " SUM(CASE WHEN rating = 'up' THEN 1 ELSE 0 END), SUM(CASE WHEN rating = 'down' THEN 1 ELSE 0 END)"
        f" FROM askai_runs WHERE created_at >= {p} GROUP BY substr(created_at, 1, 10), outcome",
        (start,),
    )
    days: dict[str, Day] = {}
    overview = Overview(since=since)
    for day, outcome, count, cached, up, down in cursor.fetchall():
        days.setdefault(day, Day(day=day)).outcomes[outcome] = int(count)
        overview.outcomes[outcome] = overview.outcomes.get(outcome, 0) + int(count)
        overview.cached += int(cached or 0)
        overview.thumbs_up += int(up or 0)
        overview.thumbs_down += int(down or 0)
    overview.days = [days[day] for day in sorted(days)]
    cursor.execute(f"SELECT COUNT(DISTINCT reader) FROM askai_runs WHERE created_at >= {p}", (start,))
    overview.readers = int(cursor.fetchone()[0] or 0)
    total = overview.total
    if total:
        overview.p50_ms = _nth_latency(cursor, p, start, (total - 1) // 2)
        overview.p95_ms = _nth_latency(cursor, p, start, min(total - 1, int(0.95 * total)))
    return overview


def _nth_latency(cursor: Any, p: str, start: str, offset: int) -> float:
    cursor.execute(
        f"SELECT latency_ms FROM askai_runs WHERE created_at >= {p} ORDER BY latency_ms LIMIT 1 OFFSET {int(offset)}",
        (start,),
    )
    return float(cursor.fetchone()[0])
