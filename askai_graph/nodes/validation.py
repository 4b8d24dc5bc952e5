"""Validation: the deterministic gate; no model, every failure reported."""

from __future__ import annotations

from typing import Any

from askai_graph.settings import Settings
from askai_graph.state import AskState
from askai_graph.validation import validate_draft


def validate(state: AskState, settings: Settings) -> dict[str, Any]:
    """Validate the latest draft against this request's retrieved URLs."""
    report = validate_draft(
        state.get("draft", ""),
        state.get("search_results", []),
        mermaid_types=settings.mermaid_diagram_types,
        max_chars=settings.max_draft_chars,
    )
    return {"validation": report}
