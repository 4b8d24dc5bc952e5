"""Validation: the deterministic gate; no model, every failure reported."""

from __future__ import annotations

from typing import Any

from askai_graph.retrieval.anchoring import anchor_citations
from askai_graph.settings import Settings
from askai_graph.state import AskState
from askai_graph.validation import validate_draft


def validate(state: AskState, settings: Settings) -> dict[str, Any]:
    """Anchor the latest draft's citations, then validate both against this request's retrieved text."""
    draft, results = state.get("draft", ""), state.get("search_results", [])
    citations = anchor_citations(draft, results) if len(draft) <= settings.max_draft_chars else []
    report = validate_draft(
        draft,
        results,
        mermaid_types=settings.mermaid_diagram_types,
        max_chars=settings.max_draft_chars,
        citations=citations,
    )
    return {"validation": report, "citations": citations}
