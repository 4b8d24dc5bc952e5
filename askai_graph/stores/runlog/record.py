"""One structured record per answered question, built from the finished run's summary."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from askai_graph.summary import RunSummary

Rating = Literal["up", "down"]


class RunRecord(BaseModel):
    """What the run log keeps of one answer (the store masks the reader's text: ``masking``)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    """The id the ``done`` event carried; feedback refers to it."""
    created_at: datetime
    """When the answer finished (UTC)."""
    question: str
    """The reader's question (masked once stored)."""
    standalone_question: str = ""
    """The question as researched (a follow-up rewritten on its own); empty when the same."""
    thread_id: str | None = None
    """The conversation, when the run was on one."""
    reader: str | None = None
    """The keyed hash of the reader's client address (``stores.readers``), when known."""
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
    """Page URLs of the final Research pass."""
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
    search_id: str | None = None
    """The launcher search the reader asked from (the ``search_id`` of its response), when they did."""


def build_record(
    summary: RunSummary,
    *,
    question: str,
    latency_ms: float,
    stage_ms: Mapping[str, float] | None = None,
    reader: str | None = None,
    search_id: str | None = None,
) -> RunRecord:
    """Build the record of one answer from its run summary (``question`` as the reader asked it)."""
    standalone = summary.standalone_question
    return RunRecord(
        run_id=summary.run_id or "",
        created_at=datetime.now(UTC),
        question=question,
        standalone_question="" if standalone == question else standalone,
        thread_id=summary.thread_id,
        reader=reader,
        outcome=summary.outcome,
        attempts=summary.attempts,
        cached=summary.cached,
        gates=dict(summary.gates),
        failure_codes=summary.failure_codes,
        gaps=list(summary.gaps),
        cited_urls=list(summary.cited_urls),
        retrieved_urls=list(summary.retrieved_urls),
        source_urls=[source.url for source in summary.sources],
        latency_ms=round(latency_ms, 3),
        stage_ms={stage: round(ms, 3) for stage, ms in (stage_ms or {}).items()},
        search_id=search_id,
    )
