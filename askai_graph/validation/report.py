"""The Validation gate's verdict: every failure, each with a stable code."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ValidationIssue(BaseModel):
    """One reason a draft failed Validation."""

    model_config = ConfigDict(frozen=True)

    code: str
    """Stable machine-readable code, e.g. ``unknown_citation_url``."""
    message: str
    """Human-readable explanation, e.g. ``Unknown citation URL: <url>``."""
    url: str | None = None
    """The offending URL, where one is known."""


class ValidationReport(BaseModel):
    """The outcome of validating one draft; ``ok`` only when nothing failed."""

    model_config = ConfigDict(frozen=True)

    errors: list[ValidationIssue] = Field(default_factory=list)
    """Every distinct failure found (grouped by check); empty when the draft passed."""
    cited_urls: list[str] = Field(default_factory=list)
    """Distinct retrieved post URLs the draft links to live, in first-seen order."""

    @property
    def ok(self) -> bool:
        """Whether the draft passed every check."""
        return not self.errors
