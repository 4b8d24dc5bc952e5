"""What the run log says about a site: outcomes over time, coverage gaps, unused pages, thumbs-down.

Pure functions over ``RunRecord`` lists, no I/O.

- **Outcomes over time**: answers per UTC day and outcome.
- **Coverage gaps**: the questions that ended in fallback or degradation, grouped by
  similar question (leader clustering on the offline question embedding: a question
  joins the first group whose first question has cosine similarity at least
  ``similarity``), each group with how often each gate failed, its failure codes and
  the Critic's gaps: what readers ask that the site's pages do not answer.
- **Retrieved, never cited**: pages Research returned at least ``min_retrieved`` times
  that no answer ever cited (their wording attracts questions they cannot answer).
- **Thumbs-down**: answers readers rated down, newest first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from askai_graph.evaluation.metrics import OUTCOMES
from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings
from askai_graph.stores.runlog import RunRecord

UNANSWERED = ("degraded", "fallback")
DEFAULT_SIMILARITY = 0.5
DEFAULT_MIN_RETRIEVED = 3


@dataclass
class GapGroup:
    """Similar questions that the site could not answer well."""

    questions: list[str] = field(default_factory=list)
    """Every question in the group, as asked (repeats included), first one first."""
    outcomes: Counter[str] = field(default_factory=Counter)
    failed_gates: Counter[str] = field(default_factory=Counter)
    failure_codes: Counter[str] = field(default_factory=Counter)
    gaps: Counter[str] = field(default_factory=Counter)

    @property
    def label(self) -> str:
        """The group's first question."""
        return self.questions[0]


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


def outcomes_by_day(runs: Sequence[RunRecord]) -> dict[str, dict[str, int]]:
    """Count answers per UTC day and outcome, days in order."""
    days: dict[str, Counter[str]] = {}
    for run in runs:
        days.setdefault(run.created_at.date().isoformat(), Counter())[run.outcome] += 1
    return {day: {outcome: counts.get(outcome, 0) for outcome in OUTCOMES} for day, counts in sorted(days.items())}


def group_gaps(runs: Sequence[RunRecord], similarity: float = DEFAULT_SIMILARITY) -> list[GapGroup]:
    """Group the unanswered questions by similar question, largest group first."""
    unanswered = [run for run in runs if run.outcome in UNANSWERED]
    if not unanswered:
        return []
    vectors = np.asarray(LexicalEmbeddings().embed_documents([r.standalone_question or r.question for r in unanswered]))
    leaders: list[int] = []
    groups: list[GapGroup] = []
    for index, run in enumerate(unanswered):
        scores = [float(vectors[index] @ vectors[leader]) for leader in leaders]
        best = int(np.argmax(scores)) if scores else -1
        if best < 0 or scores[best] < similarity:
            leaders.append(index)
            groups.append(GapGroup())
            best = len(groups) - 1
        group = groups[best]
        group.questions.append(run.question)
        group.outcomes[run.outcome] += 1
        group.failed_gates.update(gate for gate, status in run.gates.items() if status == "failed")
        group.failure_codes.update(run.failure_codes)
        group.gaps.update(run.gaps)
    return sorted(groups, key=lambda g: -len(g.questions))


def never_cited(runs: Sequence[RunRecord], min_retrieved: int = DEFAULT_MIN_RETRIEVED) -> list[tuple[str, int]]:
    """Return pages retrieved at least ``min_retrieved`` times and never cited."""
    retrieved = Counter(url for run in runs for url in set(run.retrieved_urls))
    cited = {url for run in runs for url in run.cited_urls}
    found = [(url, n) for url, n in retrieved.items() if n >= min_retrieved and url not in cited]
    return sorted(found, key=lambda item: (-item[1], item[0]))


def analyse(
    runs: Sequence[RunRecord], *, similarity: float = DEFAULT_SIMILARITY, min_retrieved: int = DEFAULT_MIN_RETRIEVED
) -> SiteReport:
    """Build the site report from the run log's records."""
    totals = Counter(run.outcome for run in runs)
    return SiteReport(
        runs=len(runs),
        by_day=outcomes_by_day(runs),
        outcome_totals={outcome: totals.get(outcome, 0) for outcome in OUTCOMES},
        gap_groups=group_gaps(runs, similarity),
        never_cited=never_cited(runs, min_retrieved),
        thumbs_down=sorted((run for run in runs if run.rating == "down"), key=lambda r: r.created_at, reverse=True),
        thumbs_up=sum(1 for run in runs if run.rating == "up"),
    )
