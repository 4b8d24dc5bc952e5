"""Stream one graph run in its own task, as batches of SSE events; the cache is the caller's (``answering``).

Why a task and a queue: when a client disconnects, Starlette (and sse-starlette) close
the response generator inside an anyio cancel scope, and a ``graph.astream`` iterated
directly in that generator keeps running to completion (langgraph issue #5682). Running
``astream`` in a separate ``asyncio`` task that feeds a queue, and cancelling that task
when the stream closes, stops the graph at its next await: no further model calls are
made for a client that left.

Tokens are only produced after the graph has finished, that is after the Source Gate
made the final decision, so a rejected draft can never reach the reader.

Besides its batches, a run's stream says two things to whoever drives it, at the moment
they become true: ``Condensed`` once the first stage finished (the standalone question is
known, so a graph that cannot condense outside a run can still be looked up), and
``Finished`` once the answer is final, before its events (so it can be remembered before
a reader has it). The driver may ``stop`` the run (and wait for it) or ``abandon`` it at
its deadline; closing the stream cancels it.

Past its deadline the graph task is cancelled (an async model call or retriever stops at
once; a blocking call in a worker thread is abandoned, its result ignored) and the stream
ends like any unanswerable question: the fallback message and ``done`` with outcome
``fallback``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from langchain_core.runnables import RunnableConfig

from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.rules.gates import gate_statuses
from askai_graph.server.answers import events
from askai_graph.server.answers.events import Event
from askai_graph.server.answers.thread_run import ThreadRun
from askai_graph.state import STATE_KEYS, AskState, Turn
from askai_graph.stores.threads import DURABILITY, run_config

logger = logging.getLogger(__name__)
T = TypeVar("T")


class StreamingGraph(Protocol):
    """What the server needs of a graph: LangGraph's ``astream``."""

    def astream(
        self,
        input: Any,
        config: Any = None,
        *,
        stream_mode: Any = ...,
        durability: Any = None,
        output_keys: Any = None,
        context: Any = None,
    ) -> AsyncIterator[Any]:
        """Stream the run's progress (``output_keys=STATE_KEYS``: internals included)."""
        ...


# Stages that are bookkeeping, not progress a reader follows (the research step says
# whether the question was rewritten).
SILENT_NODES = frozenset({"condense"})

Batch = list[Event]
"""Events ready at the same moment: they leave the server in one write."""


@dataclass(frozen=True)
class Condensed:
    """The run's first stage finished: the question it works on is known (no event: a note to the driver)."""

    standalone: str
    """The standalone question."""
    needs_context: bool
    """Whether the question leans on turns its thread lacks."""
    history: list[Turn] | None = None
    """The thread's turns the run started from; ``None`` if the run has not said them yet.

    A cache hit that stops the run writes its turn onto these, not onto what the thread
    holds when it writes: a LangGraph Server may finish a run whose stream was closed,
    and that run's own turn for the same question must not stay beside the hit's.
    """


@dataclass(frozen=True)
class Finished:
    """The run ended with an answer; its events come next (no event: a note to the driver)."""

    final: AskState
    """The run's final state."""
    history_read: bool
    """Whether a Writer or Critic read the thread's earlier turns for it."""


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_END = object()


class Run:
    """One graph run on ``question``, streamed in a task of its own until ``deadline`` (``time.monotonic``)."""

    def __init__(
        self,
        graph: StreamingGraph,
        question: str,
        *,
        token_chars: int,
        thread: ThreadRun | None = None,
        deadline: float | None = None,
        deadline_seconds: float | None = None,
        configurable: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        fallback: str = FALLBACK_ANSWER,
    ) -> None:
        """Prepare the run (``configurable``: more of its config; ``context``: its ``RunOptions``).

        ``deadline_seconds`` is for the log only; ``fallback`` is the answer it ends with when abandoned.
        """
        self.graph, self.question, self.token_chars, self.thread = graph, question, token_chars, thread
        self.deadline, self.deadline_seconds = deadline, deadline_seconds
        self.configurable = dict(configurable or {})
        self.context = dict(context or {})
        self.fallback = fallback
        self.final: AskState = {"question": question}
        self._task: asyncio.Task[None] | None = None

    async def batches(self) -> AsyncGenerator[Batch | Condensed | Finished, None]:
        """Yield the SSE contract's events for the run (see ``events``), in batches of those ready together.

        One ``step`` per completed stage, then tokens, ``sources`` if the Source Gate
        passed, and ``done``; an unexpected exception yields a single ``error`` instead
        and ends the stream. A provider failure is not an exception here: the graph turns
        it into a failed gate. On a ``thread``, the graph runs on it and ``done`` carries
        its ids. Past the deadline the run is abandoned and ends as a fallback.
        ``Condensed`` comes before the first stage's step, ``Finished`` before the answer's
        events.

        A batch ends where the next event is not ready yet: stages that finished while the
        stream was busy share one, and the final answer travels with the last steps. No
        event waits for another that is not ready, so batching never delays progress.
        """
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task = asyncio.create_task(self._pump(queue), name="askai-graph-run")
        ids = self.thread.ids() if self.thread is not None else None
        condensed = False
        history_read = False
        started_from: list[Turn] | None = None  # the thread's turns in the run's first values
        batch: Batch = []
        try:
            while True:
                if batch and queue.empty():  # nothing else is ready: what is, leaves now
                    yield batch
                    batch = []
                try:
                    item = queue.get_nowait() if not queue.empty() else await within(queue.get(), self.deadline)
                except TimeoutError:
                    yield self.abandon()
                    return
                if item is _END:
                    break
                if isinstance(item, _Failed):
                    logger.error("graph run failed", exc_info=item.error)
                    yield [*batch, events.error()]
                    return
                mode, chunk = item
                if mode == "values":
                    self.final = chunk
                    started_from = started_from if started_from is not None else list(chunk.get("history") or [])
                    continue
                for node, update in chunk.items():
                    if not isinstance(update, Mapping):
                        continue
                    history_read = history_read or bool(update.get("history_read"))
                    if not condensed:  # the first stage: nothing of this run has been sent yet
                        condensed = True
                        standalone = str(update.get("standalone_question") or self.question)
                        yield Condensed(standalone, bool(update.get("needs_context")), started_from)
                    if node not in SILENT_NODES:
                        batch.append(events.step(node, update, cast(AskState, {**self.final, **update})))
            final = self.final
            if not final.get("outcome") or "answer" not in final:
                logger.error("graph run ended without an outcome")
                yield [*batch, events.error()]
                return
            yield Finished(final, history_read)
            yield [*batch, *events.answer_events(final, cached=False, token_chars=self.token_chars, ids=ids)]
        finally:
            # Not awaited: awaiting inside a cancelled anyio scope would be cancelled again.
            self.cancel()

    def cancel(self) -> None:
        """Cancel the graph task, without waiting for it."""
        if self._task is not None:
            self._task.cancel()

    async def stop(self) -> None:
        """Cancel the run and wait for it, so its checkpoint writes settle before the caller's."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task})

    def abandon(self) -> Batch:
        """Cancel the run at its deadline and return the fallback's events (nothing here can wait)."""
        self.cancel()
        logger.warning("question abandoned at its deadline of %gs; answering with the fallback", self.deadline_seconds)
        ids = self.thread.ids() if self.thread is not None else None
        final = timed_out(self.final, self.fallback)
        return list(events.answer_events(final, cached=False, token_chars=self.token_chars, ids=ids))

    async def _pump(self, queue: asyncio.Queue[Any]) -> None:
        """Feed ``(mode, chunk)`` pairs, then an optional failure, then ``_END`` into ``queue``."""
        thread, graph = self.thread, self.graph
        config: RunnableConfig | None = run_config(thread.key, thread.run_id) if thread is not None else None
        if self.configurable:
            base: RunnableConfig = config or {}
            config = {**base, "configurable": {**base.get("configurable", {}), **self.configurable}}
        try:
            modes = ["updates", "values"]
            durability = DURABILITY if thread is not None and getattr(graph, "checkpointer", None) else None
            # The graph's output schema hides retrieved results and verdicts; the steps, the
            # cache and the run log need them, and apply the gates themselves (``events``).
            # Every channel of a compiled graph (a custom one too), else the Ask AI state's keys.
            whole = getattr(graph, "stream_channels_asis", STATE_KEYS)
            more = {"context": self.context} if self.context else {}  # a graph from elsewhere may take none
            stream = graph.astream(
                {"question": self.question}, config, stream_mode=modes, durability=durability, output_keys=whole, **more
            )
            async for item in stream:
                queue.put_nowait(item)
        except Exception as exc:
            queue.put_nowait(_Failed(exc))
        finally:
            queue.put_nowait(_END)


async def within(step: Awaitable[T], deadline: float | None) -> T:
    """Await ``step`` until ``deadline`` (monotonic); ``TimeoutError`` past it.

    ``asyncio.timeout``, not ``wait_for``: no task is made for each awaited event.
    """
    if deadline is None:
        return await step
    async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
        return await step


def timed_out(state: AskState, answer: str = FALLBACK_ANSWER) -> dict[str, Any]:
    """The final state of a run abandoned at its deadline: a fallback (``answer``: in the reader's locale), no cards."""
    gates = gate_statuses(state)
    # The stage that was running never finished: it failed, like a provider timeout.
    if gates["retrieval"] == "passed" and gates["critic"] != "failed":
        gates["critic" if gates["validation"] == "passed" else "validation"] = "failed"
    return {**state, "answer": answer, "outcome": "fallback", "sources": [], "gates": gates}
