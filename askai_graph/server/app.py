"""The FastAPI app: ``POST /api/chat`` as Server-Sent Events, and ``GET /healthz``.

The endpoint is thin: it checks the request (``request``), then frames the events of
``run.run_question`` as SSE. sse-starlette supplies the heartbeat comments, the
``Cache-Control: no-store`` and ``X-Accel-Buffering: no`` headers, and notices a client
disconnect; ``run`` turns that into a cancelled graph.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from langchain_core.embeddings import Embeddings
from sse_starlette import EventSourceResponse, ServerSentEvent

from askai_graph.server.cache import CacheStore, InMemoryCacheStore, SemanticCache
from askai_graph.server.embeddings import LexicalEmbeddings
from askai_graph.server.events import Event
from askai_graph.server.request import BadRequest, read_question
from askai_graph.server.run import StreamingGraph, run_question
from askai_graph.settings import Settings

SEP = "\n"
"""Line separator of the event stream (sse-starlette defaults to CRLF; LF is what most clients log)."""

_BODY_SCHEMA = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {"message": {"type": "string", "minLength": 1}},
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
        graph: A compiled Ask AI graph (anything with LangGraph's ``astream``). ``None``
            loads the configured corpus once (the bundled sample site by default),
            builds its BM25 index and the default graph over it.
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
    if graph is None:
        graph, corpus_info = _default_graph(settings)
        namespace = namespace or corpus_info["corpus"]
    cache = None
    if settings.cache_enabled:
        cache = SemanticCache(
            LexicalEmbeddings() if embeddings is None else embeddings,
            # ``is None``, not ``or``: an empty store has length 0 and is falsy.
            InMemoryCacheStore(settings.cache_size) if cache_store is None else cache_store,
            namespace=namespace,
            threshold=settings.cache_threshold,
        )
    app = FastAPI(title="askai-graph", summary="Ask a content site's articles; answers stream as SSE.")
    app.state.graph, app.state.cache, app.state.settings = graph, cache, settings

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Say the index is loaded and the server is ready."""
        return {"status": "ok", **corpus_info}

    @app.post("/api/chat", response_model=None, openapi_extra={"requestBody": _BODY_SCHEMA})
    async def chat(request: Request) -> Response:
        """Answer ``{"message": ...}`` as Server-Sent Events (step, token, sources, done, error)."""
        try:
            question = await read_question(request, settings)
        except BadRequest as exc:
            return JSONResponse({"detail": exc.message}, status_code=exc.status)
        run = run_question(question, graph=graph, cache=cache, token_chars=settings.token_chars)
        return EventSourceResponse(
            _framed(run),
            ping=settings.heartbeat_seconds,
            ping_message_factory=lambda: ServerSentEvent(comment="ping", sep=SEP),
            sep=SEP,
        )

    return app


async def _framed(run: AsyncGenerator[Event, None]) -> AsyncIterator[ServerSentEvent]:
    """Give every event a JSON body and an ``id`` (1, 2, 3... within the stream)."""
    counter = itertools.count(1)
    try:
        async for name, data in run:
            data_json = json.dumps(data, ensure_ascii=False)
            yield ServerSentEvent(event=name, data=data_json, id=str(next(counter)), sep=SEP)
    finally:
        # Closing the inner generator runs its ``finally``, which cancels the graph task.
        await run.aclose()


def _default_graph(settings: Settings) -> tuple[StreamingGraph, dict[str, Any]]:
    """Load the corpus once, index it, and build the default graph over it."""
    from askai_graph.graph import build_graph
    from askai_graph.providers import default_retriever

    retriever = default_retriever(settings)
    corpus = retriever.corpus
    return build_graph(retriever=retriever, settings=settings), {
        "corpus": corpus.fingerprint,
        "posts": len(corpus.posts),
    }
