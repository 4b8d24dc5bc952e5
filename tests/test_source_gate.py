"""The Source Gate rule, exactly: results AND no Validation failure AND no Critic failure."""

from __future__ import annotations

from typing import Any

import pytest

from askai_graph import Settings, ValidationIssue, ValidationReport, should_expose_retrieved_links
from askai_graph.evidence.critique import parse_critique
from askai_graph.nodes.research import to_search_results
from askai_graph.nodes.source_gate import source_gate
from askai_graph.rules.gates import display_sources, review_failures
from tests.fakes import PASSING, cited_draft, post, review, url

RESULTS = to_search_results([post(1), post(2)], top_k=10)
INVALID = ValidationReport(errors=[ValidationIssue(code="unclosed_fence", message="Unclosed code fence")])


def state(reply: str | None = PASSING, **overrides: Any) -> dict[str, Any]:
    critique = parse_critique(reply) if reply is not None else None
    failures = review_failures(critique, Settings()) if critique is not None else []
    return {
        "question": "q",
        "search_results": RESULTS,
        "validation": ValidationReport(cited_urls=[url(2)]),
        "critique": critique,
        "review_failures": failures,
        "draft": cited_draft(2),
        **overrides,
    }


def test_sources_shown_when_results_exist_and_both_gates_pass() -> None:
    assert should_expose_retrieved_links(state()) is True


def test_no_sources_without_results() -> None:
    assert should_expose_retrieved_links(state(search_results=[])) is False


def test_no_sources_after_a_validation_failure() -> None:
    assert should_expose_retrieved_links(state(validation=INVALID)) is False


def test_no_sources_after_a_critic_failure() -> None:
    assert should_expose_retrieved_links(state(review(ungrounded_claims=["made up"]))) is False


def test_low_confidence_counts_as_a_critic_failure() -> None:
    assert should_expose_retrieved_links(state(review(confidence=0.1))) is False


@pytest.mark.parametrize("missing", ["validation", "critique"])
def test_a_missing_verdict_counts_as_a_failure(missing: str) -> None:
    assert should_expose_retrieved_links(state(**{missing: None})) is False


def test_display_sources_are_the_cited_posts_in_citation_order() -> None:
    results = to_search_results([post(1), post(2), post(3), post(1)], top_k=10)
    cited = ValidationReport(cited_urls=[url(3), url(1)])
    sources = display_sources(state(search_results=results, validation=cited))
    assert [s.url for s in sources] == [url(3), url(1)]  # post 2 was retrieved, never cited: no card


def test_display_sources_never_show_a_url_outside_the_results() -> None:
    cited = ValidationReport(cited_urls=[url(9), url(2)])
    assert [s.url for s in display_sources(state(validation=cited))] == [url(2)]


def test_source_gate_node_attaches_nothing_when_the_rule_fails() -> None:
    update = source_gate(state(validation=INVALID), Settings())
    assert update["sources"] == []
    assert update["gates"] == {"retrieval": "passed", "validation": "failed", "critic": "passed"}


# What ``invoke`` returns holds no retrieved results or verdicts: the rule reads the
# gates the run recorded. A caller following the documented contract gets the same answer.
def public(**gates: str) -> dict[str, Any]:
    statuses = {"retrieval": "passed", "validation": "passed", "critic": "passed"} | gates
    return {"answer": "a", "outcome": "accepted", "attempts": 1, "gates": statuses, "sources": []}


def test_public_output_with_every_gate_passed_exposes_the_links() -> None:
    assert should_expose_retrieved_links(public()) is True


@pytest.mark.parametrize(
    "gates",
    [{"retrieval": "failed"}, {"validation": "failed"}, {"critic": "failed"}, {"critic": "skipped"},
     {"validation": "skipped", "critic": "skipped"}],
)
def test_public_output_with_a_gate_not_passed_hides_the_links(gates: dict[str, str]) -> None:
    assert should_expose_retrieved_links(public(**gates)) is False


def test_a_whole_state_is_judged_by_its_verdicts_not_by_a_stale_gates_key() -> None:
    # A thread's checkpoint keeps the previous answer's gates until the Source Gate runs again.
    assert should_expose_retrieved_links(state(validation=INVALID, gates=public()["gates"])) is False


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("How does a semantic cache work?", True),  # accepted
        ("What course articles do you have?", False),  # catalog, accepted early with low confidence
        ("How do I bake sourdough bread?", False),  # off topic: fallback
    ],
)
def test_the_rule_on_invoke_output_agrees_with_the_whole_state(question: str, shown: bool) -> None:
    from askai_graph import build_graph
    from askai_graph.state import STATE_KEYS

    graph = build_graph()
    public_output = graph.invoke({"question": question})
    whole = graph.invoke({"question": question}, output_keys=STATE_KEYS)
    assert "search_results" not in public_output
    assert should_expose_retrieved_links(public_output) is shown
    assert should_expose_retrieved_links(whole) is shown
    assert bool(public_output["sources"]) is shown
