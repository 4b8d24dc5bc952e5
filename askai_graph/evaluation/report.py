"""Render an evaluation report: the JSON document, the terminal table and Markdown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from askai_graph.evaluation.metrics import compute_metrics
from askai_graph.evaluation.runner import QuestionResult


def build_report(
    results: Sequence[QuestionResult], *, k: int, config: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Return the report document: when, with what, the metrics, and every question's result."""
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": dict(config or {}),
        "metrics": compute_metrics(results, k=k),
        "results": [result.model_dump(mode="json") for result in results if result.kind != "followup"],
        **(
            {"followup_results": [result.model_dump(mode="json") for result in pairs]}
            if (pairs := [result for result in results if result.kind == "followup"])
            else {}
        ),
    }


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _p50_p95(percentiles: Mapping[str, float]) -> str:
    return f"p50 {_ms(percentiles['p50'])}, p95 {_ms(percentiles['p95'])}"


def summary_rows(metrics: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return the headline figures as (label, value) rows."""
    retrieval, citations, refusals = metrics["retrieval"], metrics["citations"], metrics["refusals"]
    k = retrieval["k"]
    rows = [
        ("questions", f"{metrics['questions']} ({', '.join(f'{n} {kind}' for kind, n in metrics['kinds'].items())})"),
        (f"recall@{k}", f"{retrieval['recall_at_k']:.3f}"),
        ("MRR", f"{retrieval['mrr']:.3f}"),
        (f"nDCG@{k}", f"{retrieval['ndcg_at_k']:.3f}"),
    ]
    rows += [(f"outcome {name}", _pct(share)) for name, share in metrics["outcomes"].items()]
    rows += [
        (f"{gate} pass rate", f"{_pct(s['pass_rate'])} of {s['drafts']} drafts") for gate, s in metrics["gates"].items()
    ]
    rows += [
        ("attempts per question", f"{metrics['attempts']['mean']:.2f} (max {metrics['attempts']['max']})"),
        ("citation precision", f"{citations['precision']:.3f} ({citations['citing_answers']} citing answers)"),
        ("source cards with an expected page", _pct(citations["source_card_hit_rate"])),
        ("accepted, cites an expected page", _pct(citations["accepted_citing_expected"])),
        ("off-topic without sources", f"{_pct(refusals['offtopic_without_sources'])} (must be 100%)"),
        ("answerable turned away", _pct(refusals["answerable_turned_away"])),
        ("false source cards", f"{metrics['false_source_cards']} (must be 0)"),
        ("must_mention satisfied", _pct(metrics["must_mention"]["rate"])),
        *answer_rows(metrics),
        *followup_context_rows(metrics),
        *evidence_rows(metrics),
        ("latency per question", _p50_p95(metrics["latency"]["question"])),
        ("retrieval per question", _p50_p95(metrics["latency"]["retrieval"])),
    ]
    return rows


def evidence_rows(metrics: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return the cards' evidence rows (absent from reports made before them)."""
    evidence = metrics.get("evidence")
    if evidence is None:
        return []
    support, sentences = evidence["citation_support_rate"], evidence["citing_sentences"]
    return [
        ("citation support rate", f"{_pct(support)} of {sentences} sentences"),
        ("  under cards shown", f"{_pct(evidence['shown_support_rate'])} of {evidence['shown_sentences']} sentences"),
        ("anchor accuracy", f"{_pct(evidence['anchor_accuracy'])} of {evidence['anchor_judged']} questions"),
    ]


def followup_context_rows(metrics: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return follow-up answered and the model Writer's context recall (absent when not measured)."""
    rows = []
    if followups := metrics.get("followups"):
        rows.append(
            (
                "follow-up answered",
                f"{followups['answered_count']} of {followups['pairs']} ({_pct(followups['answered'])})",
            )
        )
    if context := metrics.get("context"):
        rows.append(
            (
                f"answering section in the Writer's first {context['k']}",
                f"{context['in_first_k_count']} of {context['judged']} ({_pct(context['in_first_k'])})",
            )
        )
    return rows


def answer_rows(metrics: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return the rows that say whether accepted means answered (absent from reports made before them)."""
    answers = metrics.get("answers")
    if answers is None:
        return []
    return [
        ("answered", _pct(answers["answered"])),
        (
            "false accepts",
            f"{answers['false_accepts']} of {answers['accepted_with_must_mention']} "
            f"({_pct(answers['false_accept_rate'])})",
        ),
        ("card precision", f"{answers['card_precision']:.3f} of {answers['cards_shown']} cards shown"),
        *(
            [("answering cards", f"{answers['answering_cards']:.3f} of {answers['labelled_cards_shown']} cards shown")]
            if "answering_cards" in answers
            else []
        ),
        ("off-topic ending fallback", _pct(answers["offtopic_fallback"])),
        *(
            [
                (
                    "false fallback (answerable)",
                    f"{answers['false_fallbacks']} of {answers['labelled']} ({_pct(answers['false_fallback'])})",
                )
            ]
            if "false_fallback" in answers
            else []
        ),
    ]


def failure_rows(metrics: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return (gate: code, count) rows of every gate failure."""
    return [
        (f"{gate}: {code}", str(count))
        for gate, scores in metrics["gates"].items()
        for code, count in scores["failures"].items()
    ]


def render_table(metrics: Mapping[str, Any]) -> str:
    """Return the plain-text table printed on the terminal."""
    rows = summary_rows(metrics) + [("", "")] + (failure_rows(metrics) or [("gate failures", "none")])
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" if label else "" for label, value in rows]
    stages = metrics["latency"]["stages"]
    if stages:
        lines += ["", "stage latency: " + ", ".join(f"{name} p50 {_ms(s['p50'])}" for name, s in stages.items())]
    return "\n".join(lines)


def render_markdown(report: Mapping[str, Any], *, chart: str | None = None) -> str:
    """Return ``report.md``: headline table, gate failures, stage latency, questions needing care."""
    metrics = report["metrics"]
    lines = ["# askai eval report", "", f"Run {report['created']}.", ""]
    if report.get("config"):
        lines += [", ".join(f"{key}: `{value}`" for key, value in report["config"].items()), ""]
    if chart:
        lines += [f"![Outcomes and gate failures]({chart})", ""]
    lines += ["| metric | value |", "|---|---|"]
    lines += [f"| {label} | {value} |" for label, value in summary_rows(metrics)]
    lines += ["", "## Gate failures (per draft)", ""]
    failures = failure_rows(metrics)
    lines += (
        (["| gate: code | drafts |", "|---|---|"] + [f"| {a} | {b} |" for a, b in failures]) if failures else ["None."]
    )
    lines += ["", "## Stage latency", "", "| stage | p50 | p95 |", "|---|---|---|"]
    lines += [f"| {name} | {_ms(s['p50'])} | {_ms(s['p95'])} |" for name, s in metrics["latency"]["stages"].items()]
    troubled = [
        item for item in report["results"] if item["outcome"] in ("degraded", "fallback") and item["kind"] != "offtopic"
    ]
    lines += ["", "## Answerable questions that were not accepted", ""]
    if troubled:
        lines += ["| question | outcome | failed | gaps |", "|---|---|---|---|"]
        for item in troubled:
            failed = ", ".join(f"{gate}" for gate, status in item["gates"].items() if status == "failed") or "-"
            lines.append(
                f"| {_cell(item['question'])} | {item['outcome']} | {failed} | {_cell('; '.join(item['gaps']))} |"
            )
    else:
        lines.append("None.")
    if metrics["false_source_card_questions"]:
        lines += ["", "## False source cards", ""]
        lines += [f"- {_cell(q)}: {'; '.join(why)}" for q, why in metrics["false_source_card_questions"].items()]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())[:160]
