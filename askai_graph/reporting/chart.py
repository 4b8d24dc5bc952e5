"""The site report's PNG: answers per day by outcome (stacked), and the largest coverage gaps."""

from __future__ import annotations

from pathlib import Path

from askai_graph.evaluation.chart import pyplot
from askai_graph.reporting.analysis import SiteReport

COLORS = {"accepted": "#2e7d32", "accepted_early": "#66bb6a", "degraded": "#f9a825", "fallback": "#c62828"}


def write_report_chart(report: SiteReport, path: Path, *, groups: int = 8) -> Path:
    """Draw outcomes per day and the biggest gap groups into ``path`` (needs matplotlib)."""
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
    days = list(report.by_day)
    bottom = [0] * len(days)
    for outcome, color in COLORS.items():
        counts = [report.by_day[day][outcome] for day in days]
        left.bar(days, counts, bottom=bottom, color=color, label=outcome)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    left.set_title("Answers per day")
    left.legend(fontsize=8)
    left.tick_params(axis="x", labelrotation=45, labelsize=8)
    top = report.gap_groups[:groups]
    if top:
        labels = [g.label if len(g.label) <= 40 else g.label[:39] + "…" for g in top]
        right.barh(labels[::-1], [len(g.questions) for g in top][::-1], color="#c62828")
    else:
        right.text(0.5, 0.5, "no coverage gaps", ha="center", va="center")
    right.set_title("Coverage gaps (questions not accepted)")
    right.set_xlabel("times asked")
    from matplotlib.ticker import MaxNLocator

    # Counts of answers: whole numbers on both axes.
    left.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
