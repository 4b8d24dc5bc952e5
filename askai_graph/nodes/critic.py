"""Critic: have the reviewer judge the draft; parse its reply strictly, trust nothing partial."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from askai_graph.condensing import recent_turns
from askai_graph.critique import MalformedReview, parse_critique
from askai_graph.gates import review_failures
from askai_graph.reviewing import Reviewer, ReviewRequest, evidence_slice
from askai_graph.settings import Settings
from askai_graph.state import ReviewFailure, researched_question

logger = logging.getLogger(__name__)


def review_request(state: Mapping[str, Any], settings: Settings) -> ReviewRequest:
    """Build the Critic's request: the standalone question, a bounded slice of evidence and history."""
    draft = state.get("draft", "")
    question = researched_question(state)
    evidence = evidence_slice(question, draft, state.get("search_results", []), settings.critic_evidence_chars)
    history = recent_turns(state.get("history") or [], settings.history_prompt_turns)
    return ReviewRequest(question=question, draft=draft, evidence=evidence, history=history)


def judged(reply: Any, settings: Settings) -> dict[str, Any]:
    """Turn a reviewer's raw reply into the state update (failures, gaps)."""
    if not isinstance(reply, str):
        reply = ""
    try:
        critique = parse_critique(reply)
    except MalformedReview as exc:
        failure = ReviewFailure(code="malformed_review", message=f"malformed review: {exc}")
        return {"critique": None, "review_failures": [failure], "gaps": []}
    return {"critique": critique, "review_failures": review_failures(critique, settings), "gaps": critique.gaps}


def _provider_failed(exc: Exception) -> dict[str, Any]:
    logger.warning("critic failed: %r", exc)
    failure = ReviewFailure(code="provider_error", message=f"critic failed: {type(exc).__name__}: {exc}")
    return {"critique": None, "review_failures": [failure], "gaps": []}


class Critic:
    """Ask the injected Reviewer to review the latest draft."""

    def __init__(self, reviewer: Reviewer) -> None:
        """Use ``reviewer`` for every review."""
        self.reviewer = reviewer

    def __call__(self, state: Mapping[str, Any], settings: Settings) -> dict[str, Any]:
        """Review synchronously."""
        try:
            reply = self.reviewer.review(review_request(state, settings))
        except Exception as exc:
            return _provider_failed(exc)
        return judged(reply, settings)

    async def acall(self, state: Mapping[str, Any], settings: Settings) -> dict[str, Any]:
        """Review asynchronously."""
        try:
            # Slicing the evidence analyses every retrieved post: CPU work, kept off the event loop.
            request = await asyncio.to_thread(review_request, state, settings)
            reply = await self.reviewer.areview(request)
        except Exception as exc:
            return _provider_failed(exc)
        return judged(reply, settings)
