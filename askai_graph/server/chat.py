"""``POST /api/chat``: admit the request, resolve its thread, and frame the run's events as SSE.

Full first (the stream cap, ``limits``), then the client's rate limit, then the body
(``request``), a stream slot and the thread's lease (``leases``); then the events of
``run.run_question``, logged by ``recording``, leave as SSE. sse-starlette supplies the
heartbeat comments, the ``Cache-Control: no-store`` and ``X-Accel-Buffering: no``
headers, and notices a client disconnect; ``run`` turns that into a cancelled graph.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask
from starlette.types import Receive, Scope, Send

from askai_graph.server.events import Event
from askai_graph.server.limits import ClientRateLimit, Slot, StreamSlots
from askai_graph.server.openapi import CHAT_RESPONSES, REQUEST_BODY
from askai_graph.server.outages import THREADS_UNREACHABLE, database_outage
from askai_graph.server.recording import RecordingGraph, recorded
from askai_graph.server.reload import live
from askai_graph.server.request import BadRequest, ClientGone, check_content_type, read_chat
from askai_graph.server.run import run_question
from askai_graph.server.leases import ThreadLeases
from askai_graph.settings import Settings
from askai_graph.stores.runlog import RunLog

SEP = "\n"
"""Line separator of the event stream (sse-starlette defaults to CRLF; LF is what most clients log)."""


def add_chat_route(
    app: FastAPI,
    settings: Settings,
    *,
    slots: StreamSlots,
    rate_limit: ClientRateLimit,
    leases: ThreadLeases,
    run_log: RunLog | None,
) -> None:
    """Add ``POST /api/chat`` to ``app``, answering from what the app serves now (``reload.live``)."""

    @app.post(
        "/api/chat",
        response_model=None,
        response_class=EventSourceResponse,  # the 200 is text/event-stream, not FastAPI's default JSON
        responses=CHAT_RESPONSES,
        openapi_extra={"requestBody": REQUEST_BODY},
    )
    async def chat(request: Request) -> Response:
        """Answer ``{"message", "thread_id"?}`` as Server-Sent Events (step, token, sources, done, error)."""
        # One generation for the whole answer: a reload meanwhile serves the next question.
        serving = live(app)
        graph, cache = serving.graph, serving.cache
        if graph is None:
            return JSONResponse({"detail": "the threads database is not open yet"}, status_code=503)
        try:
            check_content_type(request.headers.get("content-type"))
            # Full first: refusing costs nothing and, unlike a 429, uses none of the client's quota.
            if await slots.full():
                return _busy(settings)
            wait = await rate_limit.admit(request.client.host if request.client else "unknown")
            if wait is not None:
                return _refused(429, f"rate limit of {settings.rate_limit} per client reached; retry later", wait)
            chat = await read_chat(request, settings)
            slot = await slots.try_acquire()
            if slot is None:
                return _busy(settings)
            try:
                thread, release = await leases.claim(graph, chat.thread_id)
            except BaseException as exc:
                await slot.release()
                if isinstance(exc, Exception) and database_outage(exc):
                    return _refused(503, THREADS_UNREACHABLE, settings.retry_after_seconds)
                raise
        except BadRequest as exc:
            return JSONResponse({"detail": exc.message}, status_code=exc.status)
        except ClientGone:
            return Response(status_code=400)
        recorder = RecordingGraph(graph)
        run = recorded(
            run_question(
                chat.question,
                graph=recorder,
                cache=cache,
                token_chars=settings.token_chars,
                thread=thread,
                deadline_seconds=settings.request_timeout_seconds,
            ),
            question=chat.question,
            recorder=recorder,
            run_log=run_log,
            run_id=thread.run_id if thread is not None else None,
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



def _busy(settings: Settings) -> JSONResponse:
    detail = "the server is answering as many questions as it can; retry shortly"
    return _refused(503, detail, settings.retry_after_seconds)


def _refused(status: int, detail: str, retry_after: int) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers={"Retry-After": str(retry_after)})


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


# The final answer's events arrive in one burst (the answer is complete before its first
# token is sent): they leave in one write with the event after them, not one per chunk.
_BURST = frozenset({"token", "sources"})


async def _framed(
    run: AsyncGenerator[Event, None], release: Callable[[], Awaitable[None]], slot: Slot
) -> AsyncIterator[ServerSentEvent | bytes]:
    """Give every event a JSON body and an ``id`` (1, 2, 3... within the stream); ``release`` the thread at the end."""
    counter = itertools.count(1)
    burst: list[bytes] = []
    try:
        async for name, data in run:
            data_json = json.dumps(data, ensure_ascii=False)
            event = ServerSentEvent(event=name, data=data_json, id=str(next(counter)), sep=SEP)
            if name in _BURST:
                burst.append(event.encode())
            elif burst:
                burst.append(event.encode())
                yield b"".join(burst)
                burst.clear()
            else:
                yield event
        if burst:
            yield b"".join(burst)
    finally:
        # The answer is out: free the slot now, before the response's own teardown, so a
        # client asking again on the same connection is never refused by its own stream.
        # Shielded: after a disconnect this runs in a cancelled scope, and slot and lease must still go.
        with anyio.CancelScope(shield=True):
            await slot.release()
            await release()
        # Closing the inner generator runs its ``finally``, which cancels the graph task.
        await run.aclose()
