"""The crawl: find a site's pages (sitemap, else links), fetch each politely, hand each to the index.

Discovery: a ``sitemap.xml`` URL is read as given; for a page URL, the sitemaps its
``robots.txt`` names, else ``/sitemap.xml``, and (sitemap indexes followed) their pages
under the start URL's folder are the crawl. Without any sitemap the crawl follows links
from the start URL, breadth first, no deeper than ``max_depth``. Either way at most
``max_pages`` pages are requested, each only if ``robots.txt`` allows it.

Each page is one of: unchanged by ``<lastmod>`` (not requested at all), not modified
(a ``304`` to ``If-None-Match``/``If-Modified-Since``: the stored page stands, nothing
is parsed), fetched (handed to the index writer, which parses it only if its bytes
changed), or skipped with one reason (non-HTML, 4xx/5xx, too large, a refused redirect).
A page already indexed whose server fails for now (429, 5xx, timeout) keeps its stored
copy, with a note; one that is gone (404, 410, no longer listed) leaves the index.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from askai_graph.indexing.crawl_options import CrawlOptions
from askai_graph.indexing.crawlstate import CrawlState, PageRecord, SitemapRecord
from askai_graph.indexing.fetch import Fetched, Fetcher, FetchError
from askai_graph.indexing.files import Skip
from askai_graph.indexing.html import read_html_page
from askai_graph.indexing.links import decode_html, read_links
from askai_graph.indexing.pacing import HostPacer
from askai_graph.indexing.robots import Robots, fetch_robots
from askai_graph.indexing.scope import Scope, folder_of, normalize
from askai_graph.indexing.sitemap import Sitemap, SitemapEntry, SitemapError, SitemapReader
from askai_graph.indexing.sources import Unit
from askai_graph.retrieval.corpus import CorpusError, Page

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
MAX_SITEMAPS = 1000
Emit = Callable[[Unit | Skip], Awaitable[None]]


@dataclass
class CrawlCounts:
    """What the crawl did, for the report and the progress bar."""

    requested: int = 0
    fetched: int = 0
    not_modified: int = 0
    unchanged: int = 0
    kept: int = 0
    skipped: int = 0
    redirects: int = 0
    disallowed: int = 0
    noindex: int = 0
    over_limit: int = 0
    too_deep: int = 0
    outside: set[str] = field(default_factory=set)


class PageUnit(Unit):
    """A fetched page: its stamp and digest are the hash of its URL and bytes."""

    def __init__(self, url: str, body: bytes, charset: str | None) -> None:
        """Index ``body``, fetched from ``url``."""
        self.key = self.where = url
        self.stamp = self._digest = hashlib.sha256(url.encode() + b"\n" + body).hexdigest()
        self._body, self._charset = body, charset

    def digest(self) -> str | Skip:
        """Return the hash of the URL and bytes."""
        return self._digest

    def parse(self) -> Page | Skip:
        """Read the page with the built-site HTML reader, its fetched URL standing in for a canonical link."""
        return read_html_page(self.where, decode_html(self._body, self._charset), self.where)


class StoredUnit(Unit):
    """A page the index already holds under ``stamp`` (a 304, an unchanged ``<lastmod>``)."""

    def __init__(self, url: str, stamp: str) -> None:
        """Stand for the stored copy of ``url``."""
        self.key = self.where = url
        self.stamp = stamp

    def digest(self) -> str | Skip:
        """Never needed: the stamp matches the stored one (the crawl state guarantees it)."""
        return Skip(self.where, "no stored copy to reuse; run the crawl again")

    def parse(self) -> Page | Skip:
        """Never needed, as ``digest``."""
        return Skip(self.where, "no stored copy to reuse; run the crawl again")


@dataclass(frozen=True)
class _Visit:
    url: str
    depth: int = 0
    lastmod: str | None = None
    adopt: bool = False  # the start URL: wherever it redirects becomes part of the site


class Crawler:
    """One crawl of one site."""

    def __init__(
        self, start: str, options: CrawlOptions, prior: CrawlState, fetcher: Fetcher, pacer: HostPacer, emit: Emit
    ) -> None:
        """Crawl from the normalized URL ``start``, reusing what ``prior`` recorded, handing results to ``emit``."""
        self.start, self.options, self.prior = start, options, prior
        self.fetcher, self.pacer, self._emit = fetcher, pacer, emit
        self.sitemap_start = urlsplit(start).path.lower().endswith((".xml", ".xml.gz"))
        self.scope = Scope({urlsplit(start).netloc}, "/" if self.sitemap_start else folder_of(start),
                           options.include, options.exclude)
        self.state = CrawlState()
        self.counts = CrawlCounts()
        self.notes: list[Skip] = []
        self.mode = ""
        self.sitemaps_read = 0
        self.sitemap_urls = 0
        """Sitemap entries (pages) read."""
        self.sitemaps_unread = 0
        """Sitemaps left unread: enough pages were in hand."""
        self.sitemap_cut: str | None = None
        """The sitemap whose reading stopped part way, if one did."""
        self.delays: dict[str, float] = {}
        self._robots: dict[str, Robots] = {}
        self._seen: set[str] = set()
        self._claimed: set[str] = set()
        self._queue: asyncio.Queue[_Visit] = asyncio.Queue()
        self.on_progress: Callable[[], None] = lambda: None

    async def run(self) -> None:
        """Discover the pages, then fetch them with ``concurrency`` workers."""
        await self._robots_of(self.start)
        entries = await self._discover()
        for host in list(self.scope.hosts):
            await self._robots_of(f"{urlsplit(self.start).scheme}://{host}/")
        if entries is None:
            self.mode = "links"
            self._schedule(_Visit(self.start, adopt=True))
        else:
            self.mode = "sitemap"
            for entry in entries:
                url = normalize(entry.loc)
                if url is not None and self._in_scope(url):
                    self._schedule(_Visit(url, lastmod=entry.lastmod))
        async with asyncio.TaskGroup() as group:
            workers = [group.create_task(self._work()) for _ in range(max(1, self.options.concurrency))]
            await self._queue.join()
            for worker in workers:
                worker.cancel()

    async def _work(self) -> None:
        while True:
            visit = await self._queue.get()
            try:
                await self._visit(visit)
            finally:
                self._queue.task_done()
                self.on_progress()

    def _schedule(self, visit: _Visit) -> None:
        if visit.url in self._seen:
            return
        self._seen.add(visit.url)
        if self.counts.requested >= self.options.max_pages:
            self.counts.over_limit += 1
            return
        self.counts.requested += 1
        self._queue.put_nowait(visit)

    def _in_scope(self, url: str) -> bool:
        if self.scope.covers(url):
            return True
        self.counts.outside.add(url)
        return False

    # -- discovery ---------------------------------------------------------------------------

    async def _discover(self) -> list[SitemapEntry] | None:
        """Return the pages the site's sitemaps list, or ``None`` when it has none (follow links)."""
        if self.sitemap_start:
            entries = await self._read_sitemaps([self.start], required=True)
            return entries or []
        robots = self._robots[urlsplit(self.start).netloc]
        listed = [url for url in (normalize(s) for s in robots.sitemaps) if url is not None]
        if listed:
            # The site names them: a sitemap on www.site lists the site's pages (its host joins
            # the crawl once the sitemap answers; one the crawler may not ask is skipped, with a note).
            entries = await self._read_sitemaps(listed, required=False, named=True)
            if entries is not None:
                return entries
        origin = f"{urlsplit(self.start).scheme}://{urlsplit(self.start).netloc}"
        return await self._read_sitemaps([origin + "/sitemap.xml"], required=False, guessed=True)

    async def _read_sitemaps(
        self, urls: list[str], *, required: bool, guessed: bool = False, named: bool = False
    ) -> list[SitemapEntry] | None:
        """Read sitemaps breadth first until they are all read, or enough pages are in hand.

        Enough: ``max_pages`` distinct pages in the crawl's scope (no more would be
        requested), or ``max_sitemap_urls`` entries read in all.
        """
        pending = [(SitemapEntry(url), 0) for url in urls]
        seen = set(urls)
        pages: list[SitemapEntry] = []
        candidates: set[str] = set()
        read = False
        while pending and self.sitemaps_read < MAX_SITEMAPS:
            if self._enough(candidates):
                self.sitemaps_unread += len(pending)
                break
            entry, depth = pending.pop(0)
            url = entry.loc
            try:
                async with contextlib.aclosing(self._sitemap(entry, adopt=named and depth == 0)) as batches:
                    async for batch in batches:
                        for page in batch.pages:
                            self.sitemap_urls += 1
                            pages.append(page)
                            target = normalize(page.loc)
                            if target is not None and self.scope.covers(target):
                                candidates.add(target)
                            if self._enough(candidates):
                                break
                        for child in batch.sitemaps:
                            target = normalize(child.loc)
                            if target is not None and target not in seen and depth < 2:
                                seen.add(target)
                                pending.append((SitemapEntry(target, child.lastmod), depth + 1))
                        if self._enough(candidates):
                            self.sitemap_cut = url
                            break
            except FetchError as exc:
                if exc.transient or (required and depth == 0):
                    message = f"sitemap {url}: {exc.reason}; nothing was crawled, the previous index is kept"
                    raise CorpusError(message) from None
                if not guessed:  # a site without /sitemap.xml is the usual case, not a problem
                    await self._skip(url, f"sitemap: {exc.reason}")
                continue
            except SitemapError as exc:
                if required and depth == 0:
                    raise CorpusError(f"sitemap {url}: {exc}") from None
                if not guessed:
                    await self._skip(url, f"sitemap: {exc}")
                continue
            read = True
            self.sitemaps_read += 1
        return pages if read else None

    def _enough(self, candidates: set[str]) -> bool:
        return len(candidates) >= self.options.max_pages or self.sitemap_urls >= self.options.max_sitemap_urls

    async def _sitemap(self, entry: SitemapEntry, *, adopt: bool) -> AsyncGenerator[Sitemap, None]:
        """Read one sitemap as it arrives: not at all when its ``<lastmod>`` is unchanged, conditionally otherwise.

        Its record (for the next crawl) is kept only when it was read to the end. With
        ``adopt``, the sitemap's host joins the crawl once it answers.
        """
        stored = self.prior.sitemaps.get(entry.loc)
        if stored is not None and entry.lastmod and stored.lastmod == entry.lastmod:
            yield _listed(stored)
            self.state.sitemaps[entry.loc] = replace(stored, lastmod=entry.lastmod)
            return
        headers = stored.validators() if stored else None
        async with self.fetcher.open(entry.loc, headers=headers, hop_problem=self._adopt) as answer:
            if adopt:
                self.scope.hosts.add(urlsplit(entry.loc).netloc)
            if answer.not_modified:
                if stored is None:
                    raise FetchError("HTTP 304 Not Modified, but no copy of it is stored")
                yield _listed(stored)
                # A 304 need not repeat the validators (many carry no Last-Modified): the stored ones stand.
                etag = answer.headers.get("etag") or stored.etag
                modified = answer.headers.get("last-modified") or stored.last_modified
                record = replace(stored, etag=etag, last_modified=modified, lastmod=entry.lastmod)
                self.state.sitemaps[entry.loc] = record
                return
            reader = SitemapReader(self.options.max_sitemap_bytes)
            listed = Sitemap()
            async for piece in self.fetcher.pieces(answer, self.options.max_sitemap_bytes):
                batch = reader.feed(piece)
                listed.pages += batch.pages
                listed.sitemaps += batch.sitemaps
                yield batch
            batch = reader.close()
            listed.pages += batch.pages
            listed.sitemaps += batch.sitemaps
            yield batch
        self.state.sitemaps[entry.loc] = SitemapRecord(
            answer.headers.get("etag"), answer.headers.get("last-modified"), entry.lastmod,
            [(e.loc, e.lastmod) for e in listed.pages], [(e.loc, e.lastmod) for e in listed.sitemaps],
        )

    def _adopt(self, url: str) -> str | None:
        """Follow the start URL's (or its robots.txt's, or sitemap's) redirect anywhere public: that is the site."""
        target = normalize(url)
        if target is None:
            return "not an http(s) URL"
        self.scope.hosts.add(urlsplit(target).netloc)
        return None

    async def _robots_of(self, url: str) -> Robots:
        parts = urlsplit(url)
        robots = self._robots.get(parts.netloc)
        if robots is None:
            origin = f"{parts.scheme}://{parts.netloc}"
            robots = self._robots[parts.netloc] = await fetch_robots(self.fetcher, origin, self.options.robots_token)
            if robots.delay is not None:
                self.pacer.slow_down(parts.hostname or parts.netloc, robots.delay)
                self.delays[parts.netloc] = robots.delay
        return robots

    # -- one page ----------------------------------------------------------------------------

    async def _visit(self, visit: _Visit) -> None:
        url = visit.url
        if not (await self._robots_of(url)).allowed(url):
            self.counts.disallowed += 1
            return
        prior = self.prior.prior(url)
        if prior is not None and visit.lastmod and prior[1].lastmod == visit.lastmod:
            self.counts.unchanged += 1
            if self._claim(prior[0]):
                await self._reuse(prior[0], prior[1], visit)
            return
        try:
            answer = await self.fetcher.get(
                url,
                headers=prior[1].validators() if prior else None,
                types=HTML_TYPES,
                max_bytes=self.options.max_page_bytes,
                hop_problem=self._adopt if visit.adopt else self._hop_problem,
            )
        except FetchError as exc:
            if exc.transient and prior is not None:
                self.counts.kept += 1
                self.notes.append(Skip(url, f"kept the copy from the last crawl ({exc.reason})"))
                if self._claim(prior[0]):
                    await self._reuse(prior[0], prior[1], visit)
                return
            return await self._skip(url, exc.reason)
        target = normalize(answer.final_url) or answer.final_url
        if answer.redirects:
            self.counts.redirects += 1
            self.state.redirects[url] = target
            self.notes.append(Skip(url, f"redirected to {target}"))
            self._seen.add(target)  # not requested again when a link names it
            if visit.adopt:
                self.scope.folder = folder_of(target)
        if not self._claim(target):
            return  # the page it redirects to is already indexed under its own URL
        if answer.not_modified:
            stored = self.prior.pages.get(target)
            if stored is None:
                return await self._skip(url, "HTTP 304 Not Modified, but no copy of it is stored")
            self.counts.not_modified += 1
            return await self._reuse(target, stored, visit)
        await self._fetched(answer, target, visit)

    async def _fetched(self, answer: Fetched, target: str, visit: _Visit) -> None:
        self.counts.fetched += 1
        page = await asyncio.to_thread(read_links, answer.body, target, answer.headers.get("x-robots-tag", ""))
        links = [link for link in page.links if self._in_scope(link)] if self.mode == "links" else []
        if not page.nofollow:
            self._follow(links, visit.depth)
        if page.noindex:
            self.counts.noindex += 1
            return
        if not self.scope.covers(target):
            return  # the start page, left out by --include/--exclude: its links still lead on
        unit = PageUnit(target, answer.body, _charset(answer.headers.get("content-type", "")))
        etag, modified = answer.headers.get("etag"), answer.headers.get("last-modified")
        self.state.pages[target] = PageRecord(unit.stamp, etag, modified, visit.lastmod, links)
        await self._emit(unit)

    def _claim(self, target: str) -> bool:
        # Claimed before any await: two URLs redirecting to one page index it once.
        if target in self._claimed:
            return False
        self._claimed.add(target)
        return True

    async def _reuse(self, target: str, record: PageRecord, visit: _Visit) -> None:
        self.state.pages[target] = replace(record, lastmod=visit.lastmod or record.lastmod)
        if target != visit.url:
            self.state.redirects[visit.url] = target
        self._follow(record.links, visit.depth)
        await self._emit(StoredUnit(target, record.stamp))

    def _follow(self, links: list[str], depth: int) -> None:
        if self.mode != "links":
            return
        for link in links:
            if link in self._seen:
                continue
            if depth + 1 > self.options.max_depth:
                self._seen.add(link)
                self.counts.too_deep += 1
                continue
            self._schedule(_Visit(link, depth + 1))

    def _hop_problem(self, url: str) -> str | None:
        target = normalize(url)
        if target is None or not self.scope.covers(target):
            return "outside the crawl (another site, folder, or an --include/--exclude pattern)"
        robots = self._robots.get(urlsplit(target).netloc)
        if robots is not None and not robots.allowed(target):
            return "disallowed by robots.txt"
        return None

    async def _skip(self, url: str, reason: str) -> None:
        self.counts.skipped += 1
        await self._emit(Skip(url, reason))

    def report(self, seconds: float) -> list[str]:
        """Return the crawl's lines for the ``askai index`` report."""
        c = self.counts
        how = f"{self.sitemaps_read} sitemap(s)" if self.mode == "sitemap" else "following links"
        rate = f" ({c.requested / seconds:.1f} pages/s)" if seconds > 0 else ""
        lines = [
            f"crawled {self.start} by {how}: {c.requested} pages in {seconds:.1f} s{rate}",
            f"  {c.fetched} fetched, {c.not_modified} not modified (304), {c.unchanged} unchanged by <lastmod>, "
            f"{c.kept} kept from the last crawl, {c.skipped} skipped; {c.redirects} redirected",
        ]
        left = [
            (c.disallowed, "disallowed by robots.txt"),
            (c.noindex, "marked noindex"),
            (len(c.outside), "outside the crawl"),
            (c.too_deep, f"deeper than --max-depth {self.options.max_depth}"),
            (c.over_limit, f"over --max-pages {self.options.max_pages}"),
        ]
        shown = [f"{count} {what}" for count, what in left if count]
        if shown:
            lines.append("  left out: " + ", ".join(shown))
        if self.sitemap_cut or self.sitemaps_unread:
            o = self.options
            why = (f"--max-pages {o.max_pages} pages in hand" if self.sitemap_urls < o.max_sitemap_urls
                   else f"--max-sitemap-urls {o.max_sitemap_urls} entries read")
            cut = f"{self.sitemap_cut} read part way" if self.sitemap_cut else ""
            unread = f"{self.sitemaps_unread} sitemap(s) not read" if self.sitemaps_unread else ""
            lines.append(f"  sitemaps: stopped after {self.sitemap_urls} entries ({why}); "
                         + ", ".join(part for part in (cut, unread) if part))
        for host, delay in self.delays.items():
            lines.append(f"  robots.txt of {host}: Crawl-delay {delay:g} s")
        return lines


def _listed(record: SitemapRecord) -> Sitemap:
    return Sitemap([SitemapEntry(*page) for page in record.pages], [SitemapEntry(*child) for child in record.sitemaps])


def _charset(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        name, _, value = part.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None
