"""One test per routing edge outcome: the routers are pure functions of state."""

from __future__ import annotations

from typing import Any

import pytest

from askai_graph import Settings, ValidationIssue, ValidationReport, validate_draft
from askai_graph.edges import route_after_critic, route_after_research, route_after_validation
from askai_graph.evidence.critique import parse_critique
from askai_graph.nodes.research import to_search_results
from askai_graph.rules.gates import review_failures
from askai_graph.state import ReviewFailure
from tests.fakes import PASSING, catalog_draft, post, review, url

SETTINGS = Settings(max_attempts=3, catalog_min_sources=4)
PASSED = ValidationReport()
FAILED = ValidationReport(errors=[ValidationIssue(code="unknown_citation_url", message="Unknown citation URL: x")])
CATALOG_QUESTION = "What course articles do you have?"


def results(*numbers: int) -> list[Any]:
    return to_search_results([post(n) for n in numbers], top_k=50)


def reviewed(reply: str, **overrides: Any) -> dict[str, Any]:
    critique = parse_critique(reply)
    state = {
        "question": "How does caching work?",
        "search_results": results(1, 2, 3, 4, 5),
        "attempts": 1,
        "critique": critique,
        "review_failures": review_failures(critique, SETTINGS),
        "draft": "text",
        **overrides,
    }
    state.setdefault("validation", validate_draft(state["draft"], state["search_results"]))
    return state


def malformed(**state: Any) -> dict[str, Any]:
    failure = ReviewFailure(code="malformed_review", message="malformed review: not JSON")
    return {**reviewed(PASSING), "critique": None, "review_failures": [failure], **state}


# --- after Research -------------------------------------------------------------------


def test_route_after_research_drafts_when_posts_were_retrieved() -> None:
    assert route_after_research({"question": "q", "search_results": results(1)}, SETTINGS) == "writer"


def test_route_after_research_falls_back_on_empty_retrieval() -> None:
    assert route_after_research({"question": "q", "search_results": []}, SETTINGS) == "fallback"


# --- after Validation -----------------------------------------------------------------


def test_route_after_validation_reviews_a_valid_draft() -> None:
    assert route_after_validation({"validation": PASSED, "attempts": 1}, SETTINGS) == "critic"


@pytest.mark.parametrize("attempts", [1, 2])
def test_route_after_validation_retries_below_the_limit(attempts: int) -> None:
    assert route_after_validation({"validation": FAILED, "attempts": attempts}, SETTINGS) == "research"


def test_route_after_validation_falls_back_at_the_limit() -> None:
    assert route_after_validation({"validation": FAILED, "attempts": 3}, SETTINGS) == "fallback"


def test_route_after_validation_rejects_a_state_without_a_report() -> None:
    with pytest.raises(ValueError, match="before Validation ran"):
        route_after_validation({"validation": None, "attempts": 1}, SETTINGS)


# --- after Critic ---------------------------------------------------------------------


def test_route_after_critic_accepts_when_both_gates_pass() -> None:
    assert route_after_critic(reviewed(PASSING), SETTINGS) == "accept"


@pytest.mark.parametrize("attempts", [1, 2])
def test_route_after_critic_retries_below_the_limit(attempts: int) -> None:
    state = reviewed(review(answer_relevance=0.1), attempts=attempts)
    assert route_after_critic(state, SETTINGS) == "research"


def test_route_after_critic_degrades_at_the_limit() -> None:
    assert route_after_critic(reviewed(review(answer_relevance=0.1), attempts=3), SETTINGS) == "degrade"


def test_route_after_critic_respects_a_lower_attempt_limit() -> None:
    state = reviewed(review(answer_relevance=0.1), attempts=1)
    assert route_after_critic(state, Settings(max_attempts=1)) == "degrade"


def test_route_after_critic_retries_a_malformed_review() -> None:
    assert route_after_critic(malformed(), SETTINGS) == "research"


def test_route_after_critic_refuses_to_route_an_invalid_draft() -> None:
    with pytest.raises(ValueError, match="failed Validation"):
        route_after_critic(reviewed(PASSING, validation=FAILED), SETTINGS)


# --- catalog early acceptance -----------------------------------------------------------


def catalog(reply: str, *cited: int, **state: Any) -> dict[str, Any]:
    return reviewed(reply, question=CATALOG_QUESTION, draft=catalog_draft(*cited), **state)


def test_catalog_with_low_confidence_alone_is_accepted_early() -> None:
    assert route_after_critic(catalog(review(confidence=0.1), 1, 2, 3, 4), SETTINGS) == "accept_early"


def test_catalog_that_fully_passes_is_plainly_accepted() -> None:
    assert route_after_critic(catalog(PASSING, 1, 2, 3, 4), SETTINGS) == "accept"


@pytest.mark.parametrize(
    ("reply", "cited"),
    [
        pytest.param(review(confidence=0.1), (1, 2, 3), id="fewer-than-4-distinct-sources"),
        pytest.param(review(confidence=0.1), (1, 1, 2, 2, 3), id="repeated-citations-are-not-distinct"),
        pytest.param(review(confidence=0.1, drift_detected=True), (1, 2, 3, 4), id="drift"),
        pytest.param(review(confidence=0.1, answer_relevance=0.2), (1, 2, 3, 4), id="low-relevance"),
        pytest.param(review(confidence=0.1, intent_alignment=0.2), (1, 2, 3, 4), id="intent-mismatch"),
        pytest.param(review(confidence=0.1, ungrounded_claims=["x"]), (1, 2, 3, 4), id="ungrounded-claim"),
    ],
)
def test_catalog_early_acceptance_is_refused(reply: str, cited: tuple[int, ...]) -> None:
    assert route_after_critic(catalog(reply, *cited), SETTINGS) == "research"


def test_catalog_with_malformed_review_is_not_accepted_early() -> None:
    state = malformed(question=CATALOG_QUESTION, draft=catalog_draft(1, 2, 3, 4))
    assert route_after_critic(state, SETTINGS) == "research"


def test_catalog_citations_inside_code_do_not_count() -> None:
    draft = catalog_draft(1, 2, 3) + f"\n\n```\n{url(4)}\n```"
    state = reviewed(review(confidence=0.1), question=CATALOG_QUESTION, draft=draft)
    assert route_after_critic(state, SETTINGS) == "research"


def test_catalog_minimum_is_a_setting() -> None:
    state = catalog(review(confidence=0.1), 1, 2)
    assert route_after_critic(state, Settings(catalog_min_sources=2)) == "accept_early"


def test_ordinary_question_with_low_confidence_is_not_accepted_early() -> None:
    state = reviewed(review(confidence=0.1), draft=catalog_draft(1, 2, 3, 4))
    assert route_after_critic(state, SETTINGS) == "research"
