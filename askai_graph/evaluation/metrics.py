"""Turn question results into the evaluation's metrics (pure functions, no I/O).

Definitions (each a share in [0, 1] unless it says otherwise):

- **retrieval** over *labelled* questions (not off-topic, with ``expected_urls``), on the
  first Research ranking: recall@k, MRR (reciprocal rank of the first expected page,
  no cutoff) and nDCG@k with binary gains, computed per question by ``ir-measures``
  (pytrec_eval) and averaged with 0 for a question that retrieved nothing;
- **outcomes**: the share of each outcome; **attempts**: drafts per question;
- **gates**: per drafted answer, each gate's pass rate and how often each failure code
  appeared;
- **citations**: *precision*, the mean share of an answer's cited URLs that are expected
  pages (labelled answers that cite anything); *source_card_hit_rate*, the share of
  labelled questions whose source cards include an expected page;
  *accepted_citing_expected*, the share of labelled questions whose answer was accepted
  (``accepted`` or ``accepted_early``) and cites at least one expected page: retrieval,
  Writer and both gates working together;
- **refusals**: the share of off-topic questions that ended without source cards (must be
  1), and of answerable (answer and catalog) questions that ended in fallback;
- **false_source_cards**: questions whose source cards sit under an answer that failed a
  gate, or name a URL outside the final retrieved set (must be 0);
- **must_mention**: the share of questions with ``must_mention`` terms whose shown answer
  (not a fallback) contains them all, case-insensitively;
- **answers** (``evaluation.answers``): false accepts, answered, card precision and
  off-topic questions ending in fallback: whether "accepted" means "answered";
- **evidence** (``evaluation.evidence``): *citation_support_rate*, the share of citing
  sentences of final drafts (any outcome but fallback) whose anchored passage holds their
  key terms and numbers, and *shown_support_rate*, the same over answers shown with
  cards; *anchor_accuracy*, the share of labelled questions whose answer shows cards
  and every ``must_mention`` term where a card's anchored passage holds them all;
- **followups** (``evaluation.answers``, only when the set has follow-up pairs): follow-up
  answered; the pairs count in no other metric;
- **context** (only when labelled answer questions have ``must_mention``): the share whose
  answering section is among the first ``CONTEXT_K`` sections of a model Writer's context
  (``evaluation.context``), from the first Research pass;
- **latency**: p50/p95 seconds per question, per stage, and of *retrieval* (the first
  Research pass: the question as asked, before any retry).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from askai_graph.evaluation.answers import answer_scores, followup_scores, mentions_all
from askai_graph.evaluation.context import CONTEXT_K
from askai_graph.evaluation.runner import QuestionResult

OUTCOMES = ("accepted", "accepted_early", "degraded", "fallback")
ACCEPTED = ("accepted", "accepted_early")
GATES = ("validation", "critic")
STAGE_ORDER = (
    "condense", "research", "writer", "validation", "critic",
    "accept", "accept_early", "degrade", "fallback", "source_gate",
)  # fmt: skip


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _labelled(result: QuestionResult) -> bool:
    return result.kind != "offtopic" and bool(result.expected_urls)


def retrieval_scores(results: Sequence[QuestionResult], k: int) -> dict[str, Any]:
    """Return recall@k, MRR and nDCG@k over the labelled questions (see the module doc)."""
    import ir_measures
    from ir_measures import RR, R, nDCG

    labelled = {str(i): result for i, result in enumerate(results) if _labelled(result)}
    qrels = [ir_measures.Qrel(qid, url, 1) for qid, result in labelled.items() for url in result.expected_urls]
    run = [
        ir_measures.ScoredDoc(qid, url, float(len(result.ranking) - rank))
        for qid, result in labelled.items()
        for rank, url in enumerate(result.ranking)
    ]
    names = {R @ k: "recall_at_k", RR: "mrr", nDCG @ k: "ndcg_at_k"}
    per_query: dict[str, dict[str, float]] = {name: {} for name in names.values()}
    if run:
        for metric in ir_measures.iter_calc(list(names), qrels, run):
            per_query[names[metric.measure]][metric.query_id] = float(metric.value)
    scores: dict[str, Any] = {"k": k, "labelled": len(labelled)}
    for name, values in per_query.items():
        scores[name] = _mean([values.get(qid, 0.0) for qid in labelled])
    return scores


def gate_scores(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Return each gate's pass rate over the drafts it judged, and its failure codes."""
    scores: dict[str, Any] = {}
    for gate in GATES:
        verdicts = [verdict for result in results for verdict in result.verdicts if verdict.gate == gate]
        codes = Counter(code for verdict in verdicts for code in verdict.codes)
        scores[gate] = {
            "drafts": len(verdicts),
            "pass_rate": _mean([1.0 if verdict.passed else 0.0 for verdict in verdicts]),
            "failures": dict(sorted(codes.items(), key=lambda item: (-item[1], item[0]))),
        }
    return scores


def false_source_cards(result: QuestionResult) -> list[str]:
    """Return why ``result``'s source cards break the promise (empty when they do not)."""
    if not result.sources:
        return []
    reasons = []
    failed = [gate for gate in GATES if result.gates.get(gate) != "passed"]
    if failed or result.outcome in ("degraded", "fallback"):
        reasons.append(f"sources under an answer that failed {', '.join(failed) or result.outcome}")
    outside = [url for url in (*result.sources, *result.cited) if url not in result.retrieved]
    if outside:
        reasons.append(f"URL outside the retrieved set: {outside[0]}")
    return reasons


def evidence_scores(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Return the citation support rate and the anchor accuracy (see the module doc)."""
    supports = [supported for result in results for supported in result.citation_support]
    shown = [supported for result in results if result.sources for supported in result.citation_support]
    judged = [result.anchor_holds_mention for result in results if result.anchor_holds_mention is not None]
    return {
        "citing_sentences": len(supports),
        "citation_support_rate": _mean([1.0 if supported else 0.0 for supported in supports]),
        "shown_sentences": len(shown),
        "shown_support_rate": _mean([1.0 if supported else 0.0 for supported in shown]),
        "anchor_judged": len(judged),
        "anchor_accuracy": _mean([1.0 if held else 0.0 for held in judged]),
    }


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0}
    array = np.asarray(values, dtype=float)
    return {"p50": float(np.percentile(array, 50)), "p95": float(np.percentile(array, 95))}


def _stage_rank(stage: str) -> tuple[int, str]:
    # Pipeline order reads like the diagram; unknown stages (a custom graph's) go last.
    return (STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER), stage)


def context_scores(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Return how many judged questions had their answering section in a model Writer's first sections."""
    judged = [result for result in results if result.context_judged]
    within = sum(1 for r in judged if r.context_rank is not None and r.context_rank < CONTEXT_K)
    return {
        "k": CONTEXT_K,
        "judged": len(judged),
        "in_first_k_count": within,
        "in_first_k": within / len(judged) if judged else 0.0,
    }


def compute_metrics(results: Sequence[QuestionResult], *, k: int) -> dict[str, Any]:
    """Return every metric of the evaluation (see the module doc for definitions)."""
    pairs = [result for result in results if result.kind == "followup"]
    results = [result for result in results if result.kind != "followup"]
    n = len(results)
    outcome_counts = Counter(result.outcome for result in results)
    labelled = [result for result in results if _labelled(result)]
    citing = [result for result in labelled if result.cited]
    offtopic = [result for result in results if result.kind == "offtopic"]
    answerable = [result for result in results if result.kind != "offtopic"]
    mentioning = [result for result in results if result.must_mention]
    false_cards = {result.question: reasons for result in results if (reasons := false_source_cards(result))}
    stages: dict[str, list[float]] = {}
    for result in results:
        for stage, seconds in result.stage_seconds.items():
            stages.setdefault(stage, []).append(seconds)
    extra: dict[str, Any] = {}
    if pairs:
        extra["followups"] = followup_scores(pairs)
    if any(result.context_judged for result in results):
        extra["context"] = context_scores(results)
    return {
        "questions": n,
        "kinds": dict(sorted(Counter(result.kind for result in results).items())),
        "retrieval": retrieval_scores(results, k),
        "outcomes": {outcome: outcome_counts.get(outcome, 0) / n if n else 0.0 for outcome in OUTCOMES},
        "outcome_counts": {outcome: outcome_counts.get(outcome, 0) for outcome in OUTCOMES},
        "attempts": {
            "mean": _mean([float(result.attempts) for result in results]),
            "max": max((result.attempts for result in results), default=0),
        },
        "gates": gate_scores(results),
        "citations": {
            "precision": _mean([len(set(r.cited) & set(r.expected_urls)) / len(set(r.cited)) for r in citing]),
            "citing_answers": len(citing),
            "source_card_hit_rate": _mean([1.0 if set(r.sources) & set(r.expected_urls) else 0.0 for r in labelled]),
            "accepted_citing_expected": _mean(
                [1.0 if r.outcome in ACCEPTED and set(r.cited) & set(r.expected_urls) else 0.0 for r in labelled]
            ),
        },
        "refusals": {
            "offtopic": len(offtopic),
            "offtopic_without_sources": _mean([0.0 if r.sources else 1.0 for r in offtopic]) if offtopic else 1.0,
            "answerable": len(answerable),
            "answerable_turned_away": _mean([1.0 if r.outcome == "fallback" else 0.0 for r in answerable]),
        },
        "answers": answer_scores(results),
        "false_source_cards": len(false_cards),
        "false_source_card_questions": false_cards,
        "must_mention": {
            "questions": len(mentioning),
            "rate": _mean([1.0 if mentions_all(r) else 0.0 for r in mentioning]) if mentioning else 1.0,
        },
        "evidence": evidence_scores(results),
        **extra,
        "latency": {
            "question": _percentiles([result.seconds for result in results]),
            "retrieval": _percentiles([r.retrieval_seconds for r in results if r.retrieval_seconds is not None]),
            "stages": {stage: _percentiles(stages[stage]) for stage in sorted(stages, key=_stage_rank)},
        },
    }
