"""Critic: have the Critic judge the draft; parse its reply strictly, trust nothing partial."""

from __future__ import annotations

import logging
from typing import Any

from askai_graph.evidence.critique import MalformedReview, ReviewCode, parse_critique
from askai_graph.evidence.results import analysed_inline, evidence_slice
from askai_graph.models.condensing import recent_turns
from askai_graph.models.reviewing import Critic, ReviewRequest
from askai_graph.nodes.calls import Body, arun, blocking, both, run
from askai_graph.nodes.writer import pages_locale, reads_history
from askai_graph.rules.gates import review_failures
from askai_graph.settings import Settings
from askai_graph.state import AskState, RejectedDraft, ReviewFailure, researched_question, retrieved_urls
from askai_graph.text.masking import searchable
from askai_graph.text.terms import reading

logger = logging.getLogger(__name__)


def review_request(state: AskState, settings: Settings) -> ReviewRequest:
    """Build the Critic's request: the standalone question, a bounded slice of evidence and history."""
    draft = state.get("draft", "")
    question = researched_question(state)
    results = state.get("search_results", [])
    locale = pages_locale(settings, results)
    with reading(locale):  # the passages most related to the question, in the pages' language
        evidence = evidence_slice(question, draft, results, settings.critic_evidence_chars)
    history = recent_turns(state.get("history") or [], settings.history_prompt_turns, settings.version, settings.locale)
    return ReviewRequest(
        question=question, draft=draft, evidence=evidence, history=history, locale=locale
    )


def judged(reply: Any, settings: Settings) -> dict[str, Any]:
    """Turn a Critic's raw reply into the state update (failures, gaps)."""
    if not isinstance(reply, str):
        reply = ""
    try:
        critique = parse_critique(reply)
    except MalformedReview as exc:
        failure = ReviewFailure(code=ReviewCode.MALFORMED_REVIEW, message=f"malformed review: {exc}")
        return {"critique": None, "review_failures": [failure], "gaps": []}
    # A gap steers the next Research query and is stored: never a label's word, nor a secret a model echoed.
    gaps = [gap for gap in map(searchable, critique.gaps) if gap]
    return {"critique": critique, "review_failures": review_failures(critique, settings), "gaps": gaps}


def kept_rejection(state: AskState, update: dict[str, Any]) -> dict[str, Any]:
    """Return ``update`` plus ``best_rejected`` when the draft it judged failed and beats the one kept.

    Ties keep the earlier draft: the Writer's first choice of passage.
    """
    if not update["review_failures"]:
        return update
    critique = update["critique"]
    confidence = critique.confidence if critique is not None else 0.0
    kept = state.get("best_rejected")
    if kept is not None and kept["confidence"] >= confidence:
        return update
    rejected = RejectedDraft(
        draft=state.get("draft", ""),
        confidence=confidence,
        retrieved=retrieved_urls(state),
        validation=state.get("validation"),
        citations=list(state.get("citations") or []),
    )
    return update | {"best_rejected": rejected}


def _provider_failed(exc: Exception) -> dict[str, Any]:
    logger.warning("critic failed: %r", exc)
    failure = ReviewFailure(code=ReviewCode.PROVIDER_ERROR, message=f"critic failed: {type(exc).__name__}: {exc}")
    return {"critique": None, "review_failures": [failure], "gaps": []}


class Review:
    """The critic node: ask the injected Critic to review the latest draft."""

    def __init__(self, critic: Critic) -> None:
        """Use ``critic`` for every review."""
        self.critic = critic

    def __call__(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Review synchronously."""
        return run(self._review(state, settings))

    async def acall(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Review asynchronously."""
        return await arun(self._review(state, settings))

    def _review(self, state: AskState, settings: Settings) -> Body[dict[str, Any]]:
        try:
            # Slicing the evidence analyses every retrieved post: inline when they are small
            # (a worker thread's hop costs more), else off the event loop in an async run.
            if analysed_inline(state.get("search_results", [])):
                request = review_request(state, settings)
            else:
                request = yield blocking(review_request, state, settings)
            reply = yield both(self.critic.review, self.critic.areview, request)
        except Exception as exc:
            return kept_rejection(state, _provider_failed(exc))
        return kept_rejection(state, judged(reply, settings)) | self._read(state, settings)

    def _read(self, state: AskState, settings: Settings) -> dict[str, Any]:
        history = recent_turns(
            state.get("history") or [], settings.history_prompt_turns, settings.version, settings.locale
        )
        return {"history_read": True} if reads_history(self.critic, history) else {}
