"""The crawl under oversized or slow senders, on real servers on 127.0.0.1.

Decompression bombs (stacked ``gzip, gzip``, zstd, a ``.xml.gz`` sitemap) are small
payloads that expand to tens of MB, above a limit the test sets small: the decoded size
must stay bounded while decoding (measured with ``tracemalloc``), the page or sitemap is
skipped with a reason, and the crawl goes on. A server that drips its headers a byte at
a time is bounded by ``--timeout``. Sitemaps are read only as far as ``--max-pages`` (or
``max_sitemap_urls``) needs, and a 304 keeps a sitemap's stored validators.
"""

from __future__ import annotations

import gzip
import ipaddress
import re
import tempfile
import tracemalloc
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import zstandard

from askai_graph import load_corpus
from askai_graph.indexing import crawl_index
from askai_graph.indexing.crawl_options import CrawlOptions
from askai_graph.indexing.decoding import BodyTooLarge, BoundedDecoder
from askai_graph.indexing.fetch import is_public_address
from tests.site_server import Reply, SiteServer, html_page

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

LIMIT = 1_000_000
EXPANDED = 40_000_000  # what each bomb decodes to: bounded, but forty times the limit
LOCAL = CrawlOptions(allow_private=True, rate=0, timeout=5, retries=0, backoff=0.05, max_page_bytes=LIMIT,
                     max_sitemap_bytes=LIMIT)  # fmt: skip
TEXT = "Pack a rain shell, a warm layer, a head torch and two litres of water for a day walk in the hills."


def bomb(encoding: str) -> bytes:
    """A page of ``EXPANDED`` bytes of HTML, encoded as ``encoding`` says (layers applied left to right)."""
    body = b"<html><body><p>" + b"a" * EXPANDED
    for name in [name.strip() for name in encoding.split(",")]:
        if name == "gzip":
            body = gzip.compress(body, 9)
        elif name == "deflate":
            body = zlib.compress(body, 9)
        else:
            body = zstandard.ZstdCompressor(level=19).compress(body)
    assert len(body) < 200_000
    return body


_warmed: list[bool] = []


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    for rel, title in [("index.html", "Trail guide"), ("gear/index.html", "Gear"), ("maps/index.html", "Maps")]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html_page(title, TEXT, links=("/gear/", "/maps/", "/bomb/")))
    for n in range(10):  # what the generated sitemaps list first
        (root / f"p{n}").mkdir()
        (root / f"p{n}" / "index.html").write_text(html_page(f"Page {n}", TEXT))
    return root


@pytest.fixture
def served(site: Path) -> Iterator[SiteServer]:
    with SiteServer(site) as server:
        yield server


def peak_while(crawl: object) -> int:
    """The most memory Python held while ``crawl()`` ran, once this process has loaded what any crawl loads."""
    if not _warmed:
        with SiteServer(Path(__file__).parent / "data") as server, tempfile.TemporaryDirectory() as folder:
            server.routes["/"] = Reply(200, {"Content-Type": "text/html"}, html_page("Warm", TEXT).encode())
            crawl_index(server.url, Path(folder) / "index", LOCAL)
        _warmed.append(True)
    tracemalloc.start()
    try:
        crawl()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("encoding", ["gzip, gzip", "zstd", "deflate, gzip", "gzip"])
def test_a_page_bomb_is_skipped_with_a_reason_and_memory_stays_bounded(
    encoding: str, served: SiteServer, tmp_path: Path
) -> None:
    headers = {"Content-Type": "text/html", "Content-Encoding": encoding}
    served.routes["/bomb/"] = Reply(200, headers, bomb(encoding))
    summaries = []
    peak = peak_while(lambda: summaries.append(crawl_index(served.url, tmp_path / "index", LOCAL)))
    [summary] = summaries
    assert [(skip.where, skip.reason) for skip in summary.skips] == [
        (served.url + "bomb/", f"larger than {LIMIT} bytes decoded")
    ]
    assert summary.posts == 3  # the crawl went on
    assert peak < 8 * LIMIT, f"{peak:,} bytes at the peak"


def test_the_crawler_asks_only_for_encodings_it_decodes_bounded(served: SiteServer, tmp_path: Path) -> None:
    served.routes["/bomb/"] = Reply(200, {"Content-Type": "text/html", "Content-Encoding": "br"}, b"\x0b\x02\x80")
    summary = crawl_index(served.url, tmp_path / "index", LOCAL)
    assert served.hits("/")[0].headers["accept-encoding"] == "gzip, deflate, zstd"
    assert [skip.reason for skip in summary.skips] == ["Content-Encoding br was not asked for"]


@pytest.mark.parametrize("form", ["content-encoding", "xml.gz"])
def test_a_sitemap_bomb_is_skipped_and_the_crawl_follows_links(form: str, served: SiteServer, tmp_path: Path) -> None:
    entry = f"<url><loc>{served.url}gear/</loc></url>".encode()
    xml = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + entry * (EXPANDED // len(entry))
    if form == "content-encoding":
        path, reply = "/sitemap.xml", Reply(200, {"Content-Type": "application/xml", "Content-Encoding": "gzip, gzip"},
                                            gzip.compress(gzip.compress(xml, 9), 9))  # fmt: skip
    else:
        path, reply = "/sitemap.xml.gz", Reply(200, {"Content-Type": "application/gzip"}, gzip.compress(xml, 9))
    served.routes[path] = reply
    robots = f"Sitemap: {served.url[:-1]}{path}\n".encode()
    served.routes["/robots.txt"] = Reply(200, {"Content-Type": "text/plain"}, robots)
    options = replace(LOCAL, max_sitemap_urls=10**9, max_pages=10**6)  # neither bound stops the reading first
    summaries = []
    peak = peak_while(lambda: summaries.append(crawl_index(served.url, tmp_path / "index", options)))
    [summary] = summaries
    [reason] = [skip.reason for skip in summary.skips if skip.where.endswith(path)]
    assert reason in (f"sitemap: larger than {LIMIT} bytes decoded", f"sitemap: larger than {LIMIT} bytes inflated")
    assert any("following links" in line for line in summary.report)
    assert {post.url for post in load_corpus(tmp_path / "index").posts} >= {served.url, served.url + "gear/"}
    assert peak < 8 * LIMIT, f"{peak:,} bytes at the peak"


def test_a_decoder_never_holds_more_than_its_bound() -> None:
    decoder = BoundedDecoder("gzip, gzip", 100_000)
    data = gzip.compress(gzip.compress(b"\0" * 10_000_000))
    produced = []
    with pytest.raises(BodyTooLarge):
        for piece in decoder.decode(data):
            produced.append(len(piece))
    assert sum(produced) <= 100_000 and max(produced) <= 64 * 1024


def test_headers_sent_a_byte_at_a_time_are_bounded_by_the_timeout(served: SiteServer, tmp_path: Path) -> None:
    page = html_page("Slow", TEXT).encode()
    served.routes["/bomb/"] = Reply(200, {"Content-Type": "text/html", "X-Pad": "p" * 40}, page, drip=0.1)
    summary = crawl_index(served.url, tmp_path / "index", replace(LOCAL, timeout=1))
    [(where, reason)] = [(skip.where, skip.reason) for skip in summary.skips]
    assert where == served.url + "bomb/" and re.fullmatch(r"timed out after \d+\.\d s", reason), reason
    assert summary.posts == 3


def test_a_slow_body_skip_says_the_time_it_really_took(served: SiteServer, tmp_path: Path) -> None:
    def dribble() -> Iterator[bytes]:
        import time

        yield b"<html><body><p>"
        for _ in range(100):
            time.sleep(0.1)
            yield b"a"

    served.routes["/bomb/"] = Reply(200, {"Content-Type": "text/html"}, dribble)
    summary = crawl_index(served.url, tmp_path / "index", replace(LOCAL, timeout=0.5))
    [reason] = [skip.reason for skip in summary.skips]
    taken = float(re.fullmatch(r"timed out after (\d+(?:\.\d)?) s reading the body", reason).group(1))  # type: ignore[union-attr]
    assert taken >= 1.5, reason  # three timeouts for the whole answer, not the one a read gets


def sitemap(base: str, pages: range) -> bytes:
    entries = "".join(f"<url><loc>{base}p{n}/</loc></url>" for n in pages)
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()


def test_sitemaps_are_read_only_as_far_as_max_pages_needs(served: SiteServer, tmp_path: Path) -> None:
    base = served.url
    index = "".join(f"<sitemap><loc>{base}s{n}.xml.gz</loc></sitemap>" for n in range(4))
    served.routes["/sitemap.xml"] = Reply(200, {"Content-Type": "application/xml"}, (
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{index}</sitemapindex>').encode())
    for n in range(4):
        served.routes[f"/s{n}.xml.gz"] = Reply(200, {"Content-Type": "application/gzip"},
                                               gzip.compress(sitemap(base, range(n * 20_000, (n + 1) * 20_000))))
    summary = crawl_index(base, tmp_path / "index", replace(LOCAL, max_pages=5, max_sitemap_bytes=50_000_000))
    assert [hit.path for hit in served.hits() if hit.path.startswith("/s")] == ["/sitemap.xml", "/s0.xml.gz"]
    assert any(f"{base}s0.xml.gz read part way" in line and "3 sitemap(s) not read" in line
               and "--max-pages 5" in line for line in summary.report), summary.report
    assert any("over --max-pages" not in line for line in summary.report)


def test_max_sitemap_urls_bounds_the_entries_read(served: SiteServer, tmp_path: Path) -> None:
    base = served.url
    served.routes["/sitemap.xml"] = Reply(200, {"Content-Type": "application/xml"}, sitemap(base, range(5000)))
    options = replace(LOCAL, max_pages=10_000, max_sitemap_urls=100, max_sitemap_bytes=50_000_000)
    summary = crawl_index(base, tmp_path / "index", options)
    assert any("--max-sitemap-urls 100 entries read" in line for line in summary.report), summary.report
    assert len([hit for hit in served.hits() if hit.path.startswith("/p")]) <= 100


def test_a_304_keeps_the_sitemaps_stored_validators(site: Path, tmp_path: Path) -> None:
    with SiteServer(site, etag=False) as server:
        (site / "sitemap.xml").write_bytes(sitemap(server.url, range(0)).replace(
            b"</urlset>", f"<url><loc>{server.url}gear/</loc></url></urlset>".encode()))
        crawl_index(server.url, tmp_path / "index", LOCAL)
        server.routes["/sitemap.xml"] = Reply(304)  # no validators repeated, as many servers answer
        crawl_index(server.url, tmp_path / "index", LOCAL)
        server.clear()
        crawl_index(server.url, tmp_path / "index", LOCAL)
        [third] = server.hits("/sitemap.xml")
    assert "if-modified-since" in third.headers


def test_a_robots_sitemap_at_a_private_address_is_skipped_and_the_site_crawled(
    served: SiteServer, tmp_path: Path
) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"] if host == "docs.example" else [host]

    def public_or_fixture(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return str(address) == "127.0.0.1" or is_public_address(address)

    served.routes["/robots.txt"] = Reply(200, {"Content-Type": "text/plain"}, b"Sitemap: http://10.0.0.8/sitemap.xml\n")
    start = f"http://docs.example:{served.port}/"
    options = replace(LOCAL, allow_private=False)
    summary = crawl_index(start, tmp_path / "index", options, resolve=resolve, address_allowed=public_or_fixture)
    assert ("http://10.0.0.8/sitemap.xml",
            "sitemap: refused: 10.0.0.8 is not a public address (--allow-private crawls it)") in [
        (skip.where, skip.reason) for skip in summary.skips]  # fmt: skip
    assert {post.url for post in load_corpus(tmp_path / "index").posts} >= {start, start + "gear/"}
