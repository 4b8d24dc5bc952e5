"""Routing: every conditional edge, as a pure, typed function of state and settings.

No I/O, no model calls. ``graph.py`` binds the run's settings; Studio draws the
branches from the ``Literal`` return types.
"""

from __future__ import annotations

from typing import Literal

from askai_graph.rules.gates import critic_passed, is_early_catalog_acceptance, validation_passed
from askai_graph.settings import Settings
from askai_graph.state import AskState


def route_after_condense(state: AskState, settings: Settings) -> Literal["research", "fallback"]:
    """Research the standalone question; a first question that leans on nothing falls back at once."""
    return "fallback" if state.get("needs_context") else "research"


def route_after_research(state: AskState, settings: Settings) -> Literal["writer", "fallback"]:
    """Draft when anything was retrieved; with nothing to cite, fall back at once."""
    return "writer" if state.get("search_results") else "fallback"


def route_after_validation(
    state: AskState, settings: Settings
) -> Literal["critic", "research", "fallback"]:
    """Review a valid draft; otherwise retry below the attempt limit, else fall back."""
    if state.get("validation") is None:
        raise ValueError("route_after_validation called before Validation ran")
    if validation_passed(state):
        return "critic"
    return "research" if _attempts(state) < settings.max_attempts else "fallback"


def route_after_critic(
    state: AskState, settings: Settings
) -> Literal["accept", "accept_early", "research", "degrade"]:
    """Accept, accept a catalog answer early, retry with the gaps, or degrade at the limit."""
    if not validation_passed(state):
        raise ValueError("route_after_critic called on a draft that failed Validation")
    if critic_passed(state):
        return "accept"
    if is_early_catalog_acceptance(state, settings):
        return "accept_early"
    return "research" if _attempts(state) < settings.max_attempts else "degrade"


def _attempts(state: AskState) -> int:
    attempts = state.get("attempts", 0)
    if attempts < 1:
        raise ValueError("routing a draft before any attempt was counted")
    return int(attempts)
