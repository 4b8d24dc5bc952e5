"""A cache hit is a lookup, not a run: condense once, look the answer up, and only then run Research.

The answer cache is keyed by the *standalone* question (a follow-up only means something
with its thread), so the question is condensed first. That is the graph's own first
stage, run here outside any run (``AskGraph.condense_first``) on the thread's history:

- a **hit** streams the cached answer and writes it into the thread as a turn
  (``record_cached_turn``) before its ``done``; no graph run starts, so no retrieval
  runs for an answer nobody will read;
- a **miss** starts the run with the condensation in its config
  (``nodes.condense.PRECONDENSED``), so a model condenser is never asked twice.

A thread made for this request has no history to read; an older one is read once,
under the request's lease (no other answer can add a turn meanwhile). A graph that
cannot condense outside a run (a LangGraph Server's, a custom one) is looked up the
older way, once its run has condensed (``run.py``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langchain_core.runnables import RunnableConfig

from askai_graph.nodes.condense import PRECONDENSED
from askai_graph.server import events
from askai_graph.server.cache import CachedAnswer, Probe, SemanticCache
from askai_graph.server.events import Event
from askai_graph.state import Turn
from askai_graph.stores.threads import record_cached_turn, run_config

if TYPE_CHECKING:
    from askai_graph.server.thread_run import ThreadRun

logger = logging.getLogger(__name__)

CondenseFirst = Callable[[str, Sequence[Turn]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Looked:
    """A question condensed and looked up before its run."""

    question: str
    """The reader's words."""
    standalone: str
    """The question the cache and Research work on."""
    probe: Probe | None
    """The lookup (``None``: the question leans on turns this thread lacks, never served from cache)."""
    history: list[Turn]
    """The thread's turns before this question."""

    @property
    def hit(self) -> CachedAnswer | None:
        """The cached answer, if the lookup found one."""
        return self.probe.hit if self.probe is not None else None

    def run_config(self, config: RunnableConfig | None) -> RunnableConfig:
        """Return ``config`` carrying the condensation, so the run's Condense reuses it."""
        given = {"question": self.question, "standalone_question": self.standalone}
        base: RunnableConfig = config or {}
        return {**base, "configurable": {**base.get("configurable", {}), PRECONDENSED: given}}


def condenser_of(graph: Any) -> CondenseFirst | None:
    """Return the graph's Condense stage callable outside a run, or ``None`` if it has none."""
    condense = getattr(graph, "condense_first", None)
    return cast(CondenseFirst, condense) if callable(condense) else None


async def look_up(
    graph: Any, condense: CondenseFirst, cache: SemanticCache, question: str, thread_id: str | None, fresh: bool
) -> Looked:
    """Condense ``question`` on its thread and look its standalone form up in ``cache``."""
    history = [] if fresh or thread_id is None else await _history(graph, thread_id)
    update = await condense(question, history)
    standalone = str(update.get("standalone_question") or question)
    # A question that leans on turns this thread lacks is never answered from cache.
    probe = None if update.get("needs_context") else await cache.lookup(standalone)
    return Looked(question, standalone, probe, history)


async def _history(graph: Any, thread_id: str) -> list[Turn]:
    if getattr(graph, "checkpointer", None) is None:
        return []
    snapshot = await graph.aget_state(run_config(thread_id))
    return list(snapshot.values.get("history") or [])


async def served(
    hit: CachedAnswer,
    graph: Any,
    thread: ThreadRun | None,
    question: str,
    standalone: str,
    token_chars: int,
    history: Sequence[Turn] | None = None,
    deadline: float | None = None,
) -> AsyncIterator[list[Event]]:
    """Yield the events of a cache hit: its tokens at once, then ``done`` once the turn is in the thread.

    The turn is recorded (until ``deadline``) between the two, like any answer before
    its ``done``: the reader has the text without waiting on the thread's write, and a
    follow-up, which needs ``done``'s ids, always finds the turn. A reader who leaves
    before ``done`` may leave it unrecorded, as a run a disconnect cancels is.
    ``history``, when known, spares reading the thread again. Past ``deadline``
    (``time.monotonic``) the reader still gets the answer; only the turn is not recorded.
    """
    answer = {**hit.model_dump(), "question": question, "standalone_question": standalone}
    ids = thread.ids() if thread is not None else None
    *text, done = events.answer_events(answer, cached=True, token_chars=token_chars, ids=ids)
    if text:
        yield text
    if thread is not None:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            async with asyncio.timeout(left):
                await _record(graph, thread, question, standalone, hit.model_dump(), history)
        except TimeoutError:
            logger.warning("a cached answer was not recorded in thread %s by its deadline", thread.thread_id)
    yield [done]


async def _record(
    graph: Any,
    thread: ThreadRun,
    question: str,
    standalone: str,
    hit: Mapping[str, Any],
    history: Sequence[Turn] | None,
) -> None:
    if getattr(graph, "checkpointer", None) is None:
        return
    try:
        await record_cached_turn(
            graph, thread.key, question, standalone, hit, thread.max_history_turns, history=history
        )
    except Exception:
        # The reader still gets the answer; only the follow-up context is lost.
        logger.exception("could not record a cached answer in thread %s", thread.thread_id)
