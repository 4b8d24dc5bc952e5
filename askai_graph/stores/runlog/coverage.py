"""What the run log says about the site's coverage: gaps grouped by topic, and how pages are used.

Pure functions over ``RunRecord`` lists (and URL lists), no I/O: ``askai report`` and
the dashboard (``/admin/gaps``, ``/admin/pages``) read the same grouping.

- **Coverage gaps**: the questions that ended in fallback or degradation, grouped by
  similar question (leader clustering on the offline question embedding: a question
  joins the first group whose first question has cosine similarity at least
  ``similarity``), each group with how often each gate failed, its failure codes, the
  Critic's gaps, the pages Research retrieved for it and a suggested page to write.
  A group whose every question ended in fallback with no page retrieved (the retrieval
  gate failed: nothing passed the relevance floor) is **off-topic** (a poem, a refund,
  a capital city): the site is not about it, and no page would close it. The views list
  those apart from the real gaps.
- **Searches with no result**: listed beside the questions (``SqlRunLog.unfound_searches``:
  each distinct masked query and how often it was searched), most frequent first.
- **Searched, then asked, ended in fallback**: the questions asked from a launcher search
  (``RunRecord.search_id``) that got no answer, each with how many pages its search found
  (``SqlRunLog.searched_then_fallback``), newest first. The search's text is the
  question's, so it is shown once, and is not counted among the searches with no result.
- **Page use**: how many answers cited each page, and the pages Research returned at
  least ``min_retrieved`` times that no answer ever cited (their wording attracts
  questions they cannot answer).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings
from askai_graph.stores.runlog.record import RunRecord
from askai_graph.text.terms import STOP_WORDS, stem, words

UNANSWERED = ("degraded", "fallback")
UNFOUND_SEARCHES = 50
"""Distinct searches with no result a coverage view lists at most (the most frequent)."""
DEFAULT_SIMILARITY = 0.5
DEFAULT_MIN_RETRIEVED = 3


@dataclass
class GapGroup:
    """Similar questions that the site could not answer well."""

    questions: list[str] = field(default_factory=list)
    """Every question in the group, as stored (masked; repeats included), first one first."""
    outcomes: Counter[str] = field(default_factory=Counter)
    failed_gates: Counter[str] = field(default_factory=Counter)
    failure_codes: Counter[str] = field(default_factory=Counter)
    gaps: Counter[str] = field(default_factory=Counter)
    retrieved: Counter[str] = field(default_factory=Counter)
    """Page URL -> questions of the group that retrieved it."""
    run_ids: list[str] = field(default_factory=list)
    """The runs of the group, in the order of ``questions``."""
    unmatched: int = 0
    """Questions of the group that ended in fallback with no page retrieved (``unmatched``)."""

    @property
    def off_topic(self) -> bool:
        """Whether no question of the group matched any page of the site: off-topic, not a gap."""
        return self.unmatched == len(self.questions) > 0

    @property
    def label(self) -> str:
        """The group's first question."""
        return self.questions[0]

    @property
    def suggested_page(self) -> str:
        """The topic of a page that would answer the group: the label's words most of its questions share.

        A word counts when its stem is in at least half of the group's questions; a group
        of one question (or one sharing nothing) suggests the label's content words.
        """
        stems = [{stem(word) for word in words(question)} for question in self.questions]
        content = list(dict.fromkeys(w for w in words(self.label) if w not in STOP_WORDS and len(w) > 1))
        shared = [w for w in content if 2 * sum(stem(w) in s for s in stems) >= len(stems)]
        return " ".join(shared or content) or self.label


def unmatched(run: RunRecord) -> bool:
    """Whether ``run`` ended in fallback because no page of the site passed the relevance floor."""
    return run.outcome == "fallback" and run.gates.get("retrieval") == "failed"


def split_off_topic(groups: Sequence[GapGroup]) -> tuple[list[GapGroup], list[GapGroup]]:
    """Return ``(gaps, off_topic)``: the groups a page could close, and those no page of the site matched."""
    return [g for g in groups if not g.off_topic], [g for g in groups if g.off_topic]


def group_gaps(runs: Sequence[RunRecord], similarity: float = DEFAULT_SIMILARITY) -> list[GapGroup]:
    """Group the unanswered questions by similar question, largest group first."""
    unanswered = [run for run in runs if run.outcome in UNANSWERED]
    if not unanswered:
        return []
    vectors = np.asarray(LexicalEmbeddings().embed_documents([r.standalone_question or r.question for r in unanswered]))
    # Each group's first question's vector, one row a group: a question is scored against all in one product.
    leaders = np.empty_like(vectors)
    groups: list[GapGroup] = []
    for index, run in enumerate(unanswered):
        scores = leaders[: len(groups)] @ vectors[index]
        best = int(np.argmax(scores)) if groups else -1
        if best < 0 or scores[best] < similarity:
            leaders[len(groups)] = vectors[index]
            groups.append(GapGroup())
            best = len(groups) - 1
        group = groups[best]
        group.questions.append(run.question)
        group.run_ids.append(run.run_id)
        group.outcomes[run.outcome] += 1
        group.unmatched += unmatched(run)
        group.failed_gates.update(gate for gate, status in run.gates.items() if status == "failed")
        group.failure_codes.update(run.failure_codes)
        group.gaps.update(run.gaps)
        group.retrieved.update(set(run.retrieved_urls))
    return sorted(groups, key=lambda g: -len(g.questions))


@dataclass
class SearchGaps:
    """What the search log adds to the coverage gaps."""

    unfound: list[tuple[str, int]] = field(default_factory=list)
    """(query, times searched) of the searches that found nothing, most frequent first."""
    then_fallback: list[tuple[str, int]] = field(default_factory=list)
    """(question, pages its search found) of the questions asked from a search that ended in fallback, newest first."""


@dataclass
class PageUse:
    """How answers used the site's pages over a period."""

    cited: Counter[str] = field(default_factory=Counter)
    """Page URL -> answers that cited it."""
    retrieved: Counter[str] = field(default_factory=Counter)
    """Page URL -> answers whose final Research pass retrieved it."""
    answers: int = 0
    """Answers counted."""

    def most_cited(self, n: int | None = None) -> list[tuple[str, int]]:
        """Return (URL, answers citing it), most cited first (ties by URL)."""
        return sorted(self.cited.items(), key=lambda item: (-item[1], item[0]))[:n]

    def never_cited(self, min_retrieved: int = DEFAULT_MIN_RETRIEVED) -> list[tuple[str, int]]:
        """Return (URL, times retrieved) of pages retrieved at least ``min_retrieved`` times and never cited."""
        found = [(url, n) for url, n in self.retrieved.items() if n >= min_retrieved and url not in self.cited]
        return sorted(found, key=lambda item: (-item[1], item[0]))


def page_use(urls: Iterable[tuple[Sequence[str], Sequence[str]]]) -> PageUse:
    """Count page use from each answer's ``(cited_urls, retrieved_urls)`` (a URL counts once an answer)."""
    use = PageUse()
    for cited, retrieved in urls:
        use.cited.update(set(cited))
        use.retrieved.update(set(retrieved))
        use.answers += 1
    return use


def never_cited(runs: Sequence[RunRecord], min_retrieved: int = DEFAULT_MIN_RETRIEVED) -> list[tuple[str, int]]:
    """Return pages retrieved at least ``min_retrieved`` times and never cited."""
    return page_use((run.cited_urls, run.retrieved_urls) for run in runs).never_cited(min_retrieved)
