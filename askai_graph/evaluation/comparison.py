"""Set several runs of one question set side by side (``askai eval --retrieval bm25,dense,hybrid``).

One row per run, the figures a retrieval change is judged by: how well the expected pages
rank (recall@k, MRR, nDCG@k), how often that carries through to an accepted answer citing
one of them, what retrieval costs per question, and the promise (false source cards must
stay 0 whatever retrieves).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COLUMNS = (
    "retrieval", "recall@{k}", "MRR", "nDCG@{k}", "accepted & cites expected", "answered",
    "false accepts", "card precision", "answering cards", "off-topic fallback", "false fallback",
    "follow-up answered", "section in Writer's first 5", "retrieval p50", "retrieval p95", "false source cards",
)  # fmt: skip


def comparison_rows(metrics_by_run: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Return the header and one row of figures per run, in the order given."""
    k = next(iter(metrics_by_run.values()))["retrieval"]["k"] if metrics_by_run else 0
    header = [column.format(k=k) for column in COLUMNS]
    rows = []
    for name, metrics in metrics_by_run.items():
        retrieval, latency = metrics["retrieval"], metrics["latency"]["retrieval"]
        rows.append(
            [
                name,
                f"{retrieval['recall_at_k']:.3f}",
                f"{retrieval['mrr']:.3f}",
                f"{retrieval['ndcg_at_k']:.3f}",
                f"{metrics['citations']['accepted_citing_expected']:.1%}",
                *_answer_cells(metrics),
                *_followup_context_cells(metrics),
                f"{latency['p50'] * 1000:.1f} ms",
                f"{latency['p95'] * 1000:.1f} ms",
                str(metrics["false_source_cards"]),
            ]
        )
    return header, rows


def _followup_context_cells(metrics: Mapping[str, Any]) -> list[str]:
    followups, context = metrics.get("followups"), metrics.get("context")  # absent when not measured
    return [
        f"{followups['answered_count']}/{followups['pairs']} ({followups['answered']:.1%})" if followups else "-",
        f"{context['in_first_k_count']}/{context['judged']} ({context['in_first_k']:.1%})" if context else "-",
    ]


def _answer_cells(metrics: Mapping[str, Any]) -> list[str]:
    answers = metrics.get("answers")
    if answers is None:  # a report made before these metrics existed
        return ["-"] * 6
    return [
        f"{answers['answered']:.1%}",
        f"{answers['false_accepts']}/{answers['accepted_with_must_mention']} ({answers['false_accept_rate']:.1%})",
        f"{answers['card_precision']:.3f}",
        f"{answers['answering_cards']:.3f}" if "answering_cards" in answers else "-",
        f"{answers['offtopic_fallback']:.0%}",
        f"{answers['false_fallback']:.0%}" if "false_fallback" in answers else "-",
    ]


def render_comparison_table(metrics_by_run: Mapping[str, Mapping[str, Any]]) -> str:
    """Return the comparison as aligned plain text (the terminal)."""
    header, rows = comparison_rows(metrics_by_run)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def render_comparison_markdown(metrics_by_run: Mapping[str, Mapping[str, Any]], *, title: str) -> str:
    """Return ``comparison.md``: a heading naming the question set, and the table."""
    header, rows = comparison_rows(metrics_by_run)
    questions = next(iter(metrics_by_run.values()))["questions"] if metrics_by_run else 0
    labelled = next(iter(metrics_by_run.values()))["retrieval"]["labelled"] if metrics_by_run else 0
    lines = [
        f"# askai eval: {title}",
        "",
        f"{questions} questions, {labelled} with expected pages. Retrieval latency is the first Research pass "
        "per question (the question as asked).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
