"""A site's ``robots.txt``: which paths the crawler may fetch, how often, and its sitemaps.

Parsed with Protego (Scrapy's parser), which follows RFC 9309 where the standard
library's ``urllib.robotparser`` does not: ``*`` and ``$`` in paths, the longest
matching rule winning, ``Allow`` winning a tie. ``Crawl-delay`` and ``Request-rate``
become the host's minimum interval between requests.

How an answer is read (RFC 9309 §2.3.1): a 2xx is the rules; a 4xx means there are
none (crawl everything); a 5xx, a 429 or no answer at all means the site cannot say,
so nothing is crawled and the crawl stops with that reason (the previous index stays).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from askai_graph.indexing.fetch import Fetcher, FetchError
from askai_graph.retrieval.corpus import CorpusError

MAX_ROBOTS_BYTES = 512_000
"""RFC 9309 asks crawlers to read at least 500 KiB of a robots.txt."""


@dataclass
class Robots:
    """The rules of one host for one user agent."""

    user_agent: str
    """The product token the rules are matched against (``askai-graph``)."""
    rules: Any = None
    """The parsed ``Protego`` rules; ``None``: no robots.txt, everything allowed."""
    sitemaps: list[str] = field(default_factory=list)
    """The ``Sitemap:`` lines, in order."""

    def allowed(self, url: str) -> bool:
        """Return whether the rules let the crawler fetch ``url``."""
        return self.rules is None or bool(self.rules.can_fetch(url, self.user_agent))

    @property
    def delay(self) -> float | None:
        """Return the seconds to leave between two requests (``Crawl-delay``/``Request-rate``), if set."""
        if self.rules is None:
            return None
        delays = []
        crawl_delay = self.rules.crawl_delay(self.user_agent)
        if crawl_delay:
            delays.append(float(crawl_delay))
        rate = self.rules.request_rate(self.user_agent)
        if rate is not None and rate.requests:
            delays.append(rate.seconds / rate.requests)
        return max(delays) if delays else None


def parse_robots(text: str, user_agent: str) -> Robots:
    """Return the rules of ``text`` for ``user_agent``."""
    from protego import Protego

    rules = Protego.parse(text)
    return Robots(user_agent, rules, list(rules.sitemaps))


async def fetch_robots(fetcher: Fetcher, origin: str, user_agent: str) -> Robots:
    """Fetch and parse ``origin/robots.txt``.

    Raises:
        CorpusError: the site gave no usable answer (5xx, 429, a network error): RFC 9309
            then means "crawl nothing", and the previous index is kept.
    """
    url = origin.rstrip("/") + "/robots.txt"
    try:
        answer = await fetcher.get(url, max_bytes=MAX_ROBOTS_BYTES)
    except FetchError as exc:
        if exc.status is not None and 400 <= exc.status < 500 and exc.status != 429:
            return Robots(user_agent)
        raise CorpusError(
            f"{url}: {exc.reason}; a site whose robots.txt cannot be read is not crawled (RFC 9309)"
        ) from None
    return parse_robots(answer.body.decode("utf-8", errors="replace"), user_agent)
