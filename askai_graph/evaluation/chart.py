"""The evaluation's PNG chart: outcomes, and gate failures by code (matplotlib, optional).

matplotlib is the ``charts`` extra, so a plain install stays light; without it the
report still has its JSON and Markdown, and the CLI says how to get the chart.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

CHARTS_HINT = "the PNG chart needs matplotlib: pip install 'askai-graph[charts]'"


class ChartsUnavailable(RuntimeError):
    """matplotlib is not installed."""


def pyplot() -> Any:
    """Return ``matplotlib.pyplot`` on the file-only Agg backend, or raise ``ChartsUnavailable``."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ChartsUnavailable(CHARTS_HINT) from exc
    matplotlib.use("Agg")  # no display: draw to files only
    import matplotlib.pyplot as plt

    return plt


def write_eval_chart(metrics: Mapping[str, Any], path: Path) -> Path:
    """Draw outcome counts and gate failure codes side by side into ``path``."""
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    outcomes = metrics["outcome_counts"]
    colors = {"accepted": "#2e7d32", "accepted_early": "#66bb6a", "degraded": "#f9a825", "fallback": "#c62828"}
    left.bar(list(outcomes), list(outcomes.values()), color=[colors[name] for name in outcomes])
    left.set_title(f"Outcomes ({metrics['questions']} questions)")
    left.set_ylabel("questions")
    labels, counts = [], []
    for gate, scores in metrics["gates"].items():
        for code, count in scores["failures"].items():
            labels.append(f"{gate}: {code}")
            counts.append(count)
    if labels:
        right.barh(labels[::-1], counts[::-1], color="#5c6bc0")
    else:
        right.text(0.5, 0.5, "no gate failures", ha="center", va="center")
    right.set_title("Gate failures by code (per draft)")
    right.set_xlabel("drafts")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
