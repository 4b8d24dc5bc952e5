"""``POST /api/chat``: admit the request, resolve its thread, and frame the run's events as SSE.

Content type first (``request.require_json``), then full (the stream cap, ``limits``),
then the client's rate limit, then the body (``request.read_json`` into
``bodies.ChatBody``), a stream slot and the thread's lease (``leases``); then the
events of ``answering.answer_batches``, logged by ``recording``, leave as SSE, each batch of
events ready together in one write. sse-starlette
supplies the heartbeat comments, the ``Cache-Control: no-store`` and
``X-Accel-Buffering: no`` headers, and notices a client disconnect; ``run`` turns that
into a cancelled graph. Every refusal is a ``BadRequest``: ``{"detail"}`` with its status.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import anyio
from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask
from starlette.types import Receive, Scope, Send

from askai_graph.nodes.finish import fallback_answer
from askai_graph.retrieval.scope import ScopeError, SiteVariants
from askai_graph.server.answering import answer_batches
from askai_graph.server.bodies import ChatBody
from askai_graph.server.cache import SemanticCache
from askai_graph.server.events import Event
from askai_graph.server.leases import ThreadLeases
from askai_graph.server.limits import ClientRateLimit, Slot, StreamSlots, client_address, reader_of
from askai_graph.server.openapi import CHAT_RESPONSES, request_body
from askai_graph.server.outages import THREADS_UNREACHABLE, database_outage
from askai_graph.server.recording import RecordingGraph, recorded
from askai_graph.server.reload import live
from askai_graph.server.request import BadRequest, read_json, require_json
from askai_graph.server.run import StreamingGraph
from askai_graph.server.search_settle import SearchSettler
from askai_graph.server.thread_run import ThreadRun
from askai_graph.settings import Settings
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog

SEP = "\n"
"""Line separator of the event stream (sse-starlette defaults to CRLF; LF is what most clients log)."""
BUSY = "the server is answering as many questions as it can; retry shortly"


def router(
    settings: Settings,
    *,
    slots: StreamSlots,
    rate_limit: ClientRateLimit,
    leases: ThreadLeases,
    run_log: RunLog | None,
    readers: ReaderHash,
    settled: SearchSettler | None = None,
) -> APIRouter:
    """Return the ``POST /api/chat`` route, answering from what the app serves now (``reload.live``)."""
    routes = APIRouter()

    @routes.post(
        "/api/chat",
        response_model=None,
        response_class=EventSourceResponse,  # the 200 is text/event-stream, not FastAPI's default JSON
        responses=CHAT_RESPONSES,
        openapi_extra={"requestBody": request_body(ChatBody)},
        dependencies=[Depends(require_json)],
    )
    async def chat(request: Request) -> Response:
        """Answer ``{"message", "thread_id"?, "thread_token"?}`` as SSE (step, token, sources, done, error)."""
        # One generation for the whole answer: a reload meanwhile serves the next question.
        serving = live(request.app)
        graph = serving.graph
        if graph is None:
            return JSONResponse({"detail": "the threads database is not open yet"}, status_code=503)
        # Full first: refusing costs nothing and, unlike a 429, uses none of the client's quota.
        if await slots.full():
            raise BadRequest(503, BUSY, retry_after=settings.retry_after_seconds)
        wait = await rate_limit.admit(client_address(request))
        if wait is not None:
            detail = f"rate limit of {settings.rate_limit} per client reached; retry later"
            raise BadRequest(429, detail, retry_after=wait)
        body = await read_json(request, ChatBody, limit=settings.max_body_bytes, settings=settings)
        _check_version(body.version, serving.info)
        slot = await slots.try_acquire()
        if slot is None:
            raise BadRequest(503, BUSY, retry_after=settings.retry_after_seconds)
        reader = reader_of(request, readers)
        thread, release = await _claim(leases, graph, body.thread_id, body.thread_token, slot, settings)
        if settled is not None:
            settled.settle(reader)  # asking settles the reader's search: the log keeps it now
        return _answer(
            body.message,
            serving.cache,
            graph,
            thread,
            release,
            slot,
            settings,
            run_log,
            reader,
            body.scope(),
            # Another reader's search (its id shared or guessed) is not this question's: the link is dropped.
            search_id=body.search_id if body.search_id and readers.issued(body.search_id, reader) else None,
        )

    return routes


def _check_version(version: str | None, info: Mapping[str, Any]) -> None:
    """Refuse (422) a version the site being served does not have; a site without versions reads any."""
    known = info.get("variants")
    if not version or not isinstance(known, Mapping):
        return
    try:
        SiteVariants.from_manifest(known).version(version)
    except ScopeError as exc:
        raise BadRequest(422, f"'version' {exc}") from None


def _answer(
    question: str,
    cache: SemanticCache | None,
    graph: StreamingGraph,
    thread: ThreadRun,
    release: Callable[[], Awaitable[None]],
    slot: Slot,
    settings: Settings,
    run_log: RunLog | None,
    reader: str,
    scope: dict[str, str] | None = None,
    *,
    search_id: str | None = None,
) -> Response:
    """Stream the answer to ``question`` on ``thread``, logged in ``run_log``, holding ``slot`` to its end."""
    recorder = RecordingGraph(graph)
    run = recorded(
        answer_batches(
            question,
            graph=recorder,
            cache=cache,
            token_chars=settings.token_chars,
            thread=thread,
            deadline_seconds=settings.request_timeout_seconds,
            scope=scope,
            fallback=fallback_answer(settings, (scope or {}).get("locale")),
        ),
        question=question,
        recorder=recorder,
        run_log=run_log,
        run_id=thread.run_id,
        reader=reader,
        search_id=search_id,
    )
    return _SlotResponse(
        slot,
        _framed(run, release, slot),
        ping=settings.heartbeat_seconds,
        ping_message_factory=lambda: ServerSentEvent(comment="ping", sep=SEP),
        sep=SEP,
        # Also after a client that left before the stream started (the generator never ran).
        background=BackgroundTask(release),
    )


async def _claim(
    leases: ThreadLeases,
    graph: StreamingGraph,
    thread_id: str | None,
    thread_token: str | None,
    slot: Slot,
    settings: Settings,
) -> tuple[ThreadRun, Callable[[], Awaitable[None]]]:
    """Lease the request's thread, or give its stream slot back and refuse (404, 409, 503)."""
    try:
        return await leases.claim(graph, thread_id, thread_token)
    except BaseException as exc:
        await slot.release()
        if isinstance(exc, Exception) and database_outage(exc):
            raise BadRequest(503, THREADS_UNREACHABLE, retry_after=settings.retry_after_seconds) from None
        raise


class _SlotResponse(EventSourceResponse):
    """An SSE response that gives its stream slot back however the response ends."""

    def __init__(self, slot: Slot, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # The stream never started, or ended without its generator closing (shielded: maybe cancelled).
            with anyio.CancelScope(shield=True):
                await self._slot.release()


async def _framed(
    run: AsyncGenerator[list[Event], None], release: Callable[[], Awaitable[None]], slot: Slot
) -> AsyncIterator[bytes]:
    """Frame each batch of events as one write, every event with an ``id`` (1, 2, 3... within the stream).

    A batch is what was ready together (``answering.answer_batches``): steps that finished while
    the stream was busy, or the final answer's tokens, ``sources`` and ``done``, with the
    steps before them. ``release`` the thread at the end.
    """
    counter = itertools.count(1)
    try:
        async for batch in run:
            yield "".join([frame(next(counter), name, data) for name, data in batch]).encode()
    finally:
        # The answer is out: free the slot now, before the response's own teardown, so a
        # client asking again on the same connection is never refused by its own stream.
        # Shielded: after a disconnect this runs in a cancelled scope, and slot and lease must still go.
        with anyio.CancelScope(shield=True):
            await slot.release()
            await release()
        # Closing the inner generator runs its ``finally``, which cancels the graph task.
        await run.aclose()


def frame(number: int, name: str, data: Any) -> str:
    """Return one SSE event as sse-starlette's ``ServerSentEvent(...).encode()`` writes it, JSON data on one line.

    JSON text never holds a raw CR or LF (``json.dumps`` escapes them), so the data is
    one ``data:`` line, as sse-starlette's line splitting would leave it.
    """
    return f"id: {number}{SEP}event: {name}{SEP}data: {json.dumps(data, ensure_ascii=False)}{SEP}{SEP}"
