"""What a fetched HTML page tells the crawler: its links, its robots directives, its text.

Links are the ``href`` of every ``<a>`` and ``<area>``, resolved against ``<base href>``
(or the page's URL) and normalized; ``rel="nofollow"`` links are not followed.
``<meta name="robots">`` (and the ``X-Robots-Tag`` header) may say ``noindex`` (the page
is not indexed), ``nofollow`` (its links are not followed) or ``none`` (both).

The text handed to the HTML reader is decoded with the ``charset`` of the
``Content-Type`` header, else the page's ``<meta charset>``, else UTF-8.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from urllib.parse import urljoin

from askai_graph.indexing.scope import normalize

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)


@dataclass
class PageLinks:
    """The links and robots directives of one page."""

    links: list[str] = field(default_factory=list)
    """Normalized http(s) URLs the page links to (not ``nofollow`` ones), first occurrence order."""
    noindex: bool = False
    """The page asks not to be indexed."""
    nofollow: bool = False
    """The page asks that its links not be followed."""


def read_links(body: bytes, url: str, robots_header: str = "") -> PageLinks:
    """Return the links and directives of the HTML ``body`` fetched from ``url``."""
    import lxml.html

    found = PageLinks()
    _apply_directives(found, robots_header)
    try:
        root = lxml.html.fromstring(body)
    except (ValueError, lxml.etree.ParserError):
        return found
    for meta in root.iter("meta"):
        if str(meta.get("name") or "").strip().lower() == "robots":
            _apply_directives(found, str(meta.get("content") or ""))
    base = next((str(b.get("href")) for b in root.iter("base") if b.get("href")), None)
    against = urljoin(url, base) if base else url
    seen: set[str] = set()
    for anchor in root.iter("a", "area"):
        href = anchor.get("href")
        if not href or "nofollow" in str(anchor.get("rel") or "").lower().split():
            continue
        link = normalize(urljoin(against, str(href).strip()))
        if link is not None and link not in seen:
            seen.add(link)
            found.links.append(link)
    return found


def decode_html(body: bytes, charset: str | None) -> str:
    """Return the text of ``body``, decoded as its header or its markup says (UTF-8 otherwise)."""
    for candidate in (charset, _declared_charset(body)):
        if candidate:
            try:
                codecs.lookup(candidate)
            except LookupError:
                continue
            return body.decode(candidate, errors="replace")
    return body.decode("utf-8", errors="replace")


def _declared_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:4096])
    return match.group(1).decode("ascii") if match else None


def _apply_directives(found: PageLinks, value: str) -> None:
    # "googlebot: noindex" is for another crawler; only unprefixed directives apply.
    for part in value.lower().split(","):
        directive = part.strip()
        if directive in ("noindex", "none"):
            found.noindex = True
        if directive in ("nofollow", "none"):
            found.nofollow = True
