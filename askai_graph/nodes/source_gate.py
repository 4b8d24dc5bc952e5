"""Source Gate: the terminal node that decides whether source cards are shown, and closes the turn."""

from __future__ import annotations

from typing import Any

from askai_graph.rules.gates import cited_page_urls, display_sources, gate_statuses, should_expose_retrieved_links
from askai_graph.settings import Settings
from askai_graph.state import AskState, Turn, researched_question


def source_gate(state: AskState, settings: Settings) -> dict[str, Any]:
    """Attach sources only when ``should_expose_retrieved_links`` holds; record the turn."""
    sources = display_sources(state) if should_expose_retrieved_links(state) else []
    return {"sources": sources, "gates": gate_statuses(state), "history": remembered(state, settings)}


def remembered(state: AskState, settings: Settings) -> list[Turn]:
    """Return the thread's history with this question's turn added, at most ``max_history_turns``."""
    outcome = state.get("outcome")
    if outcome is None:  # no end node ran (a node tested on its own): nothing to remember
        return list(state.get("history") or [])
    turn = Turn(
        question=state["question"],
        standalone_question=researched_question(state),
        answer=state["answer"],
        outcome=outcome,
        cited_urls=() if outcome == "fallback" else tuple(cited_page_urls(state)),
        version=settings.version or "",
        locale=settings.locale or "",
    )
    history = [*(state.get("history") or []), turn]
    return history[-settings.max_history_turns :]
