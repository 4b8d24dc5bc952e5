"""The eval's evidence figures: citation support rate and anchor accuracy, from each run's citations."""

from __future__ import annotations

from askai_graph import build_graph
from askai_graph.evaluation.dataset import EvalQuestion
from askai_graph.evaluation.evidence import anchor_holds, is_supported, sentence_support
from askai_graph.evaluation.metrics import evidence_scores
from askai_graph.evaluation.report import summary_rows
from askai_graph.evaluation.runner import QuestionResult, run_one
from askai_graph.evidence.citations import Citation

PAGE = "https://docs.example/bm25/"


def citation(sentence: str, passage: str, support: float, url: str = PAGE) -> Citation:
    return Citation(url=url, sentence=sentence, passage=passage, quote=passage[:40], support=support)


def test_a_sentence_is_supported_when_its_passage_holds_its_terms_and_numbers() -> None:
    assert is_supported(citation("k1 is usually 1.2 to 2.0.", "Values between 1.2 and 2.0 are common for k1.", 1.0))


def test_a_number_its_passage_does_not_state_makes_a_sentence_unsupported() -> None:
    assert not is_supported(citation("k1 is usually 1.5 to 2.0.", "Values between 1.2 and 2.0 are common for k1.", 1.0))


def test_a_sentence_sharing_too_few_terms_with_its_passage_is_unsupported() -> None:
    assert not is_supported(citation("BM25 was invented at City University.", "BM25 ranks documents.", 0.4))


def test_a_card_anchored_without_a_sentence_is_not_a_citing_sentence() -> None:
    bare, citing = citation("", "BM25 ranks documents.", 0.0), citation("BM25 ranks.", "BM25 ranks.", 1)
    assert sentence_support([bare, citing]) == (True,)


def test_the_anchor_is_accurate_when_the_cards_passage_holds_every_must_mention_term() -> None:
    cards = [PAGE]
    right = [citation("k1 saturates.", "## Parameters\n\nk1 saturates term frequency; b normalises.", 1.0)]
    wrong = [citation("BM25 ranks.", "## Overview\n\nBM25 ranks documents.", 1.0)]
    assert anchor_holds(right, cards, ["k1", "b"]) and not anchor_holds(wrong, cards, ["k1"])


def test_the_figures_count_sentences_and_judged_questions_only() -> None:
    results = [
        QuestionResult(question="a", outcome="accepted", citation_support=(True, False, True), sources=(PAGE,)),
        QuestionResult(question="b", outcome="degraded", citation_support=(False,), anchor_holds_mention=False),
        QuestionResult(question="c", outcome="accepted", sources=(PAGE,), anchor_holds_mention=True),
        QuestionResult(question="d", outcome="fallback"),
    ]
    assert evidence_scores(results) == {
        "citing_sentences": 4,
        "citation_support_rate": 0.5,
        "shown_sentences": 3,
        "shown_support_rate": 2 / 3,
        "anchor_judged": 2,
        "anchor_accuracy": 0.5,
    }


def test_a_run_of_the_sample_site_records_its_evidence_and_the_report_shows_it() -> None:
    item = EvalQuestion(question="What do the k1 and b parameters control in BM25?", must_mention=["k1"])  # type: ignore[arg-type]
    result = run_one(build_graph(), item)
    assert result.outcome == "accepted" and result.citation_support == (True,) and result.anchor_holds_mention
    rows = dict(summary_rows_for([result]))
    assert rows["citation support rate"] == "100.0% of 1 sentences"
    assert rows["anchor accuracy"] == "100.0% of 1 questions"


def summary_rows_for(results: list[QuestionResult]) -> list[tuple[str, str]]:
    from askai_graph.evaluation.metrics import compute_metrics

    return summary_rows(compute_metrics(results, k=5))
