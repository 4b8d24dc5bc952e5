"""The record of a finished run that every face reads: the CLI, the SSE ``done``, the run log, the eval.

``RunSummary.from_state`` is the one place that turns a run's final state (or a cached
answer's fields) into what a reader, a log or a metric is told: the answer, its outcome
and gates, the source cards, which retrieved URLs the answer cites (none on fallback),
and the ids and timings of the run. A cached answer carries its answer, its verdict and
the source cards it was first shown with: no attempts, no per-draft detail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from askai_graph.state import ReviewFailure, Source
from askai_graph.validation import ValidationIssue


class RunSummary(BaseModel):
    """One finished run (a cache hit included), built once from its final state."""

    model_config = ConfigDict(frozen=True)

    question: str = ""
    """The reader's question, as asked."""
    standalone_question: str = ""
    """The question as researched (a follow-up rewritten on its own)."""
    answer: str
    """The final answer text (the fallback message when there is none)."""
    outcome: str
    """accepted, accepted_early, degraded or fallback."""
    attempts: int = 0
    """Drafts written (0 on a cache hit)."""
    cached: bool = False
    """Served from the answer cache."""
    gates: dict[str, str] = Field(default_factory=dict)
    """Final per-gate status: retrieval, validation, critic."""
    sources: tuple[Source, ...] = ()
    """Source cards shown (only when the Source Gate passed; on a cache hit, those the answer was stored with)."""
    cited_urls: tuple[str, ...] = ()
    """Distinct retrieved URLs the final answer cites (none on fallback or a cache hit)."""
    retrieved_urls: tuple[str, ...] = ()
    """Page URLs of the final Research pass."""
    validation_errors: tuple[ValidationIssue, ...] = ()
    """The final draft's Validation failures."""
    review_failures: tuple[ReviewFailure, ...] = ()
    """The final draft's Critic failures."""
    gaps: tuple[str, ...] = ()
    """The last Critic's gaps: what the retrieved posts did not cover."""
    thread_id: str | None = None
    """The conversation, when the run was on one."""
    run_id: str | None = None
    """The run's id (feedback refers to it), when it has one."""
    seconds: float | None = None
    """Wall time of the whole run, when measured."""
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    """Wall time per stage, summed over drafts, when measured."""

    @classmethod
    def from_state(
        cls,
        final: Mapping[str, Any],
        *,
        cached: bool = False,
        thread_id: str | None = None,
        run_id: str | None = None,
        **timings: Any,
    ) -> RunSummary:
        """Return the summary of a run whose final state (or cached answer's fields) is ``final``."""
        outcome = str(final.get("outcome") or "fallback")
        report = None if cached else final.get("validation")
        detail = not cached
        return cls(
            question=str(final.get("question") or ""),
            standalone_question=str(final.get("standalone_question") or ""),
            answer=str(final.get("answer") or ""),
            outcome=outcome,
            attempts=int(final.get("attempts") or 0) if detail else 0,
            cached=cached,
            gates=dict(final.get("gates") or {}),
            sources=tuple(final.get("sources") or ()),
            cited_urls=tuple(report.cited_urls) if report is not None and outcome != "fallback" else (),
            retrieved_urls=tuple(r.source_url for r in final.get("search_results") or ()) if detail else (),
            validation_errors=tuple(report.errors) if report is not None else (),
            review_failures=tuple(final.get("review_failures") or ()) if detail else (),
            gaps=tuple(final.get("gaps") or ()) if detail else (),
            thread_id=thread_id,
            run_id=run_id,
            **timings,
        )

    @property
    def failure_codes(self) -> list[str]:
        """The final draft's Validation and Critic failure codes, in that order."""
        return [issue.code for issue in self.validation_errors] + [failure.code for failure in self.review_failures]

    def done_payload(self) -> dict[str, Any]:
        """Return the SSE ``done`` event's data (the ids only when the run has them)."""
        ids = {name: value for name in ("thread_id", "run_id") if (value := getattr(self, name)) is not None}
        return {"outcome": self.outcome, "attempts": self.attempts, "cached": self.cached, "gates": self.gates, **ids}


def final_state(
    stream: Iterable[Any], on_updates: Callable[[Mapping[str, Any], Mapping[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Drain a graph's ``stream_mode=["updates", "values"]`` stream and return the final state.

    ``on_updates(updates, state)`` sees each superstep's node updates and the state
    before them (the CLI's progress lines, the eval's timings and verdicts).
    """
    final: dict[str, Any] = {}
    for mode, chunk in stream:
        if mode == "values":
            final = dict(chunk)
        elif on_updates is not None:
            on_updates(chunk, final)
    return final
