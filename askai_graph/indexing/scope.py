"""Which URLs a crawl covers: one site, under the start URL's folder, within the path patterns.

URLs are compared in one spelling (``normalize``): scheme and host lower-cased, the
default port and the fragment dropped, an empty path made ``/``; the query is kept
(``?page=2`` is another page). A crawl stays on the hosts of its start URL (the host
asked for and the one its redirect landed on, so ``http://site`` → ``https://www.site``
works) and, when it follows links, under the start URL's folder: a crawl from
``https://site/docs/`` leaves ``/blog/`` alone. ``--include`` and ``--exclude`` are
shell-style patterns (``fnmatch``) on the URL path.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from urllib.parse import urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize(url: str) -> str | None:
    """Return ``url`` in its one spelling, or ``None`` if it is not an http(s) URL without credentials."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.username is not None or parts.password is not None:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def folder_of(url: str) -> str:
    """Return the folder path of ``url``: ``/docs/`` for ``/docs/`` and for ``/docs/intro.html``."""
    path = urlsplit(url).path or "/"
    return path[: path.rfind("/") + 1]


@dataclass
class Scope:
    """The hosts, folder and path patterns a crawl keeps to."""

    hosts: set[str]
    """Host names (with a non-default port) the crawl may fetch from."""
    folder: str = "/"
    """Every page is under this path."""
    include: tuple[str, ...] = ()
    """When given, a page's path must match one of these patterns."""
    exclude: tuple[str, ...] = ()
    """A page whose path matches one of these is left out."""

    def on_site(self, url: str) -> bool:
        """Return whether ``url`` (normalized) is on one of the crawl's hosts."""
        return urlsplit(url).netloc in self.hosts

    def covers(self, url: str) -> bool:
        """Return whether the page ``url`` (normalized) belongs to the crawl."""
        path = urlsplit(url).path or "/"
        return (
            self.on_site(url)
            and path.startswith(self.folder)
            and (not self.include or any(fnmatchcase(path, pattern) for pattern in self.include))
            and not any(fnmatchcase(path, pattern) for pattern in self.exclude)
        )
