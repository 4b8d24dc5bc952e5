"""``POST /api/chat``: the HTTP face of the answer desk (``desk``), framing the run's events as SSE.

Content type first (``request.require_json``, a dependency); then the desk admits the
request in its one order (ready, the stream cap, the client's rate limit, the body,
read here by ``request.read_json`` into ``bodies.ChatBody``, the version, a stream slot,
the thread's lease), and a ``desk.Refused`` becomes a ``BadRequest``: ``{"detail"}`` with
its status and ``Retry-After``. The desk's events (the answer cache around the run,
logged by ``recording``) leave as SSE, each batch of events ready together in one
write. sse-starlette supplies the heartbeat comments, the ``Cache-Control: no-store`` and
``X-Accel-Buffering: no`` headers, and notices a client disconnect; ``run`` turns that
into a cancelled graph.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask
from starlette.types import Receive, Scope, Send

from askai_graph.server.answers.desk import Asked, Desk, Refused
from askai_graph.server.answers.events import Event
from askai_graph.server.guards.limits import Slot, client_address
from askai_graph.server.guards.request import BadRequest, read_json, require_json
from askai_graph.server.routes.bodies import ChatBody
from askai_graph.server.routes.openapi import CHAT_RESPONSES, request_body

SEP = "\n"
"""Line separator of the event stream (sse-starlette defaults to CRLF; LF is what most clients log)."""


def router(desk: Desk) -> APIRouter:
    """Return the ``POST /api/chat`` route, answering what ``desk`` admits from what the app serves now."""
    routes = APIRouter()
    settings = desk.settings

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

        async def read() -> Asked:
            body = await read_json(request, ChatBody, limit=settings.max_body_bytes, settings=settings)
            scope = body.scope()
            return Asked(body.message, body.thread_id, body.thread_token, scope, search_id=body.search_id)

        try:
            admission = await desk.admitted(client_address(request), read)
        except Refused as refusal:
            raise BadRequest(refusal.status, refusal.message, retry_after=refusal.retry_after) from None
        return _SlotResponse(
            admission.slot,
            _framed(desk.events(admission), admission.release, admission.slot),
            ping=settings.heartbeat_seconds,
            ping_message_factory=lambda: ServerSentEvent(comment="ping", sep=SEP),
            sep=SEP,
            # Also after a client that left before the stream started (the generator never ran).
            background=BackgroundTask(admission.release),
        )

    return routes


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
