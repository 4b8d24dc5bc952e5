"""The FastAPI app: ``POST /api/chat`` as SSE, ``POST /api/feedback``, ``GET /healthz`` and the widget (``web``).

The endpoint is thin: it admits the request (stream cap and rate limit, ``limits``),
checks it (``request``), resolves its thread, takes a stream slot, then frames the
events of ``run.run_question`` as SSE. sse-starlette supplies the heartbeat
comments, the ``Cache-Control: no-store`` and ``X-Accel-Buffering: no`` headers, and
notices a client disconnect; ``run`` turns that into a cancelled graph. ``recording``
logs each answer under the ``run_id`` its ``done`` carries; ``feedback`` rates it.

Threads (``threads.ThreadLeases``): no ``thread_id`` starts a new one; an unknown or
expired one is a 404; one whose answer is still streaming is a 409. The default graph
persists threads in ``settings.database_url`` (opened for the app's lifespan), or in
process memory when it is unset. With ``settings.graph_url`` the graph, its threads
included, runs on a LangGraph Server instead (``remote``).
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
from langchain_core.retrievers import BaseRetriever
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask
from starlette.types import Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from askai_graph.server.cache import CacheStore, InMemoryCacheStore, SemanticCache, config_digest
from askai_graph.server.collector import tune_collector
from askai_graph.server.events import Event
from askai_graph.server.feedback import add_feedback_route
from askai_graph.server.limits import ClientRateLimit, Slot, StreamSlots, trusted_hosts
from askai_graph.server.openapi import CHAT_RESPONSES, REQUEST_BODY, describe_events
from askai_graph.server.outages import THREADS_UNREACHABLE, database_outage
from askai_graph.server.recording import RecordingGraph, recorded
from askai_graph.server.reload import Generation, IndexReloader, default_reloader, entered
from askai_graph.server.request import BadRequest, ClientGone, check_content_type, read_chat
from askai_graph.server.run import StreamingGraph, run_question
from askai_graph.server.threads import ThreadLeases
from askai_graph.server.web import add_web
from askai_graph.settings import Settings
from askai_graph.stores.runlog import RunLog, open_run_log
from askai_graph.validation.parsing import load_parser

SEP = "\n"
"""Line separator of the event stream (sse-starlette defaults to CRLF; LF is what most clients log)."""


def create_app(
    graph: StreamingGraph | None = None,
    settings: Settings | None = None,
    *,
    namespace: str | None = None,
    embeddings: Embeddings | None = None,
    cache_store: CacheStore | None = None,
    run_log: RunLog | None = None,
) -> FastAPI:
    """Build the HTTP app.

    Args:
        graph: A compiled Ask AI graph (anything with LangGraph's ``astream``); build it
            with a checkpointer for follow-ups to see their thread. ``None`` loads the
            configured corpus once (the bundled sample site by default), builds its BM25
            index and the default graph over it, with threads in
            ``settings.database_url`` (in memory when unset); or, when
            ``settings.graph_url`` is set, streams ``settings.graph_id`` from that
            LangGraph Server (``remote.RemoteAskGraph``).
        settings: Configuration; ``Settings()`` when ``None``.
        namespace: What cached answers depend on beyond ``settings`` (which are always
            digested into it); the corpus fingerprint by default. With a custom
            ``graph`` and no namespace, the cache is private to this app.
        embeddings: Optional paraphrase finder for the answer cache; when ``None``, the
            configured embedding model (``settings.embeddings``, unless
            ``cache_paraphrases`` is off); without any, only the same question (see
            ``questions.exact_key``) is served from the cache.
        cache_store: Where cached answers live; when ``None``, Redis at
            ``settings.cache_url`` if set, else an in-process LRU, either of
            ``settings.cache_size`` entries.
        run_log: Where answers and feedback are logged; when ``None``, opened from
            ``settings.database_url`` if set (no log otherwise). ``settings.run_log``
            false turns logging off either way.

    Returns:
        The FastAPI app; the corpus index is loaded before this returns, so
        ``/healthz`` answers as soon as the server accepts connections.
    """
    settings = settings or Settings()
    corpus_info: dict[str, Any] = {}
    lifespan = None
    reloader = None
    if settings.cache_enabled and cache_store is None:
        # A store the app opens is closed with it (its connections belong to the app's loop).
        cache_store = _default_store(settings)
        lifespan = _closing_lifespan(lifespan, cache_store)

    def make_cache(space: str | None, retriever: BaseRetriever | None) -> SemanticCache | None:
        if not settings.cache_enabled or cache_store is None:
            return None
        return answer_cache(settings, cache_store, namespace=space, embeddings=embeddings, retriever=retriever)

    if graph is None and settings.graph_url:
        # The graph runs on LangGraph Server, threads and all: this app keeps no graph state.
        from askai_graph.server.remote import RemoteAskGraph

        graph = RemoteAskGraph(settings.graph_url, settings.graph_id)
        corpus_info = {"graph_url": settings.graph_url, "graph_id": settings.graph_id}
        # The deployment's corpus is not known here: its cached answers are keyed by where it runs.
        namespace = namespace or f"langgraph-server:{settings.graph_url}#{settings.graph_id}"
        lifespan = _closing_lifespan(lifespan, graph)
    elif graph is None:
        # The app's own corpus: reopened when a new index is swapped in (or on SIGHUP),
        # its cache keyed by each corpus' fingerprint (``namespace`` prefixes it if given).
        reloader = default_reloader(settings, namespace, make_cache)
        if settings.database_url:
            lifespan = _threads_lifespan(reloader, settings.database_url, lifespan)
        else:
            from langgraph.checkpoint.memory import InMemorySaver

            graph = reloader.attach(InMemorySaver())
            lifespan = reloader.lifespan(lifespan)
    cache = reloader.current.cache if reloader is not None else make_cache(namespace, None)
    if not settings.run_log:
        run_log = None
    elif run_log is None and settings.database_url:
        run_log = open_run_log(settings.database_url)
    rate_limit = ClientRateLimit(settings.rate_limit)
    if settings.cache_url and settings.rate_limit.strip():
        from askai_graph.server.shared_limits import SharedRateLimit

        rate_limit = SharedRateLimit(settings.rate_limit, settings.cache_url)
        lifespan = _closing_lifespan(lifespan, rate_limit)
    slots = StreamSlots(settings.max_streams)
    if settings.cache_url:
        from askai_graph.server.shared_streams import SharedStreamSlots

        slots = SharedStreamSlots(settings.max_streams, settings.cache_url, lease_seconds=settings.stream_lease_seconds)
        lifespan = _closing_lifespan(lifespan, slots)
    lifespan = _serving_lifespan(lifespan)
    app = FastAPI(
        title="askai-graph", summary="Ask a content site's articles; answers stream as SSE.", lifespan=lifespan
    )
    # The one piece of app state: what is served now. The graph (which a threads database
    # opens only in the lifespan), its answer cache and corpus facts, swapped together on reload.
    app.state.live = None if reloader is not None else Generation(graph, cache, corpus_info)
    app.state.reloader = reloader
    leases = ThreadLeases(settings)
    if settings.trusted_proxies.strip():
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=trusted_hosts(settings.trusted_proxies))
    add_feedback_route(app, run_log, settings)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Say the index is loaded and the server is ready, and which index it serves (fingerprint, built at)."""
        return {"status": "ok", **_live(app).info}

    add_web(app, settings)

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
        live = _live(app)
        graph, cache = live.graph, live.cache
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

    describe_events(app)
    return app


def _closing_lifespan(inner: Any, resource: object) -> Any:
    """Run ``inner`` (if any), then close ``resource`` if it has connections to close."""
    close = getattr(resource, "aclose", None)
    if close is None:
        return inner

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            if inner is None:
                yield
            else:
                async with inner(app):
                    yield
        finally:
            await close()

    return lifespan


def _serving_lifespan(inner: Any) -> Any:
    """Run ``inner`` (if any); once it has started (the graph is built), get ready to serve.

    That is: load the Validation parser (its import scans all of Unicode, ~0.1 s of CPU
    that would otherwise land on the first questions), then tune the collector.
    """

    def ready() -> None:
        load_parser()
        tune_collector()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if inner is None:
            ready()
            yield
            return
        async with inner(app):
            ready()
            yield

    return lifespan


def _default_store(settings: Settings) -> CacheStore:
    """Return the Redis store when ``cache_url`` is set, else an in-process LRU."""
    if settings.cache_url:
        from askai_graph.server.redis_cache import RedisCacheStore

        return RedisCacheStore(
            settings.cache_url, max_entries=settings.cache_size, ttl_seconds=settings.cache_ttl_seconds
        )
    return InMemoryCacheStore(settings.cache_size)


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


def _live(app: FastAPI) -> Generation:
    """Return what the app serves now (the reloader's current generation, if it has one)."""
    reloader: IndexReloader | None = app.state.reloader
    return reloader.current if reloader is not None else app.state.live


def _threads_lifespan(reloader: IndexReloader, database_url: str, inner: Any) -> Any:
    """Open the threads database for the app's lifetime, build the graph on it, and keep it current."""
    from askai_graph.stores.checkpoints import open_async_checkpointer

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with entered(inner, app), open_async_checkpointer(database_url) as checkpointer:
            reloader.attach(checkpointer)
            try:
                async with reloader.running():
                    yield
            finally:
                reloader.current = Generation(None, reloader.current.cache, reloader.current.info)

    return lifespan


def answer_cache(
    settings: Settings,
    store: CacheStore,
    *,
    namespace: str | None,
    embeddings: Embeddings | None = None,
    retriever: BaseRetriever | None = None,
) -> SemanticCache:
    """Return the app's answer cache over ``store``.

    Its namespace is ``namespace`` (what answers depend on beyond settings) plus the
    settings' digest; ``None`` keeps the cache private. Paraphrases are found with
    ``embeddings`` when given, else with the configured embedding model (the
    ``retriever``'s own copy when it has one) unless ``cache_paraphrases`` is off.
    """
    space = None
    if embeddings is None and settings.embeddings and settings.cache_paraphrases:
        embeddings, space = _configured_embeddings(settings, retriever)
    return SemanticCache(
        store,
        namespace=f"{namespace}:{config_digest(settings)}" if namespace else None,
        embeddings=embeddings,
        threshold=settings.cache_threshold,
        space=space,
    )


def _configured_embeddings(settings: Settings, retriever: BaseRetriever | None) -> tuple[Embeddings, str | None]:
    """Return the configured embedding model for the cache and the name of its space.

    The default retriever's own model when it has one (one copy in memory, and the
    question is embedded by the same model for both), else a fresh one.
    """
    from askai_graph.retrieval.embeddings import embeddings_for, model_key

    model = getattr(retriever, "embeddings", None)
    if not isinstance(model, Embeddings):
        model = embeddings_for(settings)
    if model is None:  # settings.embeddings is set, so embeddings_for returned a model
        raise RuntimeError("no embedding model for the configured ASKAI_EMBEDDINGS")
    return model, model_key(settings)
