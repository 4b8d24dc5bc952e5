"""The FastAPI app: a route module each for ``chat`` (SSE), ``feedback``, ``search``, ``health``, ``web``, and more.

``create_app`` assembles what the routes share (the graph or its reloader, the answer
cache, the run log, the stream cap and the two rate limits, the thread leases), lists
the resources the app's one lifespan opens and closes (``lifespan``), then includes
each route module the same way: ``app.include_router(<module>.router(<what its routes
need>))``. ``recording`` logs each answer under the ``run_id`` its ``done`` carries;
``feedback`` rates it.

Threads (``leases.ThreadLeases``): no ``thread_id`` starts a new one; an unknown or
expired one is a 404; one whose answer is still streaming is a 409. The default graph
persists threads in ``settings.database_url`` (opened for the app's lifespan), or in
process memory when it is unset. With ``settings.graph_url`` the graph, its threads
included, runs on a LangGraph Server instead (``remote``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path

from fastapi import FastAPI
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from starlette.middleware import Middleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from askai_graph.retrieval.corpus import Corpus, missing_pages
from askai_graph.server.answers.cache import CacheStore, InMemoryCacheStore, SemanticCache, config_digest
from askai_graph.server.answers.desk import Desk
from askai_graph.server.answers.leases import ThreadLeases, utc_now
from askai_graph.server.answers.reload import Generation, IndexReloader, default_reloader
from askai_graph.server.answers.run import StreamingGraph
from askai_graph.server.answers.search_settle import SearchSettler
from askai_graph.server.dashboard import admin
from askai_graph.server.dashboard.admin_revocations import Revocations
from askai_graph.server.dashboard.admin_throttle import sign_in_throttle
from askai_graph.server.guards.limits import StreamSlots, rate_limit_for, trusted_hosts
from askai_graph.server.guards.pools import collaborators
from askai_graph.server.guards.request import BadRequest, refused
from askai_graph.server.housekeeping.collector import tune_collector
from askai_graph.server.housekeeping.pruning import pruning
from askai_graph.server.housekeeping.retention import retention
from askai_graph.server.lifespan import Resource, closing, lifespan
from askai_graph.server.routes import chat, feedback, health, llms, search, search_click, suggestions, web
from askai_graph.server.routes.mcp_endpoint import MCPEndpoint
from askai_graph.server.routes.openapi import describe_events
from askai_graph.settings import Settings
from askai_graph.stores.pruning import PruneCounts
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog, open_run_log
from askai_graph.validation.parsing import load_parser

MakeCache = Callable[[str | None, BaseRetriever | None], SemanticCache | None]
"""Builds the answer cache for a namespace (and the retriever whose embedding model it may share)."""


def create_app(
    graph: StreamingGraph | None = None,
    settings: Settings | None = None,
    *,
    namespace: str | None = None,
    embeddings: Embeddings | None = None,
    cache_store: CacheStore | None = None,
    run_log: RunLog | None = None,
    site: Path | None = None,
    clock: Callable[[], datetime] = utc_now,
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
            ``same_question.exact_key``) is served from the cache.
        cache_store: Where cached answers live; when ``None``, Redis at
            ``settings.cache_url`` if set, else an in-process LRU, either of
            ``settings.cache_size`` entries.
        run_log: Where answers and feedback are logged; when ``None``, opened from
            ``settings.database_url`` if set (no log otherwise). ``settings.run_log``
            false turns logging off either way.
        site: A built site to serve at ``/`` with the app (``askai serve --site``):
            its pages, with the API and the widget at the same origin.
        clock: The wall clock a thread's age is read on against ``thread_ttl_hours``
            (its checkpoints are stamped on the real one); a test moves it forward
            instead of waiting out a lifetime.

    Returns:
        The FastAPI app; the corpus index is loaded before this returns, so
        ``/healthz`` answers as soon as the server accepts connections.
    """
    settings = settings or Settings()
    # A store the app opens is closed with it (its connections belong to the app's loop).
    owned_store = _default_store(settings) if settings.cache_enabled and cache_store is None else None
    store = owned_store if cache_store is None else cache_store  # (an empty store is falsy: no ``or``)
    pruned = PruneCounts()  # expired threads deleted in the background, shown on /healthz
    served = _served(graph, settings, namespace, partial(_cache, settings, store, embeddings), pruned)
    run_log = _run_log(settings, run_log)
    readers = ReaderHash(settings.reader_hash_key)  # a client address is only ever kept as this hash
    questions = rate_limit_for(settings.rate_limit, name="askai-chat", cache_url=settings.cache_url, readers=readers)
    per_minute = f"{settings.feedback_per_minute}/minute"
    ratings = rate_limit_for(per_minute, name="askai-feedback", cache_url=settings.cache_url, readers=readers)
    per_minute = f"{settings.search_per_minute}/minute"
    searches = rate_limit_for(per_minute, name="askai-search", cache_url=settings.cache_url, readers=readers)
    slots = _stream_slots(settings)
    sign_ins = sign_in_throttle(settings.cache_url, readers) if settings.admin_token else None
    sign_outs = Revocations(settings.cache_url) if settings.admin_token else None
    # The search log keeps the query a reader settled on, not each keystroke's (``search_settle``).
    settled = SearchSettler(run_log.record_search, settings.search_settle_seconds) if run_log is not None else None
    # One desk admits and answers every question, from /api/chat or from MCP's ask_docs at /mcp
    # (askai_graph.mcp): the same limits, threads, cache and run log. The MCP SDK is imported by
    # the first /mcp request, not here (``mcp_endpoint``).
    desk = Desk(
        settings,
        slots=slots,
        rate_limit=questions,
        leases=ThreadLeases(settings, clock=clock),
        run_log=run_log,
        readers=readers,
        reloader=served.reloader,
        fixed=served.live,
        settled=settled,
    )
    mcp = MCPEndpoint(desk)
    # Opened in this order when the app starts, closed in the reverse order when it stops.
    # The collaborators' pool first, so it closes last (``pools``: bookkeeping never waits on it).
    resources: list[Resource] = [
        partial(collaborators, settings.collaborator_threads),
        closing(owned_store),
        *served.resources, closing(questions), closing(ratings), closing(searches), closing(slots), mcp.running,
        closing(sign_ins), closing(sign_outs),
        partial(retention, run_log, settings.runlog_retention_days),
        closing(settled),  # closed first: the searches it holds are queued before the run log stops
    ]
    app = FastAPI(
        title="askai-graph",
        summary="Ask a content site's articles; answers stream as SSE.",
        lifespan=lifespan(resources, ready=_ready),
        middleware=_middleware(settings),
        # Interactive docs are another page for a stranger to load; /openapi.json stays.
        docs_url="/docs" if settings.api_docs else None,
        redoc_url="/redoc" if settings.api_docs else None,
    )
    app.add_exception_handler(BadRequest, refused)
    mcp.mount(app)
    # The one piece of app state: what is served now. The graph (which a threads database
    # opens only in the lifespan), its answer cache and corpus facts, swapped together on reload.
    app.state.live, app.state.reloader, app.state.desk = served.live, served.reloader, desk
    # Every route module is added the same way: a router built from what its routes need.
    app.include_router(chat.router(desk))
    app.include_router(feedback.router(settings, rate_limit=ratings, run_log=run_log))
    app.include_router(search.router(settings, rate_limit=searches, settled=settled, readers=readers))
    app.include_router(
        search_click.router(settings, rate_limit=searches, run_log=run_log, settled=settled, readers=readers)
    )
    app.include_router(health.router(pruned))
    app.include_router(suggestions.router(settings))
    app.include_router(web.router(settings, site=site is not None))
    app.include_router(admin.router(settings, run_log=run_log, sign_ins=sign_ins, sign_outs=sign_outs))
    app.include_router(llms.router())
    describe_events(app)
    if site is not None:
        app.mount("/", web.site_pages(site), name="site")  # last: every route above wins
    return app


@dataclass(frozen=True)
class _Served:
    """What the app answers with, and what must be open for it while the app runs."""

    live: Generation | None
    """The one generation served (``None``: the reloader's current one)."""
    reloader: IndexReloader | None
    """Keeps the app's own corpus current (``None`` for a given or remote graph)."""
    resources: list[Resource]
    """Opened for the app's lifetime, in this order."""


def _served(
    graph: StreamingGraph | None, settings: Settings, namespace: str | None, make_cache: MakeCache, pruned: PruneCounts
) -> _Served:
    """Return the given graph, the remote one (``graph_url``), or the configured corpus' reloaded one."""
    if graph is not None:
        return _Served(Generation(graph, make_cache(namespace, None), {}), None, [])
    if settings.graph_url:
        # The graph runs on LangGraph Server, threads and all: this app keeps no graph state.
        from askai_graph.server.scaleout.remote import RemoteAskGraph

        remote = RemoteAskGraph(settings.graph_url, settings.graph_id)
        info = {"graph_url": settings.graph_url, "graph_id": settings.graph_id}
        # The deployment's corpus is not known here: its cached answers are keyed by where it runs.
        space = namespace or f"langgraph-server:{settings.graph_url}#{settings.graph_id}"
        return _Served(Generation(remote, make_cache(space, None), info), None, [closing(remote)])
    # The app's own corpus: reopened when a new index is swapped in (or on SIGHUP),
    # its cache keyed by each corpus' fingerprint (``namespace`` prefixes it if given).
    reloader = default_reloader(settings, namespace, make_cache)
    if settings.database_url:
        # The threads database, then the watcher of the index: it stops before the database closes.
        threads = partial(reloader.threads_in, settings.database_url)
        return _Served(None, reloader, [threads, partial(pruning, reloader, settings, pruned), reloader.running])
    from langgraph.checkpoint.memory import InMemorySaver

    reloader.attach(InMemorySaver())
    return _Served(None, reloader, [partial(pruning, reloader, settings, pruned), reloader.running])


def _cache(
    settings: Settings,
    store: CacheStore | None,
    embeddings: Embeddings | None,
    namespace: str | None,
    retriever: BaseRetriever | None,
) -> SemanticCache | None:
    """Return the answer cache for ``namespace``, or ``None`` when caching is off."""
    if not settings.cache_enabled or store is None:
        return None
    return answer_cache(settings, store, namespace=namespace, embeddings=embeddings, retriever=retriever)


def _run_log(settings: Settings, run_log: RunLog | None) -> RunLog | None:
    """Return the run log: the one given, else opened from ``database_url``; none when ``run_log`` is off."""
    if not settings.run_log:
        return None
    if run_log is None and settings.database_url:
        return open_run_log(settings.database_url)
    return run_log


def _stream_slots(settings: Settings) -> StreamSlots:
    """Return the stream cap: counted in Redis across processes with ``cache_url``, else in this process."""
    if settings.cache_url:
        from askai_graph.server.scaleout.shared_streams import SharedStreamSlots

        return SharedStreamSlots(settings.max_streams, settings.cache_url, lease_seconds=settings.stream_lease_seconds)
    return StreamSlots(settings.max_streams)


def _middleware(settings: Settings) -> list[Middleware]:
    """Return the app's middleware, outermost first: CORS for the widget's sites, then who the client is."""
    middleware = web.cors(settings)
    if settings.trusted_proxies.strip():
        middleware.append(Middleware(ProxyHeadersMiddleware, trusted_hosts=trusted_hosts(settings.trusted_proxies)))
    return middleware


def _ready() -> None:
    """Get ready to serve, once the graph is built.

    That is: load the Validation parser (its import scans all of Unicode, ~0.1 s of CPU
    that would otherwise land on the first questions), then tune the collector.
    """
    load_parser()
    tune_collector()


def _default_store(settings: Settings) -> CacheStore:
    """Return the Redis store when ``cache_url`` is set, else an in-process LRU."""
    if settings.cache_url:
        from askai_graph.server.answers.redis_cache import RedisCacheStore

        return RedisCacheStore(
            settings.cache_url, max_entries=settings.cache_size, ttl_seconds=settings.cache_ttl_seconds
        )
    return InMemoryCacheStore(settings.cache_size)


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
    ``retriever``'s own copy when it has one) unless ``cache_paraphrases`` is off. A
    hit's cards are checked against the ``retriever``'s corpus, when it has one.
    """
    space = None
    if embeddings is None and settings.embeddings and settings.cache_paraphrases:
        embeddings, space = _configured_embeddings(settings, retriever)
    corpus = getattr(retriever, "corpus", None)
    return SemanticCache(
        store,
        namespace=f"{namespace}:{config_digest(settings)}" if namespace else None,
        embeddings=embeddings,
        threshold=settings.cache_threshold,
        space=space,
        pages=missing_pages(corpus) if isinstance(corpus, Corpus) else None,
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
