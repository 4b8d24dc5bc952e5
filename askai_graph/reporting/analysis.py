"""What the run log says about a site: outcomes over time, coverage gaps, unused pages, thumbs-down.

Pure functions over ``RunRecord`` lists, no I/O.

- **Outcomes over time**: answers per UTC day and outcome.
- **Coverage gaps** and **retrieved, never cited**: the grouping the dashboard shows
  too, so it lives with the run log (``stores.runlog.coverage``).
- **Searches with no result**: what readers searched for and found nothing, beside the gaps.
- **Thumbs-down**: answers readers rated down, newest first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from askai_graph.evaluation.metrics import OUTCOMES
from askai_graph.stores.runlog import RunRecord
from askai_graph.stores.runlog.coverage import (
    DEFAULT_MIN_RETRIEVED,
    DEFAULT_SIMILARITY,
    GapGroup,
    group_gaps,
    never_cited,
)


@dataclass
class SiteReport:
    """Everything ``askai report`` shows."""

    runs: int
    by_day: dict[str, dict[str, int]]
    """UTC day (YYYY-MM-DD) -> outcome -> answers."""
    outcome_totals: dict[str, int]
    gap_groups: list[GapGroup]
    never_cited: list[tuple[str, int]]
    """(URL, times retrieved) of pages retrieved often and never cited, most retrieved first."""
    thumbs_down: list[RunRecord]
    thumbs_up: int
    unfound_searches: list[tuple[str, int]] = field(default_factory=list)
    """(query as stored, times searched) of the searches that found nothing, most frequent first."""
    searched_then_fallback: list[tuple[str, int]] = field(default_factory=list)
    """(question, pages its search found) of the questions asked from a search that ended in fallback, newest first."""


def outcomes_by_day(runs: Sequence[RunRecord]) -> dict[str, dict[str, int]]:
    """Count answers per UTC day and outcome, days in order."""
    days: dict[str, Counter[str]] = {}
    for run in runs:
        days.setdefault(run.created_at.date().isoformat(), Counter())[run.outcome] += 1
    return {day: {outcome: counts.get(outcome, 0) for outcome in OUTCOMES} for day, counts in sorted(days.items())}


def analyse(
    runs: Sequence[RunRecord],
    *,
    similarity: float = DEFAULT_SIMILARITY,
    min_retrieved: int = DEFAULT_MIN_RETRIEVED,
    unfound_searches: Sequence[tuple[str, int]] = (),
    searched_then_fallback: Sequence[tuple[str, int]] = (),
) -> SiteReport:
    """Build the site report from the run log's records (and its searches that found nothing or led to a fallback)."""
    totals = Counter(run.outcome for run in runs)
    return SiteReport(
        runs=len(runs),
        by_day=outcomes_by_day(runs),
        outcome_totals={outcome: totals.get(outcome, 0) for outcome in OUTCOMES},
        gap_groups=group_gaps(runs, similarity),
        never_cited=never_cited(runs, min_retrieved),
        thumbs_down=sorted((run for run in runs if run.rating == "down"), key=lambda r: r.created_at, reverse=True),
        thumbs_up=sum(1 for run in runs if run.rating == "up"),
        unfound_searches=list(unfound_searches),
        searched_then_fallback=list(searched_then_fallback),
    )
