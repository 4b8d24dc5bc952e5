"""The crawl's pure parts, without a network: addresses, URLs, sitemaps, robots rules, links, pacing."""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
from pathlib import Path

import httpx
import pytest

from askai_graph.indexing.fetch import CheckedTransport, UnsafeURL, is_public_address, retry_after, url_problem
from askai_graph.indexing.links import decode_html, read_links
from askai_graph.indexing.pacing import HostPacer
from askai_graph.indexing.robots import parse_robots
from askai_graph.indexing.scope import Scope, folder_of, normalize
from askai_graph.indexing.sitemap import MAX_LINE_BYTES, SitemapError, SitemapReader, parse_sitemap

URLSET = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</urlset>'


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),  # cloud metadata
        ("100.64.0.1", False),  # carrier-grade NAT
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped loopback
        ("2002:7f00:1::", False),  # 6to4 of 127.0.0.1
    ],
)
def test_only_public_unicast_addresses_are_public(address: str, public: bool) -> None:
    assert is_public_address(ipaddress.ip_address(address)) is public


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://docs.example/a", None),
        ("ftp://docs.example/", "not an http(s) URL (ftp)"),
        ("javascript:alert(1)", "not an http(s) URL (javascript)"),
        ("https://user:pw@docs.example/", "credentials in the URL"),
        ("https://user@docs.example/", "credentials in the URL"),
        ("https:///path", "no host"),
    ],
)
def test_url_problems(url: str, problem: str | None) -> None:
    assert url_problem(url) == problem


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("HTTPS://Docs.Example:443/a#part", "https://docs.example/a"),
        ("http://docs.example:8080", "http://docs.example:8080/"),
        ("https://docs.example/a?page=2", "https://docs.example/a?page=2"),
        ("https://u:p@docs.example/", None),
        ("mailto:a@docs.example", None),
        ("http://[::1]:80/x", "http://[::1]/x"),
    ],
)
def test_urls_are_compared_in_one_spelling(url: str, normal: str | None) -> None:
    assert normalize(url) == normal


def test_scope_keeps_to_the_hosts_the_folder_and_the_patterns() -> None:
    scope = Scope({"docs.example"}, folder_of("https://docs.example/docs/intro.html"), ("/docs/*",), ("*/old/*",))
    assert scope.covers("https://docs.example/docs/guide/")
    assert not scope.covers("https://docs.example/blog/")  # another folder
    assert not scope.covers("https://other.example/docs/guide/")  # another site
    assert not scope.covers("https://docs.example/docs/old/x/")  # excluded


def test_a_urlset_gives_pages_with_lastmod_and_an_index_gives_sitemaps() -> None:
    urlset = URLSET.format("<url><loc> https://d.example/a </loc><lastmod>2026-01-02</lastmod></url>"
                           "<url><loc>https://d.example/b</loc></url><url><loc>ftp://d.example/c</loc></url>")
    pages = parse_sitemap(urlset.encode(), 10_000).pages
    assert [(e.loc, e.lastmod) for e in pages] == [("https://d.example/a", "2026-01-02"), ("https://d.example/b", None)]
    index = ('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://d.example/s1.xml'
             "</loc><lastmod>2026-02-03</lastmod></sitemap></sitemapindex>")
    parsed = parse_sitemap(gzip.compress(index.encode()), 10_000)
    assert parsed.pages == [] and [(e.loc, e.lastmod) for e in parsed.sitemaps] == [("https://d.example/s1.xml",
                                                                                      "2026-02-03")]


def test_a_text_sitemap_is_one_url_per_line() -> None:
    assert [e.loc for e in parse_sitemap(b"https://d.example/a\n\nnot a url\nhttps://d.example/b\n", 1000).pages] == [
        "https://d.example/a",
        "https://d.example/b",
    ]


def test_a_text_sitemap_line_past_the_bound_is_refused_at_the_piece_that_passes_it() -> None:
    # A body with no newline would otherwise be carried, and copied, whole with every piece.
    reader = SitemapReader(50_000_000)
    assert reader.feed(b"https://d.example/" + b"a" * (MAX_LINE_BYTES - 100)).pages == []
    with pytest.raises(SitemapError, match=f"a line longer than {MAX_LINE_BYTES} bytes"):
        reader.feed(b"a" * 65_536)


def test_a_long_line_inside_one_piece_is_refused_like_one_across_pieces() -> None:
    body = b"https://d.example/a\nhttps://d.example/" + b"b" * MAX_LINE_BYTES + b"\nhttps://d.example/c\n"
    with pytest.raises(SitemapError, match="a line longer than"):
        parse_sitemap(body, 1_000_000)


def test_a_sitemap_of_nothing_but_blanks_is_refused_once_past_the_bound() -> None:
    reader = SitemapReader(50_000_000)
    assert reader.feed(b" \n" * (MAX_LINE_BYTES // 4)).pages == []
    with pytest.raises(SitemapError, match="nothing but blanks"):
        reader.feed(b"\n" * 65_536)


def test_a_gzip_bomb_is_inflated_no_further_than_the_bound() -> None:
    bomb = gzip.compress(b"<urlset>" + b" " * 5_000_000 + b"</urlset>")
    with pytest.raises(SitemapError, match="larger than 100000 bytes inflated"):
        parse_sitemap(bomb, 100_000)


def test_sitemap_entities_are_not_expanded() -> None:
    xml = (b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
           b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://d.example/&e;</loc></url>'
           b"</urlset>")
    locs = [e.loc for e in parse_sitemap(xml, 10_000).pages]
    assert all("root:" not in loc for loc in locs)


@pytest.mark.parametrize("document", [b"<html><body>not a sitemap</body></html>", b"<urlset", b"\x00\x01"])
def test_a_document_that_is_not_a_sitemap_is_an_error(document: bytes) -> None:
    with pytest.raises(SitemapError):
        parse_sitemap(document, 10_000)


def test_robots_rules_follow_rfc_9309_wildcards_and_longest_match() -> None:
    robots = parse_robots(
        "User-agent: *\nDisallow: /private/\nAllow: /private/open/\nDisallow: /*.pdf$\nCrawl-delay: 2\n"
        "Sitemap: https://d.example/sitemap.xml\n",
        "askai-graph",
    )
    assert not robots.allowed("https://d.example/private/x")
    assert robots.allowed("https://d.example/private/open/x")  # the longer rule wins
    assert not robots.allowed("https://d.example/files/guide.pdf")
    assert robots.allowed("https://d.example/files/guide.pdf.html")
    assert robots.delay == 2.0 and robots.sitemaps == ["https://d.example/sitemap.xml"]


def test_request_rate_is_a_delay_too() -> None:
    assert parse_robots("User-agent: *\nRequest-rate: 1/5s\n", "askai-graph").delay == 5.0


@pytest.mark.parametrize(("value", "seconds"), [("3", 3.0), (None, None), ("soon", None),
                                                ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)])
def test_retry_after_is_a_delay_or_a_date(value: str | None, seconds: float | None) -> None:
    assert retry_after(value) == seconds


def test_links_resolve_against_base_and_skip_nofollow() -> None:
    html = (b'<html><head><base href="/docs/"></head><body><a href="guide/#top">g</a><a href="guide/">again</a>'
            b'<a rel="nofollow" href="/login">x</a><a href="mailto:a@b.c">m</a><area href="https://d.example/map/">'
            b"</body></html>")
    page = read_links(html, "https://d.example/start/page.html")
    assert page.links == ["https://d.example/docs/guide/", "https://d.example/map/"]
    assert not page.noindex and not page.nofollow


@pytest.mark.parametrize(
    ("meta", "header", "noindex", "nofollow"),
    [
        ('<meta name="robots" content="noindex, follow">', "", True, False),
        ('<meta name="ROBOTS" content="none">', "", True, True),
        ("", "nofollow", False, True),
        ("", "googlebot: noindex", False, False),  # another crawler's directive
    ],
)
def test_robots_directives_of_a_page(meta: str, header: str, noindex: bool, nofollow: bool) -> None:
    page = read_links(f"<html><head>{meta}</head><body><a href='/x'>x</a></body></html>".encode(), "https://d/", header)
    assert (page.noindex, page.nofollow) == (noindex, nofollow)


def test_html_is_decoded_as_its_header_then_its_markup_says() -> None:
    latin = "<html><head><meta charset=iso-8859-1></head><body>café</body></html>".encode("latin-1")
    assert "café" in decode_html(latin, None)
    assert "café" in decode_html("café".encode("latin-1"), "iso-8859-1")
    assert decode_html("café".encode(), "no-such-charset") == "café"


def test_the_pacer_spaces_request_starts_per_host_and_honours_delays_and_pauses() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))

    pacer = HostPacer(rate=20, clock=lambda: 100.0, sleep=sleep)  # 50 ms apart; the clock stands still

    async def requests() -> None:
        for _ in range(3):
            await pacer.wait("d.example")
        await pacer.wait("other.example")  # another host has its own turns
        pacer.slow_down("d.example", 0.5)  # Crawl-delay: 0.5
        await pacer.wait("d.example")
        pacer.pause("d.example", 2)  # Retry-After: 2
        await pacer.wait("d.example")

    asyncio.run(requests())
    assert slept == [0.05, 0.1, 0.15, 2.0]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://intranet.example/", "intranet.example resolves to 10.0.0.5, not a public address"),
        ("http://127.0.0.1:9/", "127.0.0.1 is not a public address"),
        ("http://u:p@docs.example/", "credentials in the URL"),
    ],
)
def test_the_checked_transport_refuses_before_connecting(url: str, message: str) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return {"intranet.example": ["10.0.0.5"], "127.0.0.1": ["127.0.0.1"]}[host]

    async def send() -> None:
        transport = CheckedTransport(resolve=resolve)
        try:
            await transport.handle_async_request(httpx.Request("GET", url))
        finally:
            await transport.aclose()

    with pytest.raises(UnsafeURL, match=message):
        asyncio.run(send())


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--rate", "-1"], "--rate: must be at least 0"),
        (["--max-pages", "0"], "--max-pages: must be at least 1"),
        (["--concurrency", "lots"], "--concurrency: not a number"),
        (["--base-url", "https://elsewhere.example/"], "--base-url and --trailing-slash are for folders"),
    ],
)
def test_bad_crawl_flags_are_one_line_with_exit_status_2(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from askai_graph.cli import main

    try:
        status = main(["index", "https://docs.example/", *flags])
    except SystemExit as exc:  # argparse's own errors
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    assert status == 2 and message in err.strip().splitlines()[-1]


def test_crawl_state_keeps_only_records_the_index_still_holds(tmp_path: Path) -> None:
    from askai_graph.indexing.crawlstate import CrawlState, PageRecord, SitemapRecord, load_state

    state = CrawlState(
        {"https://d.example/a": PageRecord("s1", '"e1"', None, "2026-01-01", ["https://d.example/b"]),
         "https://d.example/b": PageRecord("s2", None, "Mon, 01 Jan 2026 00:00:00 GMT")},
        {"https://d.example/old": "https://d.example/a"},
        {"https://d.example/sitemap.xml": SitemapRecord('"x"', None, None, [("https://d.example/a", "2026-01-01")])},
    )
    state.save(tmp_path)
    loaded = load_state(tmp_path, {"https://d.example/a": "s1", "https://d.example/b": "changed"})
    assert list(loaded.pages) == ["https://d.example/a"]  # b's stored stamp moved: fetched in full
    assert loaded.prior("https://d.example/old") == ("https://d.example/a", state.pages["https://d.example/a"])
    assert loaded.pages["https://d.example/a"].validators() == {"If-None-Match": '"e1"'}
    assert state.pages["https://d.example/b"].validators() == {"If-Modified-Since": "Mon, 01 Jan 2026 00:00:00 GMT"}
    assert loaded.sitemaps == state.sitemaps


def test_an_unreadable_crawl_state_means_a_full_crawl(tmp_path: Path) -> None:
    from askai_graph.indexing.crawlstate import STATE, load_state

    (tmp_path / STATE).write_text("{not json")
    assert load_state(tmp_path, {}).pages == {}
