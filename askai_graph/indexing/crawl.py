"""``askai index https://site/``: crawl a live site into an index, incrementally and atomically.

The crawl (``crawler.Crawler``) runs on its own thread with its own event loop and
hands pages over a bounded queue to the same index writer a folder source uses, on the
calling thread: fetching and parsing overlap, and a slow parse holds back the crawl by
at most the queue's length. The previous index's crawl state (``crawlstate``) gives
the validators for conditional requests; the new state is written into the new index
before it is swapped in, so the two always agree.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import queue
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from langchain_core.embeddings import Embeddings

from askai_graph.indexing.build import check_out, previous_index, write_source
from askai_graph.indexing.crawl_options import CrawlOptions
from askai_graph.indexing.crawler import Crawler
from askai_graph.indexing.crawlstate import CrawlState, load_state
from askai_graph.indexing.fetch import AddressPolicy, CheckedTransport, Fetcher, Resolver, system_resolver, url_problem
from askai_graph.indexing.files import Skip
from askai_graph.indexing.pacing import HostPacer
from askai_graph.indexing.scope import normalize
from askai_graph.indexing.sources import Source, Unit
from askai_graph.indexing.writer import IndexSummary
from askai_graph.retrieval.corpus import CorpusError
from askai_graph.retrieval.passages import DEFAULT_PASSAGE_CHARS

__all__ = ["CrawlOptions", "crawl_index", "is_site_url"]

_HANDOFF = 64
"""Pages fetched but not yet indexed, at most (bounds memory: each holds its body)."""


def is_site_url(source: str) -> bool:
    """Return whether ``askai index SOURCE`` names a site to crawl rather than a folder or file."""
    return source.lower().startswith(("http://", "https://"))


def crawl_index(
    url: str,
    out: Path,
    options: CrawlOptions | None = None,
    *,
    strict: bool = False,
    progress: bool = False,
    passage_chars: int = DEFAULT_PASSAGE_CHARS,
    embeddings: Embeddings | None = None,
    embeddings_model: str | None = None,
    resolve: Resolver = system_resolver,
    address_allowed: AddressPolicy | None = None,
) -> IndexSummary:
    """Crawl the site at ``url`` (a page, or a ``sitemap.xml``) into the index folder ``out``.

    ``resolve`` and ``address_allowed`` replace the resolver and the public-address
    check (tests point host names at chosen addresses).

    Raises:
        CorpusError: the URL is not a public http(s) URL without credentials, its
            ``robots.txt`` or sitemap cannot be read, no page could be indexed, or
            ``out`` is not an index. ``StrictIndexError`` when ``strict`` and a page was skipped.
    """
    options = options or CrawlOptions()
    problem = url_problem(url.strip())
    start = normalize(url)
    if problem or start is None:
        raise CorpusError(f"{url}: cannot crawl it ({problem or 'not a URL'})")
    check_out(out)
    context = hashlib.sha256(json.dumps(["crawl", start]).encode()).hexdigest()
    previous = previous_index(out, context, passage_chars)
    prior = CrawlState()
    if previous is not None:
        stored = dict(previous.query("SELECT unit, stamp FROM posts UNION ALL SELECT unit, stamp FROM skips"))
        prior = load_state(out, stored)
    run = _CrawlRun(start, options, prior, resolve, address_allowed)
    source = Source(
        "crawl", context, run.units(progress), notes=run.notes, report=run.report, save=run.save, own_progress=True
    )
    return write_source(
        source, out, start, strict=strict, progress=progress, passage_chars=passage_chars,
        embeddings=embeddings, embeddings_model=embeddings_model,
    )


class _Done:
    """The crawl finished (or failed with ``error``)."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


class _CrawlRun:
    """One crawl on its own thread, its pages handed over as units."""

    def __init__(
        self, start: str, options: CrawlOptions, prior: CrawlState, resolve: Resolver,
        address_allowed: AddressPolicy | None,
    ) -> None:
        self.start, self.options, self.prior = start, options, prior
        self.resolve, self.address_allowed = resolve, address_allowed
        self.notes: list[Skip] = []
        self.report: list[str] = []
        self.state = CrawlState()

    def save(self, folder: Path) -> None:
        self.state.save(folder)

    def units(self, progress: bool) -> Iterator[Unit | Skip]:
        handoff: queue.Queue[Unit | Skip | _Done] = queue.Queue(maxsize=_HANDOFF)
        stop = threading.Event()

        def crawl() -> None:
            try:
                asyncio.run(self._crawl(handoff, stop, progress))
            except BaseException as exc:  # handed to the indexing thread, which raises it
                handoff.put(_Done(_cause(exc)))
            else:
                handoff.put(_Done())

        thread = threading.Thread(target=crawl, name="askai-crawl", daemon=True)
        thread.start()
        try:
            while not isinstance(item := handoff.get(), _Done):
                yield item
            if item.error is not None:
                raise item.error
        finally:
            stop.set()
            while thread.is_alive():  # unblock a crawl waiting on a full queue, then let it end
                try:
                    handoff.get(timeout=0.1)
                except queue.Empty:
                    pass
            thread.join()

    async def _crawl(self, handoff: queue.Queue[Unit | Skip | _Done], stop: threading.Event, progress: bool) -> None:
        from tqdm import tqdm

        options = self.options
        transport = CheckedTransport(
            allow_private=options.allow_private, resolve=self.resolve, address_allowed=self.address_allowed
        )
        pacer = HostPacer(options.rate)
        fetcher = Fetcher(
            transport, pacer, user_agent=options.user_agent, timeout=options.timeout,
            retries=options.retries, backoff=options.backoff,
        )

        async def emit(item: Unit | Skip) -> None:
            try:
                handoff.put_nowait(item)
            except queue.Full:
                await asyncio.to_thread(handoff.put, item)

        crawler = Crawler(self.start, options, self.prior, fetcher, pacer, emit)
        bar = tqdm(desc="crawling", unit=" pages", disable=not progress, delay=1.0, file=sys.stderr)

        def show() -> None:
            c = crawler.counts
            bar.total = c.requested
            bar.set_postfix(fetched=c.fetched, unchanged=c.not_modified + c.unchanged, skipped=c.skipped,
                            refresh=False)
            bar.update(1)

        crawler.on_progress = show
        started = time.perf_counter()
        try:
            async with asyncio.TaskGroup() as group:
                crawling = group.create_task(crawler.run())
                group.create_task(_cancel_when(stop, crawling))
        finally:
            bar.close()
            await fetcher.aclose()
            await transport.aclose()
        self.state = crawler.state
        self.notes += crawler.notes
        self.report += crawler.report(time.perf_counter() - started)


async def _cancel_when(stop: threading.Event, task: asyncio.Task[None]) -> None:
    # The indexing thread gave up (an error, Ctrl-C): end the crawl now, requests in flight too.
    while not task.done():
        if stop.is_set():
            task.cancel()
            return
        await asyncio.sleep(0.1)


def _cause(error: BaseException) -> BaseException:
    # A task group wraps the one error that ended the crawl (a CorpusError) in a group.
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
