"""One structured record per answered question, built from the finished run's state."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Rating = Literal["up", "down"]


class RunRecord(BaseModel):
    """What the run log keeps of one answer (the question is stored exactly as asked)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    """The id the ``done`` event carried; feedback refers to it."""
    created_at: datetime
    """When the answer finished (UTC)."""
    question: str
    """The reader's question, as asked."""
    standalone_question: str = ""
    """The question as researched (a follow-up rewritten on its own); empty when the same."""
    thread_id: str | None = None
    """The conversation, when the run was on one."""
    outcome: str
    """accepted, accepted_early, degraded or fallback."""
    attempts: int = 0
    """Drafts written (0 on a cache hit)."""
    cached: bool = False
    """Served from the semantic cache."""
    gates: dict[str, str] = Field(default_factory=dict)
    """Final per-gate status: retrieval, validation, critic."""
    failure_codes: list[str] = Field(default_factory=list)
    """Validation and Critic failure codes of the final draft."""
    gaps: list[str] = Field(default_factory=list)
    """The last Critic's gaps: what the retrieved posts did not cover."""
    cited_urls: list[str] = Field(default_factory=list)
    """Retrieved URLs the final answer cites (none on fallback)."""
    retrieved_urls: list[str] = Field(default_factory=list)
    """Post URLs of the final Research pass."""
    source_urls: list[str] = Field(default_factory=list)
    """Source cards shown."""
    latency_ms: float = 0.0
    """Wall time from the request to the ``done`` event."""
    stage_ms: dict[str, float] = Field(default_factory=dict)
    """Wall time per stage, summed over drafts."""
    rating: Rating | None = None
    """The reader's thumbs, if any."""
    comment: str | None = None
    """The reader's comment, if any."""


def failure_codes(final: Mapping[str, Any]) -> list[str]:
    """Return the final draft's Validation and Critic failure codes, in that order."""
    report = final.get("validation")
    codes = [issue.code for issue in report.errors] if report is not None else []
    return codes + [failure.code for failure in final.get("review_failures") or []]


def build_record(
    *,
    run_id: str,
    question: str,
    final: Mapping[str, Any],
    done: Mapping[str, Any],
    latency_ms: float,
    stage_ms: Mapping[str, float] | None = None,
) -> RunRecord:
    """Build the record of one answer from the run's (possibly partial) state and its ``done`` data."""
    cached = bool(done.get("cached"))
    report = final.get("validation")
    outcome = str(done.get("outcome") or final.get("outcome") or "fallback")
    standalone = str(final.get("standalone_question") or "")
    return RunRecord(
        run_id=run_id,
        created_at=datetime.now(UTC),
        question=question,
        standalone_question="" if standalone == question else standalone,
        thread_id=done.get("thread_id"),
        outcome=outcome,
        attempts=int(done.get("attempts") or 0),
        cached=cached,
        gates=dict(done.get("gates") or final.get("gates") or {}),
        failure_codes=[] if cached else failure_codes(final),
        gaps=[] if cached else list(final.get("gaps") or []),
        cited_urls=list(report.cited_urls) if report is not None and not cached and outcome != "fallback" else [],
        retrieved_urls=[] if cached else [result.source_url for result in final.get("search_results") or []],
        source_urls=[] if cached else [source.url for source in final.get("sources") or []],
        latency_ms=round(latency_ms, 3),
        stage_ms={stage: round(ms, 3) for stage, ms in (stage_ms or {}).items()},
    )
