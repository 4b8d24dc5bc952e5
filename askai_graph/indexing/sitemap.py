"""Read a sitemap: the page URLs of a ``<urlset>`` with their ``<lastmod>``, or the sitemaps of an index.

The sitemaps protocol (sitemaps.org) has two documents: a ``<urlset>`` of ``<url>``
entries (``<loc>``, optional ``<lastmod>``) and a ``<sitemapindex>`` of ``<sitemap>``
entries pointing at further sitemaps. Either may be gzipped (``sitemap.xml.gz``); a
plain-text sitemap is one URL per line. XML is parsed without entities, DTDs or network
access, and a gzipped one is inflated only up to the size bound, so neither an entity
bomb nor a gzip bomb gets past it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

from askai_graph.retrieval.corpus import is_http_url

_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class SitemapEntry:
    """One ``<url>`` or ``<sitemap>`` entry."""

    loc: str
    """The absolute URL."""
    lastmod: str | None = None
    """``<lastmod>`` as written (a W3C date or datetime), if given."""


@dataclass
class Sitemap:
    """What one sitemap document lists."""

    pages: list[SitemapEntry] = field(default_factory=list)
    """The pages of a ``<urlset>`` (or a text sitemap), in document order."""
    sitemaps: list[SitemapEntry] = field(default_factory=list)
    """The sitemaps a ``<sitemapindex>`` lists."""


class SitemapError(ValueError):
    """A document that is not a sitemap (not XML, another root element, too large inflated)."""


def parse_sitemap(data: bytes, max_bytes: int) -> Sitemap:
    """Return the entries of the sitemap ``data`` (gzipped or not).

    Raises:
        SitemapError: the document is not a readable sitemap.
    """
    if data.startswith(_GZIP_MAGIC):
        data = _gunzip(data, max_bytes)
    text_start = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text_start.startswith(b"<"):
        lines = (line.strip() for line in data.decode("utf-8", errors="replace").splitlines())
        pages = [SitemapEntry(line) for line in lines if is_http_url(line)]
        if not pages:
            raise SitemapError("neither XML nor a list of URLs")
        return Sitemap(pages=pages)
    root = _xml_root(data)
    kind = root.tag.rsplit("}", 1)[-1] if isinstance(root.tag, str) else ""
    if kind not in ("urlset", "sitemapindex"):
        raise SitemapError(f"<{kind}> is not a sitemap's root element")
    sitemap = Sitemap()
    entries = sitemap.pages if kind == "urlset" else sitemap.sitemaps
    for entry in root:
        if not isinstance(entry.tag, str) or entry.tag.rsplit("}", 1)[-1] not in ("url", "sitemap"):
            continue
        loc = _child_text(entry, "loc")
        if loc and is_http_url(loc):
            entries.append(SitemapEntry(loc, _child_text(entry, "lastmod")))
    return sitemap


def sitemap_pages(data: bytes, max_bytes: int) -> frozenset[str] | None:
    """Return the page URLs a sitemap lists, or ``None`` if it lists none or is unreadable."""
    try:
        pages = parse_sitemap(data, max_bytes).pages
    except SitemapError:
        return None
    return frozenset(entry.loc for entry in pages) or None


def _xml_root(data: bytes) -> Any:
    from lxml import etree

    # A site's file is untrusted input: no entities, no DTD loading, no network.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise SitemapError(f"not well-formed XML ({exc})") from None


def _child_text(entry: Any, name: str) -> str | None:
    for child in entry:
        if isinstance(child.tag, str) and child.tag.rsplit("}", 1)[-1] == name:
            text = " ".join((child.text or "").split())
            return text or None
    return None


def _gunzip(data: bytes, max_bytes: int) -> bytes:
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise SitemapError(f"not valid gzip ({exc})") from None
    if len(out) > max_bytes:
        raise SitemapError(f"larger than {max_bytes} bytes inflated")
    return out
