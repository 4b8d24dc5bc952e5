"""The dashboard's overview of a period, and its filter of the questions list.

Questions per day by outcome, thumbs, cache hits, distinct readers, and the p50/p95
time from the request to the ``done`` event. The run log streams answer tokens only
once the answer is final, so that time is also when the reader sees the first token.
``rollups`` computes it from per-day counts kept beside the runs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

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
