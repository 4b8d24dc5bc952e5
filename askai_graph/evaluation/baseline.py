"""Compare a report with an earlier one (``--baseline``) and name every regression.

Quality metrics are compared with an absolute tolerance (a share may drop by at most
``tolerance``); the promise metrics are never tolerated: any false source card, or an
off-topic question that shows source cards, is a regression whatever the baseline says.
Latency is not compared: it measures the machine as much as the code (the ``bench/``
scripts measure it against a baseline taken in the same run).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_TOLERANCE = 0.02

HIGHER_IS_BETTER = (
    ("retrieval", "recall_at_k"),
    ("retrieval", "mrr"),
    ("retrieval", "ndcg_at_k"),
    ("citations", "precision"),
    ("citations", "source_card_hit_rate"),
    ("citations", "accepted_citing_expected"),
    ("must_mention", "rate"),
    ("answers", "answered"),
    ("answers", "card_precision"),
    ("answers", "answering_cards"),
    ("answers", "offtopic_fallback"),
    ("followups", "answered"),
    ("context", "in_first_k"),
    ("gates", "validation", "pass_rate"),
    ("gates", "critic", "pass_rate"),
)
LOWER_IS_BETTER = (
    ("outcomes", "fallback"),
    ("outcomes", "degraded"),
    ("refusals", "answerable_turned_away"),
    ("answers", "false_accept_rate"),
    ("answers", "false_fallback"),
)


def _get(metrics: Mapping[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = metrics
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return float(value) if isinstance(value, int | float) else None


def invariant_failures(metrics: Mapping[str, Any]) -> list[str]:
    """Return the promise checks ``metrics`` fails (they hold for any report, baseline or not)."""
    failures = []
    if metrics["false_source_cards"]:
        failures.append(f"false source cards: {metrics['false_source_cards']} (must be 0)")
    if metrics["refusals"]["offtopic_without_sources"] < 1.0:
        share = metrics["refusals"]["offtopic_without_sources"]
        failures.append(f"off-topic questions without sources: {share:.1%} (must be 100%)")
    return failures


def regressions(
    metrics: Mapping[str, Any], baseline: Mapping[str, Any], tolerance: float = DEFAULT_TOLERANCE
) -> list[str]:
    """Return one line per metric that is worse than ``baseline`` beyond ``tolerance``."""
    found = []
    for path, sign in [(path, 1.0) for path in HIGHER_IS_BETTER] + [(path, -1.0) for path in LOWER_IS_BETTER]:
        now, before = _get(metrics, path), _get(baseline, path)
        if now is None or before is None:
            continue
        if sign * (now - before) < -tolerance:
            found.append(f"{'.'.join(path)}: {before:.3f} -> {now:.3f} (tolerance {tolerance:.3f})")
    return found + invariant_failures(metrics)


def changed_outcomes(report: Mapping[str, Any], baseline: Mapping[str, Any]) -> list[str]:
    """Return the questions whose outcome differs from the baseline's (context for a regression)."""
    before = {item["question"]: item["outcome"] for item in baseline.get("results", [])}
    return [
        f"{item['question']!r}: {before[item['question']]} -> {item['outcome']}"
        for item in report.get("results", [])
        if item["question"] in before and before[item["question"]] != item["outcome"]
    ]
