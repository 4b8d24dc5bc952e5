"""Serve a new index without a restart: ``askai index`` swapped it in, or the server got SIGHUP.

``askai index`` writes a new index beside the old one and renames it into place, so
the index folder's manifest is a new file after every build. ``IndexReloader`` checks
the manifest every ``index_reload_seconds`` (one ``stat``) and on SIGHUP, and then opens
the new index, builds a graph and an answer cache over it, and swaps the three in at
once (``Generation``). A request takes the generation that is current when it starts
and keeps it to the end: answers in flight finish on the old index (its open files and
memory maps stay readable after the rename), new questions use the new one. The new
answer cache's namespace is the new corpus fingerprint, so an answer cached for the
old corpus is never served for the new one. A new index that cannot be opened is
logged and the current one kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from langchain_core.retrievers import BaseRetriever

from askai_graph.retrieval.scope import SiteVariants
from askai_graph.server.answers.cache import SemanticCache
from askai_graph.server.answers.run import StreamingGraph
from askai_graph.settings import Settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Generation:
    """The graph, answer cache and corpus facts over one opened index, served together."""

    graph: StreamingGraph | None
    """The graph over this corpus (``None`` until the threads database is open)."""
    cache: SemanticCache | None
    """The answer cache keyed by this corpus' fingerprint (``None``: caching is off)."""
    info: dict[str, Any]
    """What ``/healthz`` reports about the corpus."""


def corpus_info(retriever: BaseRetriever) -> dict[str, Any]:
    """Return the ``/healthz`` facts of the retriever's corpus: fingerprint, pages, when built.

    A site indexed with versions or languages adds them (``variants``): ``/api/chat`` checks a reader's version.
    """
    corpus = retriever.corpus  # type: ignore[attr-defined]
    manifest = getattr(corpus.index, "manifest", None) or {}
    info = {
        "corpus": corpus.fingerprint,
        "fingerprint": corpus.fingerprint,
        "posts": len(corpus.posts),
        "built_at": manifest.get("built_at"),
        "loaded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    variants = getattr(retriever, "variants", None)
    if isinstance(variants, SiteVariants) and variants.any:
        info["variants"] = dataclasses.asdict(variants)
    return info


class IndexReloader:
    """Holds the current ``Generation`` and replaces it when the index changes (see module docstring)."""

    def __init__(
        self,
        open_retriever: Callable[[], BaseRetriever],
        make_graph: Callable[[BaseRetriever, Any], StreamingGraph],
        make_cache: Callable[[str, BaseRetriever], SemanticCache | None],
        *,
        index: Path | None,
        interval: float,
    ) -> None:
        """Open the current index now.

        Args:
            open_retriever: Opens the configured corpus (the default retriever).
            make_graph: Builds the graph over a retriever with a checkpointer.
            make_cache: Builds the answer cache for a corpus fingerprint and retriever.
            index: The built index folder to watch; ``None`` (a source folder, the
                bundled site) reloads on SIGHUP only.
            interval: Seconds between checks of the index manifest; 0 turns checking off.
        """
        self._open, self._make_graph, self._make_cache = open_retriever, make_graph, make_cache
        self.index, self.interval = index, interval
        self._checkpointer: Any = None
        self._stamp = self._manifest_stamp()
        self.retriever = open_retriever()
        info = corpus_info(self.retriever)
        self.current = Generation(None, make_cache(info["corpus"], self.retriever), info)
        self._lock = asyncio.Lock()
        self.reloads = 0

    @property
    def checkpointer(self) -> Any:
        """The threads store the graphs are built on (``None`` before ``attach``)."""
        return self._checkpointer

    def attach(self, checkpointer: Any) -> StreamingGraph:
        """Build the graph over the current index with ``checkpointer`` (kept for later reloads)."""
        self._checkpointer = checkpointer
        graph = self._make_graph(self.retriever, checkpointer)
        self.current = Generation(graph, self.current.cache, self.current.info)
        return graph

    def _manifest_stamp(self) -> tuple[int, int, int] | None:
        if self.index is None:
            return None
        from askai_graph.indexing.store import MANIFEST

        try:
            info = os.stat(self.index / MANIFEST)
        except OSError:
            return None  # mid-swap (between the two renames) or gone: check again next time
        return info.st_ino, info.st_mtime_ns, info.st_size

    def changed(self) -> bool:
        """Whether the index folder holds another build than the one being served."""
        stamp = self._manifest_stamp()
        return stamp is not None and stamp != self._stamp

    def _open_generation(self) -> tuple[BaseRetriever, Generation, tuple[int, int, int] | None]:
        stamp = self._manifest_stamp()  # before opening: a build landing meanwhile is seen next time
        retriever = self._open()
        info = corpus_info(retriever)
        graph = self._make_graph(retriever, self._checkpointer)
        return retriever, Generation(graph, self._make_cache(info["corpus"], retriever), info), stamp

    async def reload(self) -> bool:
        """Open the index again and swap it in; ``False`` (current one kept) if it cannot be opened."""
        async with self._lock:
            try:
                # Opening reads the manifest, maps BM25 and may load an embedding model: off the loop.
                retriever, generation, stamp = await asyncio.to_thread(self._open_generation)
            except Exception:
                logger.exception("the new index could not be opened; still serving the previous one")
                self._stamp = self._manifest_stamp()  # do not retry the same broken build every tick
                return False
            self.retriever, self.current, self._stamp = retriever, generation, stamp
            self.reloads += 1
            logger.info("serving the index built at %s (%s)", generation.info["built_at"], generation.info["corpus"])
            return True

    async def watch(self) -> None:
        """Check the index manifest every ``interval`` seconds and reload when it changed."""
        while True:
            await asyncio.sleep(self.interval)
            if self.changed():
                await self.reload()

    @contextlib.asynccontextmanager
    async def threads_in(self, database_url: str) -> AsyncIterator[None]:
        """Open the threads database while the app runs, and serve a graph built on it meanwhile."""
        from askai_graph.stores.checkpoints import open_async_checkpointer

        async with open_async_checkpointer(database_url) as checkpointer:
            self.attach(checkpointer)
            try:
                yield
            finally:
                # The database is closing: no graph on it may be handed out any more.
                self.current = Generation(None, self.current.cache, self.current.info)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Watch the index and listen for SIGHUP while the app runs."""
        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[Any]] = set()

        def hangup() -> None:
            task = loop.create_task(self.reload())
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        watcher = loop.create_task(self.watch()) if self.interval > 0 and self.index is not None else None
        listening = False
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError, AttributeError):
            loop.add_signal_handler(signal.SIGHUP, hangup)  # main thread only; not on Windows
            listening = True
        if self.changed():
            hangup()  # a build (and its SIGHUP) that landed while the index was being opened
        try:
            yield
        finally:
            if listening:
                loop.remove_signal_handler(signal.SIGHUP)
            for task in [watcher, *tasks]:
                if task is not None:
                    task.cancel()
            for task in [watcher, *tasks]:
                if task is not None:
                    with contextlib.suppress(asyncio.CancelledError):
                        await task


def default_reloader(
    settings: Settings,
    namespace: str | None,
    make_cache: Callable[[str | None, BaseRetriever | None], SemanticCache | None],
) -> IndexReloader:
    """Open the configured corpus with the default retriever and graph, and keep it current.

    Each corpus' cache namespace is its fingerprint, prefixed by ``namespace`` if given.
    """
    from askai_graph.graph import build_graph
    from askai_graph.indexing import is_built_index
    from askai_graph.models.providers import default_retriever
    from askai_graph.retrieval.section_vectors import warm_retriever

    def make_graph(retriever: BaseRetriever, checkpointer: Any) -> StreamingGraph:
        graph = build_graph(retriever=retriever, settings=settings, checkpointer=checkpointer)
        # Before the first question: its Writer and anchoring would embed the sections of
        # every page it drafts from (seconds on a local model), the later ones find them.
        warm_retriever(retriever)
        return graph

    def cache_for(fingerprint: str, retriever: BaseRetriever) -> SemanticCache | None:
        return make_cache(f"{namespace}:{fingerprint}" if namespace else fingerprint, retriever)

    index = settings.corpus if settings.corpus is not None and is_built_index(settings.corpus) else None
    return IndexReloader(
        lambda: default_retriever(settings), make_graph, cache_for, index=index, interval=settings.index_reload_seconds
    )


def live(app: FastAPI) -> Generation:
    """Return what the app serves now (the reloader's current generation, if it has one)."""
    reloader: IndexReloader | None = app.state.reloader
    return reloader.current if reloader is not None else app.state.live
