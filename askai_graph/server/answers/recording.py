"""Log each answer the server streams: one run-log record, written before ``done`` is sent.

The server's run loop stays as it is. ``RecordingGraph`` wraps the graph for one request
and remembers its latest state and how long each stage took; ``recorded`` wraps the
request's event stream (``answering.answer_batches``; ``flat`` unbatches it), gives ``done`` its
``run_id`` (keeping one already there) and queues the record just before ``done``
leaves (``RunLog.record`` never waits; a rating of a run still queued writes the queue
first), so a reader's feedback on that id can never arrive before the run it rates. A
failing run log is logged and skipped: it never costs the reader the answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

from askai_graph.server.answers.events import Done, Event
from askai_graph.stores.runlog import RunLog, build_record
from askai_graph.stores.threads import new_run_id
from askai_graph.summary import RunSummary

logger = logging.getLogger(__name__)


class RecordingGraph:
    """A graph for one request that remembers the run's latest state and its stage times."""

    def __init__(self, graph: Any) -> None:
        """Wrap ``graph``; every other attribute is the graph's own."""
        self._graph = graph
        self.final: Mapping[str, Any] = {}
        self.stage_ms: dict[str, float] = {}

    def __getattr__(self, name: str) -> Any:
        """Delegate anything else (state, checkpointer...) to the wrapped graph."""
        return getattr(self._graph, name)

    def astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Stream the wrapped graph, noting ``values`` and timing ``updates``."""
        return self._stream(*args, **kwargs)

    async def _stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        last = time.perf_counter()
        async for item in self._graph.astream(*args, **kwargs):
            if isinstance(item, tuple) and len(item) == 2:
                mode, chunk = item
                if mode == "values" and isinstance(chunk, Mapping):
                    self.final = chunk
                elif mode == "updates" and isinstance(chunk, Mapping):
                    now = time.perf_counter()
                    for node in chunk:
                        self.stage_ms[node] = self.stage_ms.get(node, 0.0) + (now - last) * 1000
                    last = now
            yield item


async def recorded(
    run: AsyncGenerator[list[Event], None],
    *,
    question: str,
    recorder: RecordingGraph,
    run_log: RunLog | None,
    run_id: str | None = None,
    reader: str | None = None,
    search_id: str | None = None,
) -> AsyncGenerator[list[Event], None]:
    """Yield ``run``'s batches of events; ``done`` gets a ``run_id`` and the answer is logged first.

    ``reader`` is the keyed hash of the client's address (``stores.readers``), never the address;
    ``search_id`` the launcher search the question was asked from, if any.
    """
    start = time.perf_counter()
    try:
        async for batch in run:
            if batch and batch[-1][0] == "done":  # ``done`` ends the stream: it is always last
                asker = (reader, search_id)
                batch = [*batch[:-1], await _done(batch[-1][1], question, recorder, run_log, run_id, start, asker)]
            yield batch
    finally:
        await run.aclose()


async def flat(batches: AsyncGenerator[list[Event], None]) -> AsyncGenerator[Event, None]:
    """Yield the events of ``batches`` one by one."""
    try:
        async for batch in batches:
            for event in batch:
                yield event
    finally:
        await batches.aclose()


async def _done(
    data: Done,
    question: str,
    recorder: RecordingGraph,
    run_log: RunLog | None,
    run_id: str | None,
    start: float,
    asker: tuple[str | None, str | None],
) -> Event:
    summary: RunSummary = data.summary
    if not summary.run_id:
        # ``with_summary`` keeps what rides on the event only (the thread's token).
        data = data.with_summary(summary.model_copy(update={"run_id": run_id or new_run_id()}))
    if run_log is not None:
        _write(run_log, question, recorder, data.summary, (time.perf_counter() - start) * 1000, asker)
    return "done", data


def _write(
    run_log: RunLog,
    question: str,
    recorder: RecordingGraph,
    summary: RunSummary,
    ms: float,
    asker: tuple[str | None, str | None],
) -> None:
    """Queue the record in the run log, on the event loop: ``RunLog.record`` never waits on its database.

    Its writer thread stores the queued answers (together, when several wait), so no
    answer's ``done`` waits on a store, and no thread is woken for each answer.
    """
    try:
        reader, search_id = asker  # who asked (keyed hash), and from which search
        record = build_record(
            summary, question=question, latency_ms=ms, stage_ms=recorder.stage_ms, reader=reader, search_id=search_id
        )
        run_log.record(record)
    except Exception:
        logger.exception("could not write the run log; the answer is sent anyway")
