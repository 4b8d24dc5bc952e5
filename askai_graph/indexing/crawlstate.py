"""What a crawl remembers for the next one: each page's validators, ``<lastmod>`` and links.

Stored beside the index as ``crawl.json`` and swapped in with it, so the state always
describes the index it sits in. Per page (keyed by the URL its content was fetched
from, after redirects): the ``stamp`` the index stores for it, its ``ETag`` and
``Last-Modified`` (sent back as ``If-None-Match`` / ``If-Modified-Since``), the sitemap's
``<lastmod>`` and the links it had (so a ``304`` page still leads the crawl on). The
redirects seen, so the next crawl asks the redirecting URL with the validators of the
page it leads to. And each sitemap's validators, ``<lastmod>`` and entries, so an
unchanged sitemap is not downloaded again.

A record is only trusted when the index holds its page (or the reason it was skipped)
under the same stamp: a ``304`` must always have a stored copy to stand for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATE = "crawl.json"


@dataclass
class PageRecord:
    """One fetched page, as the next crawl needs it."""

    stamp: str
    """The stamp the index stores the page (or its skip) under."""
    etag: str | None = None
    """The ``ETag`` it was served with."""
    last_modified: str | None = None
    """The ``Last-Modified`` it was served with."""
    lastmod: str | None = None
    """The sitemap's ``<lastmod>`` for it, when the crawl used a sitemap."""
    links: list[str] = field(default_factory=list)
    """The in-scope links it had (link-following crawls only)."""

    def validators(self) -> dict[str, str]:
        """Return the conditional request headers for this page."""
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


@dataclass
class SitemapRecord:
    """One sitemap read, with what it listed, so an unchanged one need not be read again."""

    etag: str | None = None
    """The ``ETag`` it was served with."""
    last_modified: str | None = None
    """The ``Last-Modified`` it was served with."""
    lastmod: str | None = None
    """Its ``<lastmod>`` in the sitemap index that listed it."""
    pages: list[tuple[str, str | None]] = field(default_factory=list)
    """The ``(loc, lastmod)`` of each page it lists."""
    sitemaps: list[tuple[str, str | None]] = field(default_factory=list)
    """The ``(loc, lastmod)`` of each sitemap it lists (a sitemap index)."""

    def validators(self) -> dict[str, str]:
        """Return the conditional request headers for this sitemap."""
        return PageRecord("", self.etag, self.last_modified).validators()


@dataclass
class CrawlState:
    """Every page record, sitemap record and redirect of one crawl."""

    pages: dict[str, PageRecord] = field(default_factory=dict)
    """Fetched URL (after redirects) -> its record."""
    redirects: dict[str, str] = field(default_factory=dict)
    """URL asked for -> the URL its redirects led to."""
    sitemaps: dict[str, SitemapRecord] = field(default_factory=dict)
    """Sitemap URL -> what it listed."""

    def prior(self, url: str) -> tuple[str, PageRecord] | None:
        """Return ``(fetched URL, record)`` the last crawl kept for a request of ``url``."""
        target = self.redirects.get(url, url)
        record = self.pages.get(target)
        return (target, record) if record is not None else None

    def save(self, folder: Path) -> None:
        """Write the state into the index folder ``folder``."""
        data = {
            "pages": {url: asdict(record) for url, record in self.pages.items()},
            "redirects": self.redirects,
            "sitemaps": {url: asdict(record) for url, record in self.sitemaps.items()},
        }
        (folder / STATE).write_text(json.dumps(data, separators=(",", ":")), "utf-8")


def load_state(folder: Path, stored: Mapping[str, str]) -> CrawlState:
    """Return the state of the index at ``folder``, keeping the records whose stamp ``stored`` has.

    ``stored`` maps each unit key of the index (posts and skips) to its stamp.
    """
    try:
        data: Any = json.loads((folder / STATE).read_text("utf-8"))
        pages = {
            url: PageRecord(**record)
            for url, record in data["pages"].items()
            if stored.get(url) == record.get("stamp")
        }
        redirects = {str(k): str(v) for k, v in data.get("redirects", {}).items()}
        sitemaps = {
            url: SitemapRecord(
                record.get("etag"), record.get("last_modified"), record.get("lastmod"),
                [(str(loc), lastmod) for loc, lastmod in record.get("pages", [])],
                [(str(loc), lastmod) for loc, lastmod in record.get("sitemaps", [])],
            )
            for url, record in data.get("sitemaps", {}).items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return CrawlState()  # no usable state: every page is fetched in full, as on a first crawl
    return CrawlState(pages, redirects, sitemaps)
