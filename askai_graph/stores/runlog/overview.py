"""The dashboard's overview of a period, computed in the database (one pass per figure, no record loaded).

Questions per day by outcome, thumbs, cache hits, distinct readers, and the p50/p95
time from the request to the ``done`` event. The run log streams answer tokens only
once the answer is final, so that time is also when the reader sees the first token.
Plain SQL that SQLite and PostgreSQL read alike (``created_at`` is ISO-8601 UTC text,
so its first ten characters are the UTC day).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

OUTCOMES = ("accepted", "accepted_early", "degraded", "fallback")


class RunQuery(BaseModel):
    """The dashboard's filter of the questions list."""

    model_config = ConfigDict(frozen=True)

    outcome: Literal["accepted", "accepted_early", "degraded", "fallback"] | None = None
    """Only runs that ended so."""
    rating: Literal["up", "down", "none"] | None = None
    """Only runs rated so (``none``: not rated)."""
    text: str = Field("", max_length=200)
    """Only questions containing this text (case-insensitive)."""
    limit: int = Field(200, ge=1, le=10_000)
    """At most this many runs, newest first."""


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
    """Return the overview of the runs recorded at or after ``since``, read through DB-API ``cursor``.

    One scan of the period's narrow columns (a covering index, ``store._INDEXES``), in
    the order the index holds them, summed here: measured faster than a ``GROUP BY``,
    a ``COUNT(DISTINCT)`` and a sorted read, each of which needs a temporary B-tree
    (``bench/admin_overview.py``).
    """
    cursor.execute(
        "SELECT substr(created_at, 1, 10), outcome, cached, rating, reader, latency_ms"
        f" FROM askai_runs WHERE created_at >= {placeholder}",
        (since.astimezone(UTC).isoformat(),),
    )
    per_day: dict[tuple[str, str], int] = {}
    readers: set[str] = set()
    latencies: list[float] = []
    overview = Overview(since=since)
    cached = up = down = 0
    for day, outcome, hit, rating, reader, latency in cursor.fetchall():
        per_day[day, outcome] = per_day.get((day, outcome), 0) + 1
        cached += bool(hit)
        up += rating == "up"
        down += rating == "down"
        if reader is not None:
            readers.add(reader)
        latencies.append(latency)
    days: dict[str, Day] = {}
    for (day, outcome), count in sorted(per_day.items()):
        days.setdefault(day, Day(day=day)).outcomes[outcome] = count
        overview.outcomes[outcome] = overview.outcomes.get(outcome, 0) + count
    overview.days = list(days.values())
    overview.cached, overview.thumbs_up, overview.thumbs_down, overview.readers = cached, up, down, len(readers)
    if latencies:
        latencies.sort()
        overview.p50_ms = float(latencies[(len(latencies) - 1) // 2])
        overview.p95_ms = float(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))])
    return overview
