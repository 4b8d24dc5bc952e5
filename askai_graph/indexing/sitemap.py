"""Read a sitemap: the page URLs of a ``<urlset>`` with their ``<lastmod>``, or the sitemaps of an index.

The sitemaps protocol (sitemaps.org) has two documents: a ``<urlset>`` of ``<url>``
entries (``<loc>``, optional ``<lastmod>``) and a ``<sitemapindex>`` of ``<sitemap>``
entries pointing at further sitemaps. Either may be gzipped (``sitemap.xml.gz``); a
plain-text sitemap is one URL per line. XML is parsed without entities, DTDs or network
access, and a gzipped one is inflated only up to the size bound, so neither an entity
bomb nor a gzip bomb gets past it. ``SitemapReader`` reads one as it arrives, so the
crawl can stop reading once it has the URLs it needs.

A text sitemap's line is bounded (``MAX_LINE_BYTES``): a partial line is carried from
one piece to the next, and without a bound a body with no newline would be copied
again with every piece (40 MB in 64 KiB pieces: 15 s of CPU). A longer line cannot be
a URL, so the document is refused as soon as one passes the bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from askai_graph.indexing.decoding import BadEncoding, BodyTooLarge, BoundedDecoder
from askai_graph.retrieval.corpus import is_http_url

_GZIP_MAGIC = b"\x1f\x8b"

MAX_LINE_BYTES = 8192
"""Longest line of a text sitemap, and longest blank start of any sitemap: the protocol
keeps a URL under 2,048 characters, and this leaves room for percent-escaped ones."""


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
    reader = SitemapReader(max_bytes)
    first, rest = reader.feed(data), reader.close()
    return Sitemap(first.pages + rest.pages, first.sitemaps + rest.sitemaps)


def sitemap_pages(data: bytes, max_bytes: int) -> frozenset[str] | None:
    """Return the page URLs a sitemap lists, or ``None`` if it lists none or is unreadable."""
    try:
        pages = parse_sitemap(data, max_bytes).pages
    except SitemapError:
        return None
    return frozenset(entry.loc for entry in pages) or None


class SitemapReader:
    """A sitemap read as it arrives: ``feed`` it pieces, each returning the entries it completed.

    Memory stays bounded by the piece, not the document: each ``<url>`` element is
    dropped from the tree once read, and the reader may be abandoned at any point (the
    crawl has enough URLs). A gzipped document is inflated as it comes, to ``max_bytes``.
    """

    def __init__(self, max_bytes: int) -> None:
        """Read a document of at most ``max_bytes`` (inflated)."""
        self.max_bytes = max_bytes
        self._head = b""
        self._gzip: BoundedDecoder | None = None
        self._kind: str | None = None  # "xml" or "text", once the first byte says
        self._parser: Any = None
        self._root: Any = None
        self._line = b""
        self._listed = False

    def feed(self, data: bytes) -> Sitemap:
        """Take the next bytes of the document; return the entries they completed.

        Raises:
            SitemapError: the document is not a readable sitemap (so far).
        """
        if self._gzip is None and self._kind is None and len(self._head) < 2:
            self._head += data
            if len(self._head) < 2:
                return Sitemap()
            data, self._head = self._head, b""
            if data.startswith(_GZIP_MAGIC):
                self._gzip = BoundedDecoder("gzip", self.max_bytes)
        if self._gzip is None:
            return self._plain(data)
        found = Sitemap()
        try:
            for piece in self._gzip.decode(data):
                _extend(found, self._plain(piece))
        except BodyTooLarge:
            raise SitemapError(f"larger than {self.max_bytes} bytes inflated") from None
        except BadEncoding as exc:
            raise SitemapError(str(exc)) from None
        return found

    def close(self) -> Sitemap:
        """End the document; return its last entries.

        Raises:
            SitemapError: it is not a complete sitemap, or lists nothing at all in text form.
        """
        found = self._plain(self._head) if self._head else Sitemap()
        if self._kind == "xml":
            from lxml import etree

            try:
                self._parser.close()
            except etree.XMLSyntaxError as exc:
                raise SitemapError(f"not well-formed XML ({exc})") from None
            _extend(found, self._events())
        elif self._kind == "text":
            _extend(found, self._lines(self._line + b"\n"))
            if not self._listed:
                raise SitemapError("neither XML nor a list of URLs")
        else:
            raise SitemapError("empty")
        return found

    def _plain(self, data: bytes) -> Sitemap:
        if self._kind is None:
            start = (self._line + data).lstrip(b"\xef\xbb\xbf \t\r\n")
            if not start:
                self._line += data
                if len(self._line) > MAX_LINE_BYTES:
                    raise SitemapError(f"nothing but blanks in its first {MAX_LINE_BYTES} bytes")
                return Sitemap()
            data, self._line = self._line + data, b""
            self._kind = "xml" if start.startswith(b"<") else "text"
            if self._kind == "xml":
                from lxml import etree

                # A site's file is untrusted input: no entities, no DTD loading, no network.
                self._parser = etree.XMLPullParser(
                    events=("start", "end"), resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False
                )
        if self._kind == "text":
            return self._lines(data)
        from lxml import etree

        try:
            self._parser.feed(data)
        except etree.XMLSyntaxError as exc:
            raise SitemapError(f"not well-formed XML ({exc})") from None
        return self._events()

    def _lines(self, data: bytes) -> Sitemap:
        *lines, self._line = (self._line + data).split(b"\n")
        # Checking the carried line bounds the copy above: it never grows past the bound.
        if len(self._line) > MAX_LINE_BYTES or any(len(line) > MAX_LINE_BYTES for line in lines):
            raise SitemapError(f"a line longer than {MAX_LINE_BYTES} bytes: not a list of URLs")
        found = [line.decode("utf-8", errors="replace").strip().lstrip("\ufeff") for line in lines]
        pages = [SitemapEntry(line) for line in found if is_http_url(line)]
        self._listed = self._listed or bool(pages)
        return Sitemap(pages=pages)

    def _events(self) -> Sitemap:
        found = Sitemap()
        for event, element in self._parser.read_events():
            kind = element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""
            if self._root is None:
                if kind not in ("urlset", "sitemapindex"):
                    raise SitemapError(f"<{kind}> is not a sitemap's root element")
                self._root = element
                continue
            if event != "end" or element.getparent() is not self._root:
                continue
            if kind in ("url", "sitemap"):
                loc = _child_text(element, "loc")
                if loc and is_http_url(loc):
                    entries = found.pages if self._root.tag.endswith("urlset") else found.sitemaps
                    entries.append(SitemapEntry(loc, _child_text(element, "lastmod")))
            self._root.remove(element)  # read: drop it, so a long sitemap never builds its whole tree
        return found


def _extend(found: Sitemap, more: Sitemap) -> None:
    found.pages += more.pages
    found.sitemaps += more.sitemaps


def _child_text(entry: Any, name: str) -> str | None:
    for child in entry:
        if isinstance(child.tag, str) and child.tag.rsplit("}", 1)[-1] == name:
            text = " ".join((child.text or "").split())
            return text or None
    return None
