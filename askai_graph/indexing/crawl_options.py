"""The options of a crawl, and their flags on ``askai index`` (imported by ``askai index --help``: keep it light)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class CrawlOptions:
    """How much of a site to crawl, and how politely."""

    max_pages: int = 5000
    """At most this many pages are requested."""
    max_depth: int = 10
    """Following links, pages more than this many links from the start URL are not requested."""
    include: tuple[str, ...] = ()
    """When given, only pages whose path matches one of these patterns (``/docs/*``)."""
    exclude: tuple[str, ...] = ()
    """Pages whose path matches one of these patterns are left out."""
    user_agent: str = "askai-graph/0.1 (site indexer for askai)"
    """Sent with every request; its first word is what ``robots.txt`` groups are matched against."""
    concurrency: int = 4
    """Requests in flight at once."""
    rate: float = 8.0
    """Requests per second per host (``0``: unpaced); a longer ``Crawl-delay`` wins."""
    timeout: float = 20.0
    """Seconds for a connect and for each read (a whole body: three times that)."""
    retries: int = 2
    """Further attempts after a timeout, network error, 429 or 5xx."""
    backoff: float = 0.5
    """Seconds before the first retry, doubling (a ``Retry-After`` up to 120 s wins)."""
    allow_private: bool = False
    """Crawl private, loopback and link-local addresses too (a site on this machine or LAN)."""
    max_page_bytes: int = 10_000_000
    """Longer pages (as sent, or decoded) are skipped, abandoned mid-download."""
    max_sitemap_urls: int = 100_000
    """At most this many sitemap entries are read, in all the site's sitemaps; the rest is left unread."""
    max_sitemap_bytes: int = 50_000_000
    """A longer sitemap (decoded; the sitemaps protocol's own limit) is skipped."""

    @property
    def robots_token(self) -> str:
        """Return the product token ``robots.txt`` rules are matched against."""
        return self.user_agent.split("/", 1)[0].split()[0] if self.user_agent.strip() else "*"


_DEFAULTS = CrawlOptions()


def add_arguments(command: argparse.ArgumentParser) -> None:
    """Add the flags of a crawl (``askai index https://site/``) to ``command``."""
    group = command.add_argument_group("crawling a live site (SOURCE is its http(s) URL, or a sitemap.xml URL)")
    group.add_argument("--max-pages", type=_at_least(1, int), default=_DEFAULTS.max_pages,
                       help=f"request at most this many pages (default {_DEFAULTS.max_pages})")
    group.add_argument("--max-depth", type=_at_least(0, int), default=_DEFAULTS.max_depth,
                       help=f"following links, at most this many links from the start (default {_DEFAULTS.max_depth})")
    group.add_argument("--include", action="append", default=[], metavar="PATTERN",
                       help="only pages whose path matches this shell pattern, e.g. '/docs/*' (repeatable)")
    group.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                       help="leave out pages whose path matches (repeatable)")
    group.add_argument("--user-agent", default=_DEFAULTS.user_agent, metavar="UA",
                       help="the User-Agent header; robots.txt rules for its first word apply "
                       f"(default {_DEFAULTS.user_agent!r})")
    group.add_argument("--concurrency", type=_at_least(1, int), default=_DEFAULTS.concurrency, metavar="N",
                       help=f"requests in flight at once (default {_DEFAULTS.concurrency})")
    group.add_argument("--rate", type=_at_least(0, float), default=_DEFAULTS.rate, metavar="PER_SECOND",
                       help="requests per second per host, 0 for unpaced; a longer Crawl-delay wins "
                       f"(default {_DEFAULTS.rate:g})")
    group.add_argument("--timeout", type=_at_least(0.1, float), default=_DEFAULTS.timeout, metavar="SECONDS",
                       help=f"for a connect and for each read (default {_DEFAULTS.timeout:g})")
    group.add_argument("--retries", type=_at_least(0, int), default=_DEFAULTS.retries, metavar="N",
                       help=f"after a timeout, a 429 or a 5xx, with backoff (default {_DEFAULTS.retries})")
    group.add_argument("--max-sitemap-urls", type=_at_least(1, int), default=_DEFAULTS.max_sitemap_urls, metavar="N",
                       help="read at most this many sitemap entries, in all the site's sitemaps; reading also stops "
                       f"once --max-pages pages are in hand (default {_DEFAULTS.max_sitemap_urls})")
    group.add_argument("--allow-private", action="store_true",
                       help="crawl private, loopback and link-local addresses too (a site on this machine or LAN)")


def crawl_options(args: argparse.Namespace, max_page_bytes: int) -> CrawlOptions:
    """Return the options the parsed flags ``args`` give (pages over ``max_page_bytes`` are skipped)."""
    return CrawlOptions(
        max_pages=args.max_pages, max_depth=args.max_depth, include=tuple(args.include), exclude=tuple(args.exclude),
        user_agent=args.user_agent, concurrency=args.concurrency, rate=args.rate, timeout=args.timeout,
        retries=args.retries, allow_private=args.allow_private, max_page_bytes=max_page_bytes,
        max_sitemap_urls=args.max_sitemap_urls,
    )


def _at_least(low: float, kind: Callable[[str], float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:g} (got {text})")
        return value

    return parse
