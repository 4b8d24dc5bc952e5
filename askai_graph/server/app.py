"""The FastAPI app: ``POST /api/chat`` as Server-Sent Events, ``GET /healthz`` and the widget (``web``).

The endpoint is thin: it checks the request (``request``), resolves its thread, then
frames the events of ``run.run_question`` as SSE. sse-starlette supplies the heartbeat
comments, the ``Cache-Control: no-store`` and ``X-Accel-Buffering: no`` headers, and
notices a client disconnect; ``run`` turns that into a cancelled graph.

Threads (``threads.ThreadLeases``): no ``thread_id`` starts a new one; an unknown or
expired one is a 404; one whose answer is still streaming is a 409. The default graph
persists threads in ``settings.database_url`` (opened for the app's lifespan), or in
process memory when it is unset.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from langchain_core.embeddings import Embeddings
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from askai_graph.server.cache import CacheStore, InMemoryCacheStore, SemanticCache
from askai_graph.server.embeddings import LexicalEmbeddings
from askai_graph.server.events import Event
from askai_graph.server.request import BadRequest, read_chat
from askai_graph.server.run import StreamingGraph, run_question
from askai_graph.server.threads import ThreadLeases
from askai_graph.server.web import add_web
from askai_graph.settings import Settings

SEP = "\n"
"""Line separator of the event stream (sse-starlette defaults to CRLF; LF is what most clients log)."""

_BODY_SCHEMA = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "message": {"type": "string", "minLength": 1},
                    "thread_id": {"type": "string", "format": "uuid", "description": "continue this conversation"},
                },
                "required": ["message"],
                "additionalProperties": False,
            }
        }
    },
}


def create_app(
    graph: StreamingGraph | None = None,
    settings: Settings | None = None,
    *,
    namespace: str | None = None,
    embeddings: Embeddings | None = None,
    cache_store: CacheStore | None = None,
) -> FastAPI:
    """Build the HTTP app.

    Args:
        graph: A compiled Ask AI graph (anything with LangGraph's ``astream``); build it
            with a checkpointer for follow-ups to see their thread. ``None`` loads the
            configured corpus once (the bundled sample site by default), builds its BM25
            index and the default graph over it, with threads in
            ``settings.database_url`` (in memory when unset).
        settings: Configuration; ``Settings()`` when ``None``.
        namespace: What cached answers depend on; the corpus fingerprint by default.
            With a custom ``graph`` and no namespace, the cache is private to this app.
        embeddings: Embeds questions for the semantic cache; ``LexicalEmbeddings()``
            when ``None``.
        cache_store: Where cached answers live; an in-process LRU of
            ``settings.cache_size`` entries when ``None``.

    Returns:
        The FastAPI app; the corpus index is loaded before this returns, so
        ``/healthz`` answers as soon as the server accepts connections.
    """
    settings = settings or Settings()
    corpus_info: dict[str, Any] = {}
    lifespan = None
    if graph is None:
        make_graph, corpus_info = _default_graph(settings)
        namespace = namespace or corpus_info["corpus"]
        if settings.database_url:
            lifespan = _threads_lifespan(make_graph, settings.database_url)
        else:
            from langgraph.checkpoint.memory import InMemorySaver

            graph = make_graph(InMemorySaver())
    cache = None
    if settings.cache_enabled:
        cache = SemanticCache(
            LexicalEmbeddings() if embeddings is None else embeddings,
            # ``is None``, not ``or``: an empty store has length 0 and is falsy.
            InMemoryCacheStore(settings.cache_size) if cache_store is None else cache_store,
            namespace=namespace,
            threshold=settings.cache_threshold,
        )
    app = FastAPI(
        title="askai-graph", summary="Ask a content site's articles; answers stream as SSE.", lifespan=lifespan
    )
    app.state.graph, app.state.cache, app.state.settings = graph, cache, settings
    leases = ThreadLeases(settings)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Say the index is loaded and the server is ready."""
        return {"status": "ok", **corpus_info}

    add_web(app, settings)

    @app.post("/api/chat", response_model=None, openapi_extra={"requestBody": _BODY_SCHEMA})
    async def chat(request: Request) -> Response:
        """Answer ``{"message", "thread_id"?}`` as Server-Sent Events (step, token, sources, done, error)."""
        graph = app.state.graph
        if graph is None:
            return JSONResponse({"detail": "the threads database is not open yet"}, status_code=503)
        try:
            chat = await read_chat(request, settings)
            thread, release = await leases.claim(graph, chat.thread_id)
        except BadRequest as exc:
            return JSONResponse({"detail": exc.message}, status_code=exc.status)
        run = run_question(chat.question, graph=graph, cache=cache, token_chars=settings.token_chars, thread=thread)
        return EventSourceResponse(
            _framed(run, release),
            ping=settings.heartbeat_seconds,
            ping_message_factory=lambda: ServerSentEvent(comment="ping", sep=SEP),
            sep=SEP,
            # Also after a client that left before the stream started (the generator never ran).
            background=BackgroundTask(release),
        )

    return app


async def _framed(
    run: AsyncGenerator[Event, None], release: Callable[[], Awaitable[None]]
) -> AsyncIterator[ServerSentEvent]:
    """Give every event a JSON body and an ``id`` (1, 2, 3... within the stream); ``release`` the thread at the end."""
    counter = itertools.count(1)
    try:
        async for name, data in run:
            data_json = json.dumps(data, ensure_ascii=False)
            yield ServerSentEvent(event=name, data=data_json, id=str(next(counter)), sep=SEP)
    finally:
        # Shielded: after a disconnect this runs in a cancelled scope, and the lease must still go.
        with anyio.CancelScope(shield=True):
            await release()
        # Closing the inner generator runs its ``finally``, which cancels the graph task.
        await run.aclose()


def _threads_lifespan(make_graph: Callable[[Any], StreamingGraph], database_url: str) -> Any:
    """Open the threads database for the app's lifetime and build the graph on it."""
    from askai_graph.checkpoints import open_async_checkpointer

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_async_checkpointer(database_url) as checkpointer:
            app.state.graph = make_graph(checkpointer)
            try:
                yield
            finally:
                app.state.graph = None

    return lifespan


def _default_graph(settings: Settings) -> tuple[Callable[[Any], StreamingGraph], dict[str, Any]]:
    """Load the corpus once, index it, and return a builder of the default graph over it."""
    from askai_graph.graph import build_graph
    from askai_graph.providers import default_retriever

    retriever = default_retriever(settings)
    corpus = retriever.corpus
    return lambda checkpointer: build_graph(retriever=retriever, settings=settings, checkpointer=checkpointer), {
        "corpus": corpus.fingerprint,
        "posts": len(corpus.posts),
    }
