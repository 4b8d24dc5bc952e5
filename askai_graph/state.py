"""The graph's typed shared state: what the reader sends, what every stage writes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict

from askai_graph.critique import Critique
from askai_graph.evidence import SearchResult
from askai_graph.validation import ValidationReport

Outcome = Literal["accepted", "accepted_early", "degraded", "fallback"]
GateStatus = Literal["passed", "failed", "skipped"]


class ReviewFailure(BaseModel):
    """One reason the Critic gate failed (a threshold, drift, a malformed reply...)."""

    model_config = ConfigDict(frozen=True)

    code: str
    """Stable code: low_confidence, low_relevance, intent_mismatch, drift,
    ungrounded_claims, malformed_review or provider_error."""
    message: str
    """Human-readable detail."""


class Source(BaseModel):
    """A source card shown under an answer that passed both gates."""

    model_config = ConfigDict(frozen=True)

    title: str
    """Post title."""
    url: str
    """Exact retrieved post URL."""


class InputState(TypedDict):
    """What a caller passes in: ``{"question": ...}``."""

    question: str
    """The reader's question."""


class AskState(InputState, total=False):
    """The full shared state every node reads and writes its own keys of."""

    query: str
    """The current Research query: the question plus, on retries, the Critic's gaps."""
    search_results: list[SearchResult]
    """Candidate posts from the latest Research pass (untrusted evidence)."""
    draft: str
    """The latest Writer draft (never shown to a reader until it is final)."""
    writer_error: str | None
    """Why the Writer produced no draft (a provider failure), if it failed."""
    attempts: int
    """Drafts written so far."""
    validation: ValidationReport | None
    """Validation of the latest draft; ``None`` when it has not run on it."""
    critique: Critique | None
    """The Critic's parsed review of the latest draft; ``None`` if none or malformed."""
    review_failures: list[ReviewFailure]
    """Why the Critic gate failed on the latest draft (empty when it passed)."""
    gaps: list[str]
    """The latest Critic's gaps, carried into the next Research query."""
    answer: str
    """The final text for the reader."""
    outcome: Outcome
    """How the run ended."""
    gates: dict[str, GateStatus]
    """Per-gate status of the final draft: retrieval, validation, critic."""
    sources: list[Source]
    """Source cards; non-empty only when the Source Gate passed."""

