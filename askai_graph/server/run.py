"""Run one question: consult the cache, else stream the graph in its own task.

Why a task and a queue: when a client disconnects, Starlette (and sse-starlette) close
the response generator inside an anyio cancel scope, and a ``graph.astream`` iterated
directly in that generator keeps running to completion (langgraph issue #5682). Running
``astream`` in a separate ``asyncio`` task that feeds a queue, and cancelling that task
in the generator's ``finally``, stops the graph at its next await: no further model
calls are made for a client that left.

Tokens are only produced after the graph has finished, that is after the Source Gate
made the final decision, so a rejected draft can never reach the reader.

The semantic cache is keyed by the *standalone* question: a follow-up ("how do I tune
it?") only means something with its thread. The question is condensed and looked up
before any run starts (``lookup``): a hit is recorded in the thread like any answer and
streams only tokens and ``done``, with no graph run at all; a miss runs the graph from
that condensation. (A graph that cannot condense outside a run, such as a LangGraph
Server's, is looked up once its run's Condense stage has finished; a hit then cancels
that run.) An answer whose Writer or Critic
read the thread's earlier turns (``history_read``) is never stored: it may carry what one
reader said there (a name, an instruction) and must not be served to another.

Every question has a deadline (``request_timeout_seconds``): when it passes, the graph
task is cancelled (an async model call or retriever stops at once; a blocking call in
a worker thread is abandoned, its result ignored) and the stream ends like any
unanswerable question: the fallback message and ``done`` with outcome ``fallback``.
The deadline bounds the cache lookup too; nothing after it waits on a worker thread
that a hung collaborator may hold (``pools``): storing the answer in the cache and the
run-log write wait at most ``pools.SETTLE_SECONDS``, in a pool of their own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.rules.gates import gate_statuses
from askai_graph.server import events
from askai_graph.server.cache import Probe, SemanticCache
from askai_graph.server.events import Event
from askai_graph.server.lookup import Looked, condenser_of, look_up, served
from askai_graph.server.pools import settle
from askai_graph.server.thread_run import ThreadRun
from askai_graph.state import STATE_KEYS, AskState
from askai_graph.stores.threads import DURABILITY, run_config

logger = logging.getLogger(__name__)
T = TypeVar("T")


class StreamingGraph(Protocol):
    """What the server needs of a graph: LangGraph's ``astream``."""

    def astream(
        self, input: Any, config: Any = None, *, stream_mode: Any = ..., durability: Any = None, output_keys: Any = None
    ) -> AsyncIterator[Any]:
        """Stream the run's progress (``output_keys=STATE_KEYS``: internals included)."""
        ...


# Stages that are bookkeeping, not progress a reader follows (the research step says
# whether the question was rewritten).
SILENT_NODES = frozenset({"condense"})


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_END = object()


async def _pump(
    graph: StreamingGraph, question: str, queue: asyncio.Queue[Any], thread: ThreadRun | None, looked: Looked | None
) -> None:
    """Feed ``(mode, chunk)`` pairs, then an optional failure, then ``_END`` into ``queue``."""
    config = run_config(thread.key, thread.run_id) if thread is not None else None
    if looked is not None:  # condensed before the run: Condense reuses it
        config = looked.run_config(config)
    try:
        modes = ["updates", "values"]
        durability = DURABILITY if thread is not None and getattr(graph, "checkpointer", None) else None
        # The graph's output schema hides retrieved results and verdicts; the steps, the
        # cache and the run log need them, and apply the gates themselves (``events``).
        # Every channel of a compiled graph (a custom one too), else the Ask AI state's keys.
        whole = getattr(graph, "stream_channels_asis", STATE_KEYS)
        stream = graph.astream(
            {"question": question}, config, stream_mode=modes, durability=durability, output_keys=whole
        )
        async for item in stream:
            queue.put_nowait(item)
    except Exception as exc:
        queue.put_nowait(_Failed(exc))
    finally:
        queue.put_nowait(_END)


Batch = list[Event]
"""Events ready at the same moment: they leave the server in one write."""


async def run_batches(
    question: str,
    *,
    graph: StreamingGraph,
    cache: SemanticCache | None,
    token_chars: int,
    thread: ThreadRun | None = None,
    deadline_seconds: float | None = None,
) -> AsyncGenerator[Batch, None]:
    """Yield the SSE contract's events for one question (see ``events``), in batches of those ready together.

    A cache hit yields only tokens and ``done``. Otherwise: one ``step`` per completed
    stage, then tokens, ``sources`` if the Source Gate passed, and ``done``; an
    unexpected exception yields a single ``error`` instead and ends the stream. A
    provider failure is not an exception here: the graph turns it into a failed gate.
    On a ``thread``, the graph runs on it and ``done`` carries its ids. Past
    ``deadline_seconds`` the run is abandoned and ends as a fallback.

    A batch ends where the next event is not ready yet: stages that finished while the
    stream was busy share one, and the final answer travels with the last steps. No
    event waits for another that is not ready, so batching never delays progress.
    """
    deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds
    ids = thread.ids() if thread is not None else None
    condense = condenser_of(graph) if cache is not None else None
    looked: Looked | None = None
    if cache is not None and condense is not None:
        try:
            looked = await _within(look_up(graph, condense, cache, question, *_thread_of(thread)), deadline)
        except TimeoutError:
            logger.warning("question abandoned at its deadline of %gs while condensing", deadline_seconds)
            yield list(events.answer_events(_timed_out({"question": question}), token_chars=token_chars, ids=ids))
            return
        except Exception:
            logger.exception("condensing or looking up the question failed")
            yield [events.error()]
            return
        if looked.hit is not None:
            hit = served(looked.hit, graph, thread, question, looked.standalone, token_chars, looked.history, deadline)
            async for part in hit:
                yield part
            return
    queue: asyncio.Queue[Any] = asyncio.Queue()
    task = asyncio.create_task(_pump(graph, question, queue, thread, looked), name="askai-graph-run")
    probe: Probe | None = looked.probe if looked is not None else None
    consulted = looked is not None
    history_read = False
    batch: Batch = []
    try:
        final: AskState = {"question": question}
        while True:
            if batch and queue.empty():  # nothing else is ready: what is, leaves now
                yield batch
                batch = []
            try:
                item = queue.get_nowait() if not queue.empty() else await _next(queue, deadline)
            except TimeoutError:
                yield _abandoned(task, final, deadline_seconds, token_chars, ids)
                return
            if item is _END:
                break
            if isinstance(item, _Failed):
                logger.error("graph run failed", exc_info=item.error)
                yield [*batch, events.error()]
                return
            mode, chunk = item
            if mode == "values":
                final = chunk
                continue
            for node, update in chunk.items():
                if not isinstance(update, Mapping):
                    continue
                history_read = history_read or bool(update.get("history_read"))
                if cache is not None and not consulted:
                    consulted = True
                    standalone = str(update.get("standalone_question") or question)
                    # A question that leans on turns this thread lacks is never answered from cache.
                    try:
                        if not update.get("needs_context"):
                            probe = await _within(cache.lookup(standalone), deadline)
                    except TimeoutError:
                        yield _abandoned(task, final, deadline_seconds, token_chars, ids)
                        return
                    if probe is not None and probe.hit is not None:
                        await _stop(task)
                        async for part in served(probe.hit, graph, thread, question, standalone, token_chars,
                                                 deadline=deadline):  # fmt: skip
                            yield [*batch, *part]
                            batch = []
                        return
                if node not in SILENT_NODES:
                    batch.append(events.step(node, update, cast(AskState, {**final, **update})))
        if not final.get("outcome") or "answer" not in final:
            logger.error("graph run ended without an outcome")
            yield [*batch, events.error()]
            return
        # A Writer or Critic read the thread's earlier turns (a name, an instruction a reader
        # typed): such an answer is this reader's, never served to another who asks the same.
        if not history_read:
            await _remember(cache, probe, final)
        yield [*batch, *events.answer_events(final, cached=False, token_chars=token_chars, ids=ids)]
    finally:
        # Not awaited: awaiting inside a cancelled anyio scope would be cancelled again.
        task.cancel()


async def _next(queue: asyncio.Queue[Any], deadline: float | None) -> Any:
    return await _within(queue.get(), deadline)


async def _within(step: Awaitable[T], deadline: float | None) -> T:
    """Await ``step`` until ``deadline`` (monotonic); ``TimeoutError`` past it.

    ``asyncio.timeout``, not ``wait_for``: no task is made for each awaited event.
    """
    if deadline is None:
        return await step
    async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
        return await step


def _abandoned(
    task: asyncio.Task[None], final: AskState, seconds: float | None, token_chars: int, ids: Mapping[str, str] | None
) -> list[Event]:
    """Cancel the run at its deadline and return the fallback's events (pure: nothing here can wait)."""
    task.cancel()
    logger.warning("question abandoned at its deadline of %gs; answering with the fallback", seconds)
    return list(events.answer_events(_timed_out(final), cached=False, token_chars=token_chars, ids=ids))


def _thread_of(thread: ThreadRun | None) -> tuple[str | None, bool]:
    # The checkpointer knows the thread by its key (id and token hashed), never the bare id.
    return (None, True) if thread is None else (thread.key, thread.fresh)


def _timed_out(state: AskState) -> dict[str, Any]:
    """The final state of a run abandoned at its deadline: a fallback, no sources."""
    gates = gate_statuses(state)
    # The stage that was running never finished: it failed, like a provider timeout.
    if gates["retrieval"] == "passed" and gates["critic"] != "failed":
        gates["critic" if gates["validation"] == "passed" else "validation"] = "failed"
    return {**state, "answer": FALLBACK_ANSWER, "outcome": "fallback", "sources": [], "gates": gates}


async def _stop(task: asyncio.Task[None]) -> None:
    """Cancel the run and wait for it, so its checkpoint writes settle before ours."""
    task.cancel()
    await asyncio.wait({task})


async def _remember(cache: SemanticCache | None, probe: Probe | None, final: Mapping[str, Any]) -> None:
    # Stored before the tokens are sent: a client leaving mid-answer loses nothing. At
    # most ``SETTLE_SECONDS``: the answer never waits on a slow cache store.
    if cache is not None and probe is not None:
        await settle(cache.remember(probe, final), what="storing the answer in the cache")
