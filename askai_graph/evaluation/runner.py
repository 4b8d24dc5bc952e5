"""Run labelled questions through a graph and keep what the metrics need of each run.

Each question is streamed (``updates`` and ``values``) so the run yields, besides the
final state, the first Research ranking (what retrieval found for the question as
asked), every gate verdict of every draft, and how long each stage took: a stage's time
is the wall time between the update before it and its own update (the graph runs its
stages one after another). The first Research stage's time is also kept on its own: it
is what retrieval costs for the question as asked, whatever the retries add.

A follow-up pair runs its first question on a fresh thread, then the follow-up on the
same thread; the follow-up's run is the result (the graph needs a checkpointer). A
labelled answer question also gets its answering section's rank among the first
Research pass's sections in a model Writer's order (``evaluation.context``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field

from askai_graph.evaluation.context import context_rank
from askai_graph.evaluation.dataset import EvalQuestion, Kind
from askai_graph.evaluation.evidence import anchor_holds, sentence_support
from askai_graph.rules.gates import critic_passed
from askai_graph.state import STATE_KEYS, AskState
from askai_graph.summary import RunSummary, final_state


class StreamableGraph(Protocol):
    """What the runner needs of a graph: LangGraph's synchronous ``stream``."""

    def stream(
        self, input: Any, config: Any = None, *, stream_mode: Any = ..., output_keys: Any = None, context: Any = None
    ) -> Iterable[Any]:
        """Stream the run's progress (``output_keys=STATE_KEYS``: internals included; ``config``: the thread)."""
        ...


class GateVerdict(BaseModel):
    """One gate's verdict on one draft."""

    model_config = ConfigDict(frozen=True)

    gate: str
    """``validation`` or ``critic``."""
    passed: bool
    """Whether the draft passed it."""
    codes: tuple[str, ...] = ()
    """Stable failure codes (empty when it passed)."""


class QuestionResult(BaseModel):
    """What one question's run produced, as the metrics read it."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The question asked (a pair's follow-up)."""
    previous: str = ""
    """A follow-up pair's first question, asked before it on the same thread ('' otherwise)."""
    kind: Kind = "answer"
    expected_urls: tuple[str, ...] = ()
    must_mention: tuple[str, ...] = ()
    outcome: str
    """accepted, accepted_early, degraded or fallback."""
    attempts: int = 0
    gates: dict[str, str] = Field(default_factory=dict)
    """Final per-gate status: retrieval, validation, critic."""
    verdicts: tuple[GateVerdict, ...] = ()
    """Every gate verdict of every draft, in order."""
    ranking: tuple[str, ...] = ()
    """The first Research pass's post URLs, best first."""
    retrieved: tuple[str, ...] = ()
    """The post URLs of the final Research pass (the set sources may come from)."""
    cited: tuple[str, ...] = ()
    """Distinct retrieved URLs the final answer cites (empty on fallback)."""
    sources: tuple[str, ...] = ()
    """Source card URLs shown under the answer."""
    gaps: tuple[str, ...] = ()
    """The last Critic's gaps."""
    answer: str = ""
    seconds: float = 0.0
    """Wall time of the whole run."""
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    """Total wall time per stage (a stage that ran for several drafts is summed)."""
    retrieval_seconds: float | None = None
    """Wall time of the first Research pass (``None`` when Research did not run)."""
    citation_support: tuple[bool, ...] = ()
    """Per citing sentence of the final draft (none on fallback): whether its anchored passage supports it."""
    anchor_holds_mention: bool | None = None
    """Whether a card's anchored passage holds every ``must_mention`` term (``None``: not judged,
    no cards, no ``must_mention``, or the answer lacks one of them)."""
    context_rank: int | None = None
    """Where the answering section ranks (from 0) among the first Research pass's sections in a
    model Writer's order (``None``: no section holds it, or not judged)."""
    context_judged: bool = False
    """Whether ``context_rank`` was judged: a labelled answer question with ``must_mention``."""


def _verdict(node: str, update: Mapping[str, Any], state: Mapping[str, Any]) -> GateVerdict | None:
    if node == "validation":
        report = update.get("validation")
        codes = tuple(sorted({issue.code for issue in report.errors})) if report is not None else ("missing",)
        return GateVerdict(gate="validation", passed=report is not None and report.ok, codes=codes)
    if node == "critic":
        codes = tuple(failure.code for failure in update.get("review_failures") or [])
        return GateVerdict(gate="critic", passed=critic_passed(cast(AskState, state)), codes=codes)
    return None


def run_one(graph: StreamableGraph, item: EvalQuestion) -> QuestionResult:
    """Run one question (a follow-up pair: both, on one fresh thread) and collect its result."""
    if item.follow_up is None:  # a graph with a checkpointer needs a thread: a fresh one, no history
        return _run_one(graph, item, item.question, _thread() if getattr(graph, "checkpointer", None) else None)
    thread = _thread()
    more = _scope(item)
    final_state(graph.stream({"question": item.question}, thread, stream_mode=["updates", "values"], **more))
    return _run_one(graph, item, item.follow_up, thread)


def _thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": f"askai-eval-{uuid.uuid4().hex}"}}


def _scope(item: EvalQuestion) -> dict[str, Any]:
    scope = {name: value for name in ("version", "locale") if (value := getattr(item, name))}
    return {"context": scope} if scope else {}  # a graph from elsewhere may take no context


def _run_one(graph: StreamableGraph, item: EvalQuestion, question: str, thread: Any) -> QuestionResult:
    verdicts: list[GateVerdict] = []
    stage_seconds: dict[str, float] = {}
    ranking: tuple[str, ...] | None = None
    first_results: list[Any] = []
    retrieval_seconds: float | None = None
    start = last = time.perf_counter()

    def on_updates(updates: Mapping[str, Any], state: Mapping[str, Any]) -> None:
        nonlocal last, ranking, retrieval_seconds
        now = time.perf_counter()
        for node, update in updates.items():
            stage_seconds[node] = stage_seconds.get(node, 0.0) + (now - last)
            if not isinstance(update, Mapping):
                continue
            if node == "research" and ranking is None:
                first_results[:] = update.get("search_results") or []
                ranking = tuple(result.source_url for result in first_results)
                retrieval_seconds = now - last
            verdict = _verdict(node, update, {**state, **update})
            if verdict is not None:
                verdicts.append(verdict)
        last = now

    more = _scope(item)
    if thread is not None:
        more["config"] = thread
    stream = graph.stream({"question": question}, stream_mode=["updates", "values"], output_keys=STATE_KEYS, **more)
    final = final_state(stream, on_updates)
    summary = RunSummary.from_state(final, seconds=time.perf_counter() - start, stage_seconds=stage_seconds)
    cards = tuple(source.url for source in summary.sources)
    citations = list(final.get("citations") or []) if summary.outcome != "fallback" else []
    judged = bool(cards and item.must_mention) and all(t.lower() in summary.answer.lower() for t in item.must_mention)
    context_judged = item.kind == "answer" and bool(item.expected_urls and item.must_mention)
    researched = final.get("standalone_question") or question
    return QuestionResult(
        question=question,
        previous=item.question if item.follow_up is not None else "",
        kind=item.kind,
        expected_urls=item.expected_urls,
        must_mention=item.must_mention,
        outcome=summary.outcome,
        attempts=summary.attempts,
        gates=summary.gates,
        verdicts=tuple(verdicts),
        ranking=ranking or (),
        retrieved=summary.retrieved_urls,
        cited=summary.cited_urls,
        sources=cards,
        gaps=summary.gaps,
        answer=summary.answer,
        seconds=summary.seconds or 0.0,
        stage_seconds=summary.stage_seconds,
        retrieval_seconds=retrieval_seconds,
        citation_support=sentence_support(citations),
        anchor_holds_mention=anchor_holds(citations, cards, item.must_mention) if judged else None,
        context_rank=(
            context_rank(researched, first_results, item.expected_urls, item.must_mention) if context_judged else None
        ),
        context_judged=context_judged,
    )


def run_questions(
    graph: StreamableGraph,
    questions: Iterable[EvalQuestion],
    *,
    progress: Callable[[QuestionResult], None] | None = None,
) -> list[QuestionResult]:
    """Run every question in order, calling ``progress`` after each."""
    results = []
    for item in questions:
        result = run_one(graph, item)
        results.append(result)
        if progress is not None:
            progress(result)
    return results
