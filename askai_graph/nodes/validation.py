"""Validation: the deterministic gate; no model, every failure reported."""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.runnables.config import run_in_executor

from askai_graph.evidence.citations import Citation
from askai_graph.nodes.writer import pages_locale
from askai_graph.retrieval.anchoring import Meaning, anchor_citations
from askai_graph.settings import Settings
from askai_graph.state import AskState
from askai_graph.text.terms import reading
from askai_graph.validation import validate_draft


class Validate:
    """The Validation node; with the retriever's embedding model, anchoring tells tied sections apart by meaning."""

    def __init__(self, embeddings: Embeddings | None = None) -> None:
        """Anchor lexically, and with ``embeddings`` (the retriever's model) when it has one."""
        self.meaning = Meaning(embeddings) if embeddings is not None else None

    def __call__(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Validate the latest draft (see ``validate``)."""
        return validate(state, settings, self.meaning)

    async def acall(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Validate inline (cheap CPU work), or in a worker thread when a model call may be needed."""
        if self.meaning is None:
            return validate(state, settings)
        return await run_in_executor(None, validate, state, settings, self.meaning)


def validate(state: AskState, settings: Settings, meaning: Meaning | None = None) -> dict[str, Any]:
    """Anchor the latest draft's citations, then validate both against this request's retrieved text.

    A sentence is anchored by the terms it shares with each section, read in the pages'
    language: read as English, a Spanish sentence's articles and prepositions ("de",
    "la") would pick the section that shares them over the one that supports it.
    """
    draft, results = state.get("draft", ""), state.get("search_results", [])
    citations: list[Citation] = []
    if len(draft) <= settings.max_draft_chars:
        with reading(pages_locale(settings, results)):
            citations = anchor_citations(draft, results, meaning)
    report = validate_draft(
        draft,
        results,
        mermaid_types=settings.mermaid_diagram_types,
        max_chars=settings.max_draft_chars,
        citations=citations,
    )
    return {"validation": report, "citations": citations}
