"""The evaluation's metrics on a three-question fixture worked out by hand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from askai_graph.evaluation import EvalQuestion, GateVerdict, QuestionResult, compute_metrics, runner
from askai_graph.evaluation.metrics import false_source_cards
from askai_graph.evidence.results import SearchResult

A, B, C, X, Y = (f"https://site.example/{name}" for name in "abcxy")
PASSED = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def v(gate: str, passed: bool, *codes: str) -> GateVerdict:
    return GateVerdict(gate=gate, passed=passed, codes=codes)


# Q1: accepted at once, cites A (expected) and X; sources A, X.
# Q2: degraded after 3 drafts (validation fails once, critic twice), cites C (expected).
# Q3: off-topic, retrieved X, falls back without drafting.
FIXTURE = [
    QuestionResult(
        question="q1",
        expected_urls=(A, B),
        must_mention=("bm25",),
        outcome="accepted",
        attempts=1,
        gates=PASSED,
        verdicts=(v("validation", True), v("critic", True)),
        ranking=(A, X, B, Y),
        retrieved=(A, X, B, Y),
        cited=(A, X),
        sources=(A, X),
        answer="BM25 scores terms.",
        seconds=0.1,
        stage_seconds={"research": 0.02, "writer": 0.05},
        retrieval_seconds=0.02,
    ),
    QuestionResult(
        question="q2",
        expected_urls=(C,),
        must_mention=("cache",),
        outcome="degraded",
        attempts=3,
        gates={**PASSED, "critic": "failed"},
        verdicts=(
            v("validation", False, "unknown_citation_url"),
            v("validation", True),
            v("critic", False, "low_relevance"),
            v("validation", True),
            v("critic", False, "drift", "low_relevance"),
        ),
        ranking=(X, C),
        retrieved=(X, C),
        cited=(C,),
        answer="Streams send events.",
        seconds=0.3,
        stage_seconds={"research": 0.04, "writer": 0.2},
        retrieval_seconds=0.01,
    ),
    QuestionResult(
        question="q3",
        kind="offtopic",
        outcome="fallback",
        gates={"retrieval": "passed"},
        ranking=(X,),
        retrieved=(X,),
        seconds=0.2,
        stage_seconds={"research": 0.01},
        retrieval_seconds=0.01,
    ),
]

# nDCG@2 by hand: Q1 has A at rank 1, X at rank 2, two relevant pages: (1) / (1 + 1/log2 3).
# Q2 has C at rank 2, one relevant page: (1/log2 3) / 1.
LOG2_3 = 1.584962500721156
NDCG_Q1 = 1 / (1 + 1 / LOG2_3)
NDCG_Q2 = 1 / LOG2_3


def test_metrics_equal_the_hand_computed_values() -> None:
    m = compute_metrics(FIXTURE, k=2)
    assert m["questions"] == 3
    assert m["kinds"] == {"answer": 2, "offtopic": 1}
    # recall@2: Q1 1/2, Q2 1/1; MRR: Q1 1, Q2 1/2; off-topic Q3 is not labelled.
    assert m["retrieval"]["labelled"] == 2
    assert m["retrieval"]["recall_at_k"] == pytest.approx(0.75)
    assert m["retrieval"]["mrr"] == pytest.approx(0.75)
    assert m["retrieval"]["ndcg_at_k"] == pytest.approx((NDCG_Q1 + NDCG_Q2) / 2)
    assert m["outcomes"] == pytest.approx(
        {"accepted": 1 / 3, "accepted_early": 0, "degraded": 1 / 3, "fallback": 1 / 3}
    )
    assert m["attempts"] == {"mean": pytest.approx(4 / 3), "max": 3}
    # 4 validated drafts, 3 passed; 3 reviewed drafts, 1 passed.
    assert m["gates"]["validation"] == {"drafts": 4, "pass_rate": 0.75, "failures": {"unknown_citation_url": 1}}
    assert m["gates"]["critic"]["pass_rate"] == pytest.approx(1 / 3)
    assert m["gates"]["critic"]["failures"] == {"low_relevance": 2, "drift": 1}
    # Precision: Q1 cites A, X (1/2), Q2 cites C (1/1). Source cards: Q1 shows A, Q2 none.
    # Accepted and citing an expected page: Q1 (accepted, cites A); Q2 cites C but was degraded.
    assert m["citations"] == {
        "precision": 0.75,
        "citing_answers": 2,
        "source_card_hit_rate": 0.5,
        "accepted_citing_expected": 0.5,
    }
    assert m["refusals"] == {
        "offtopic": 1,
        "offtopic_without_sources": 1.0,
        "answerable": 2,
        "answerable_turned_away": 0.0,
    }
    assert m["false_source_cards"] == 0
    assert m["must_mention"] == {"questions": 2, "rate": 0.5}
    # Linear-interpolated percentiles of 0.1, 0.2, 0.3: p50 0.2, p95 0.2 + 0.9 * 0.1.
    assert m["latency"]["question"] == pytest.approx({"p50": 0.2, "p95": 0.29})
    assert m["latency"]["stages"]["writer"] == pytest.approx({"p50": 0.125, "p95": 0.1925})
    # Retrieval: the first Research pass of each question (Q2's summed research stage is 0.04).
    assert m["latency"]["retrieval"] == pytest.approx({"p50": 0.01, "p95": 0.019})


def test_a_question_that_retrieved_nothing_scores_zero_not_missing() -> None:
    empty = FIXTURE[1].model_copy(update={"ranking": ()})
    m = compute_metrics([FIXTURE[0], empty], k=2)
    assert m["retrieval"]["recall_at_k"] == pytest.approx(0.25)
    assert m["retrieval"]["mrr"] == pytest.approx(0.5)


def test_sources_under_a_failed_gate_are_false_source_cards() -> None:
    leaked = FIXTURE[1].model_copy(update={"sources": (C,)})
    assert false_source_cards(leaked) == ["sources under an answer that failed critic"]
    assert compute_metrics([leaked], k=2)["false_source_cards"] == 1


def test_sources_outside_the_retrieved_set_are_false_source_cards() -> None:
    outside = FIXTURE[0].model_copy(update={"sources": (A, "https://evil.example/")})
    assert false_source_cards(outside) == ["URL outside the retrieved set: https://evil.example/"]


def test_off_topic_question_with_sources_breaks_the_refusal_rate() -> None:
    shown = FIXTURE[2].model_copy(update={"sources": (X,), "gates": PASSED, "outcome": "accepted"})
    assert compute_metrics([shown], k=2)["refusals"]["offtopic_without_sources"] == 0.0


class ScriptedGraph:
    """Streams a fixed run: Research, a rejected draft, Research again, the accepted draft."""

    def stream(self, input: Any, *, stream_mode: Any = None, output_keys: Any = None) -> Iterator[tuple[str, Any]]:
        first = [SearchResult(title="A", source_url=A, content="a")]
        retry = [SearchResult(title="B", source_url=B, content="b")]
        yield "updates", {"research": {"search_results": first}}
        yield "updates", {"writer": {"draft": "x"}}
        yield "updates", {"research": {"search_results": retry}}
        yield "updates", {"writer": {"draft": "y"}}
        yield "values", {"outcome": "accepted", "attempts": 2, "search_results": retry}


def test_retrieval_time_is_the_first_research_pass_and_its_ranking_the_first_ranking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = iter([0.0, 0.5, 2.0, 2.25, 4.0, 4.0])  # start, then one reading per update
    monkeypatch.setattr(runner.time, "perf_counter", lambda: next(clock))
    result = runner.run_one(ScriptedGraph(), EvalQuestion.model_validate({"question": "q", "expected_urls": [A]}))
    assert result.retrieval_seconds == 0.5
    assert result.stage_seconds == {"research": 0.75, "writer": 3.25}
    assert result.ranking == (A,) and result.retrieved == (B,)


def test_a_run_without_research_has_no_retrieval_time() -> None:
    m = compute_metrics([FIXTURE[0].model_copy(update={"retrieval_seconds": None})], k=2)
    assert m["latency"]["retrieval"] == {"p50": 0.0, "p95": 0.0}


# --- accepted means answered ---------------------------------------------------------------


def answer_result(question: str, outcome: str, answer: str, **fields: Any) -> QuestionResult:
    defaults: dict[str, Any] = {"expected_urls": (A,), "must_mention": ("--watch",), "cited": (A,), "sources": (A,)}
    return QuestionResult(question=question, outcome=outcome, answer=answer, **{**defaults, **fields})


def test_answer_scores_count_false_accepts_answered_card_precision_and_offtopic_fallback() -> None:
    from askai_graph.evaluation.answers import answer_scores

    results = [
        answer_result("answered", "accepted", "Run jest --watch."),
        answer_result("false accept", "accepted", "Jest can watch files.", sources=(A, X)),  # X shown, not cited
        answer_result("cites another page", "accepted", "Use --watch.", cited=(B,), sources=(B,)),
        answer_result("degraded", "degraded", "Use --watch.", sources=()),
        QuestionResult(question="off 1", kind="offtopic", outcome="fallback"),
        QuestionResult(question="off 2", kind="offtopic", outcome="degraded"),
    ]
    scores = answer_scores(results)
    assert (scores["false_accepts"], scores["accepted_with_must_mention"]) == (1, 3)
    assert scores["false_accept_questions"] == ["false accept"]
    assert scores["answered"] == pytest.approx(1 / 4)  # accepted AND expected page cited AND must_mention
    assert (scores["cards_shown"], scores["card_precision"]) == (4, pytest.approx(3 / 4))
    assert scores["offtopic_fallback"] == 0.5


def test_answering_cards_count_the_shown_cards_that_are_an_expected_page() -> None:
    from askai_graph.evaluation.answers import answer_scores

    results = [
        answer_result("right card", "accepted", "Run jest --watch."),
        answer_result("a cited card on another page", "accepted", "Use --watch.", cited=(A, B), sources=(A, B)),
        answer_result("no card", "degraded", "Use --watch.", sources=()),
        QuestionResult(question="off", kind="offtopic", outcome="accepted", sources=(X,), cited=(X,)),  # not labelled
    ]
    scores = answer_scores(results)
    assert scores["card_precision"] == 1.0  # every card is cited: it cannot tell a wrong card
    assert (scores["labelled_cards_shown"], scores["answering_cards"]) == (3, pytest.approx(2 / 3))


def test_a_labelled_answer_question_ending_in_fallback_is_a_false_fallback_beside_offtopic_fallback() -> None:
    from askai_graph.evaluation.answers import answer_scores
    from askai_graph.evaluation.report import answer_rows

    results = [
        answer_result("answered", "accepted", "Run jest --watch."),
        answer_result("refused though a page answers it", "fallback", ""),
        QuestionResult(question="off", kind="offtopic", outcome="fallback"),
    ]
    scores = answer_scores(results)
    assert (scores["false_fallbacks"], scores["false_fallback"]) == (1, 0.5)
    assert scores["false_fallback_questions"] == ["refused though a page answers it"]
    rows = dict(answer_rows({"answers": scores}))
    assert rows["off-topic ending fallback"] == "100.0%" and rows["false fallback (answerable)"] == "1 of 2 (50.0%)"


def test_answer_metrics_are_in_the_report_and_held_to_the_baseline() -> None:
    from askai_graph.evaluation.baseline import regressions

    metrics = compute_metrics([answer_result("a", "accepted", "Run --watch.")], k=6)
    worse = compute_metrics([answer_result("a", "accepted", "Watch files.")], k=6)
    assert metrics["answers"]["answered"] == 1.0
    found = regressions(worse, metrics)
    assert any(line.startswith("answers.answered") for line in found)
    assert any(line.startswith("answers.false_accept_rate") for line in found)
