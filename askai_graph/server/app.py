"""The FastAPI app: the routes of ``chat`` (SSE), ``feedback``, ``health`` and ``web`` (the widget).

``create_app`` assembles what the routes share (the graph or its reloader, the answer
cache, the run log, the stream cap and rate limit, the thread leases) and the lifespan
that opens and closes them, then adds each route module the same way. ``recording``
logs each answer under the ``run_id`` its ``done`` carries; ``feedback`` rates it.

Threads (``leases.ThreadLeases``): no ``thread_id`` starts a new one; an unknown or
expired one is a 404; one whose answer is still streaming is a 409. The default graph
persists threads in ``settings.database_url`` (opened for the app's lifespan), or in
process memory when it is unset. With ``settings.graph_url`` the graph, its threads
included, runs on a LangGraph Server instead (``remote``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from askai_graph.server.cache import CacheStore, InMemoryCacheStore, SemanticCache, config_digest
from askai_graph.server.chat import add_chat_route
from askai_graph.server.collector import tune_collector
from askai_graph.server.feedback import add_feedback_route
from askai_graph.server.health import add_health_route
from askai_graph.server.limits import ClientRateLimit, StreamSlots, trusted_hosts
from askai_graph.server.openapi import describe_events
from askai_graph.server.reload import Generation, IndexReloader, default_reloader, entered
from askai_graph.server.run import StreamingGraph
from askai_graph.server.leases import ThreadLeases
from askai_graph.server.web import add_web
from askai_graph.settings import Settings
from askai_graph.stores.runlog import RunLog, open_run_log
from askai_graph.validation.parsing import load_parser


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
    if settings.trusted_proxies.strip():
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=trusted_hosts(settings.trusted_proxies))
    # Every route module is added the same way: the app and what its routes need.
    add_chat_route(app, settings, slots=slots, rate_limit=rate_limit, leases=ThreadLeases(settings), run_log=run_log)
    add_feedback_route(app, run_log, settings)
    add_health_route(app)
    add_web(app, settings)
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
