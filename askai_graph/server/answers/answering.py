"""Answer one question with the answer cache around its run: look up, run on a miss, remember.

This module is the cache's one owner on a question's path; the run it drives (``run``)
knows nothing of the cache. A question goes down once and comes back once:

1. **Look up.** The cache is keyed by the *standalone* question (a follow-up only means
   something with its thread), so the question is condensed first, by the graph's own
   first stage run outside any run (``AskGraph.condense_first``) on the thread's history.
   A thread made for this request has no history to read; an older one is read once,
   under the request's lease (no other answer can add a turn meanwhile).
2. **Serve a hit.** It streams the cached answer with the source cards it was stored
   with (``cache.SemanticCache.lookup`` served it only while each card's page is still
   in the index) and writes it into the thread as a turn
   (``record_cached_turn``) before its ``done``; no graph run starts, so no retrieval
   runs for an answer nobody will read.
3. **Run on a miss**, with the condensation in its config (``nodes.condense.PRECONDENSED``),
   so a model condenser is never asked twice. A graph that cannot condense outside a run
   (a LangGraph Server's, a custom one) is looked up once its run says it has condensed
   (``run.Condensed``); a hit then stops that run, waits for it, and is served as above.
4. **Remember** the answer once the run says it is final (``run.Finished``), before its
   events leave: a client leaving mid-answer loses nothing. An answer whose Writer or
   Critic read the thread's earlier turns (``history_read``) is never stored: it may
   carry what one reader said there (a name, an instruction) and must not be served to
   another. A question that leans on turns its thread lacks (``needs_context``) is never
   answered from the cache.

Every question has a deadline (``request_timeout_seconds``); it bounds the lookup too.
Nothing after it waits on a worker thread that a hung collaborator may hold
(``pools``): storing the answer waits at most ``pools.SETTLE_SECONDS``, in a pool of its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.nodes.condense import PRECONDENSED
from askai_graph.public_output import CondenseFirst
from askai_graph.server.answers import events
from askai_graph.server.answers.cache import CachedAnswer, Probe, SemanticCache
from askai_graph.server.answers.events import Event
from askai_graph.server.answers.run import Batch, Condensed, Finished, Run, StreamingGraph, timed_out, within
from askai_graph.server.guards.pools import settle
from askai_graph.state import Turn
from askai_graph.stores.threads import record_cached_turn, run_config

if TYPE_CHECKING:
    from askai_graph.server.answers.thread_run import ThreadRun

logger = logging.getLogger(__name__)

async def answer_batches(
    question: str,
    *,
    graph: StreamingGraph,
    cache: SemanticCache | None,
    token_chars: int,
    thread: ThreadRun | None = None,
    deadline_seconds: float | None = None,
    scope: Mapping[str, str] | None = None,
    fallback: str = FALLBACK_ANSWER,
) -> AsyncGenerator[Batch, None]:
    """Yield the SSE contract's events for one question, in batches of those ready together (``run``).

    A cache hit yields tokens, its stored ``sources`` (if any) and ``done``; a miss yields
    its run's batches. Past ``deadline_seconds`` the question is abandoned and ends as a
    fallback (``fallback``: the text, in the reader's locale). ``scope``
    (``version``, ``locale``) is the reader's version and language: the run's context,
    and a cache of its own (``SemanticCache.scoped``).
    """
    deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds
    if scope and cache is not None:
        cache = cache.scoped(scope)
    condense = _condenser_of(graph) if cache is not None else None
    looked: _Looked | None = None
    if cache is not None and condense is not None:
        try:
            looked = await within(_look_up(graph, condense, cache, question, *_thread_of(thread), scope), deadline)
        except TimeoutError:
            logger.warning("question abandoned at its deadline of %gs while condensing", deadline_seconds)
            ids = thread.ids() if thread is not None else None
            final = timed_out({"question": question}, fallback)
            yield list(events.answer_events(final, token_chars=token_chars, ids=ids))
            return
        except Exception:
            logger.exception("condensing or looking up the question failed")
            yield [events.error()]
            return
        if looked.hit is not None:
            async for part in _served(
                looked.hit, graph, thread, question, looked.standalone, token_chars, looked.history, deadline, scope
            ):
                yield part
            return
    run = Run(
        graph,
        question,
        token_chars=token_chars,
        thread=thread,
        deadline=deadline,
        deadline_seconds=deadline_seconds,
        configurable=looked.configurable() if looked is not None else None,
        context=scope,
        fallback=fallback,
    )
    probe = looked.probe if looked is not None else None
    stream = run.batches()
    try:
        async for item in stream:
            if isinstance(item, Finished):
                # A Writer or Critic read the thread's earlier turns (a name, an instruction a reader
                # typed): such an answer is this reader's, never served to another who asks the same.
                if not item.history_read:
                    await _remember(cache, probe, item.final)
            elif isinstance(item, Condensed):
                if cache is None or looked is not None or item.needs_context:
                    continue  # looked up before the run, or never answered from cache
                try:
                    probe = await within(cache.lookup(item.standalone), deadline)
                except TimeoutError:
                    yield run.abandon()
                    return
                if probe.hit is not None:
                    await run.stop()
                    async for part in _served(probe.hit, graph, thread, question, item.standalone, token_chars,
                                             item.history, deadline, scope):  # fmt: skip
                        yield part
                    return
            else:
                yield item
    finally:
        run.cancel()  # at once: the stream's own close may come later, or never
        await stream.aclose()


@dataclass(frozen=True)
class _Looked:
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

    def configurable(self) -> dict[str, Any]:
        """Return the run's configurable carrying the condensation, so its Condense reuses it."""
        return {PRECONDENSED: {"question": self.question, "standalone_question": self.standalone}}


def _condenser_of(graph: Any) -> CondenseFirst | None:
    """Return the graph's Condense stage callable outside a run, or ``None`` if it has none."""
    condense = getattr(graph, "condense_first", None)
    return cast(CondenseFirst, condense) if callable(condense) else None


async def _look_up(
    graph: Any,
    condense: CondenseFirst,
    cache: SemanticCache,
    question: str,
    thread_id: str | None,
    fresh: bool,
    scope: Mapping[str, str] | None = None,
) -> _Looked:
    """Condense ``question`` on its thread (the turns of its ``scope``) and look its standalone form up in ``cache``."""
    history = [] if fresh or thread_id is None else await _history(graph, thread_id)
    update = await condense(question, history, scope)
    standalone = str(update.get("standalone_question") or question)
    # A question that leans on turns this thread lacks is never answered from cache.
    probe = None if update.get("needs_context") else await cache.lookup(standalone)
    return _Looked(question, standalone, probe, history)


async def _history(graph: Any, thread_id: str) -> list[Turn]:
    if getattr(graph, "checkpointer", None) is None:
        return []
    snapshot = await graph.aget_state(run_config(thread_id))
    return list(snapshot.values.get("history") or [])


async def _served(
    hit: CachedAnswer,
    graph: Any,
    thread: ThreadRun | None,
    question: str,
    standalone: str,
    token_chars: int,
    history: Sequence[Turn] | None = None,
    deadline: float | None = None,
    scope: Mapping[str, str] | None = None,
) -> AsyncIterator[list[Event]]:
    """Yield the events of a cache hit: its tokens and cards at once, then ``done`` once the turn is in the thread.

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
                await _record(graph, thread, question, standalone, hit.model_dump(), history, scope)
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
    scope: Mapping[str, str] | None = None,
) -> None:
    if getattr(graph, "checkpointer", None) is None:
        return
    try:
        await record_cached_turn(
            graph, thread.key, question, standalone, hit, thread.max_history_turns, history=history, scope=scope
        )
    except Exception:
        # The reader still gets the answer; only the follow-up context is lost.
        logger.exception("could not record a cached answer in thread %s", thread.thread_id)


async def _remember(cache: SemanticCache | None, probe: Probe | None, final: Mapping[str, Any]) -> None:
    # Stored before the tokens are sent: a client leaving mid-answer loses nothing. At
    # most ``SETTLE_SECONDS``: the answer never waits on a slow cache store.
    if cache is not None and probe is not None:
        await settle(cache.remember(probe, final), what="storing the answer in the cache")


def _thread_of(thread: ThreadRun | None) -> tuple[str | None, bool]:
    # The checkpointer knows the thread by its key (id and token hashed), never the bare id.
    return (None, True) if thread is None else (thread.key, thread.fresh)
