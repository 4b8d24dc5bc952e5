"""End nodes: settle the reader-facing answer and the outcome."""

from __future__ import annotations

from typing import Any

from askai_graph.models.prompts import CLARIFY_ANSWER, DEGRADED_NOTICE, FALLBACK_ANSWER
from askai_graph.settings import Settings
from askai_graph.state import AskState, retrieved_urls
from askai_graph.text.unlinking import unlinked


def accept(state: AskState, settings: Settings) -> dict[str, Any]:
    """Both gates passed: the draft is the answer."""
    return {"answer": state["draft"], "outcome": "accepted"}


def accept_early(state: AskState, settings: Settings) -> dict[str, Any]:
    """A catalog answer met the early-acceptance rule: the draft is the answer.

    Its review passed but for confidence, so its list keeps its links (a catalog is a list
    of pages); with low confidence the Source Gate shows no cards under it.
    """
    return {"answer": state["draft"], "outcome": "accepted_early"}


def degraded_notice(settings: Settings) -> str:
    """Return the degrade notice in the reader's locale when the site configures it, else English."""
    notice = settings.locale_messages(settings.locale).degraded_notice
    return f"\n\n> {notice}" if notice else DEGRADED_NOTICE


def fallback_answer(settings: Settings, locale: str | None = None) -> str:
    """Return the fallback answer in the reader's locale when the site configures it, else English.

    The reader's locale is the run's (``settings.locale``), or ``locale`` for a question
    the server abandons at its deadline, outside any node.
    """
    return settings.locale_messages(locale or settings.locale).fallback or FALLBACK_ANSWER


def degrade(state: AskState, settings: Settings) -> dict[str, Any]:
    """At the limit with valid but unverified drafts: the best one's text, without links, with a notice.

    The best is the one the Critic was most confident in (``best_rejected``), else the
    last; its Validation report and citations replace the last draft's, so the thread's
    turn and the run log say what the shown text cites.
    """
    best = state.get("best_rejected")
    if best is None:
        notice = degraded_notice(settings)
        return {"answer": unlinked(state["draft"], retrieved_urls(state)) + notice, "outcome": "degraded"}
    return {
        "answer": unlinked(best["draft"], [*best["retrieved"], *retrieved_urls(state)]) + degraded_notice(settings),
        "outcome": "degraded",
        "draft": best["draft"],
        "validation": best["validation"],
        "citations": best["citations"],
    }


def fallback(state: AskState, settings: Settings) -> dict[str, Any]:
    """Nothing usable: an honest fixed message (asking for the full question if it leaned on nothing)."""
    answer = CLARIFY_ANSWER if state.get("needs_context") else fallback_answer(settings)
    return {"answer": answer, "outcome": "fallback"}
