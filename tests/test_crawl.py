"""``askai index https://site/``: a real crawl of fixture sites served on 127.0.0.1.

Each test writes a small built site into a temp folder and serves it with
``tests.site_server.SiteServer`` (ETag, Last-Modified, scripted statuses, redirects,
latency), then crawls it with ``crawl_index`` and reads the index it wrote.
"""

from __future__ import annotations

import gzip
import ipaddress
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from askai_graph import load_corpus
from askai_graph.indexing import StrictIndexError, crawl_index
from askai_graph.indexing.crawl_options import CrawlOptions
from askai_graph.indexing.fetch import is_public_address
from askai_graph.retrieval.corpus import CorpusError
from tests.ctrl_c import interruptible
from tests.site_server import Reply, SiteServer, html_page

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

LOCAL = CrawlOptions(allow_private=True, rate=0, timeout=5, backoff=0.05)
WORDS = {
    "index": "The trail guide covers routes, gear and safety for hikers of every level in the hills.",
    "gear": "Pack a rain shell, a warm layer, a head torch and two litres of water for a day walk.",
    "maps": "Fold the paper map so the route is on top, and keep it in a clear plastic sleeve.",
    "safety": "Tell someone your route and the time you expect to be back before you set off walking.",
    "food": "Carry slow energy food such as oat bars and nuts, and eat a little every hour on the trail.",
}


def write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())


def linked_site(root: Path) -> None:
    """index -> gear, maps; gear -> safety; safety -> food (a chain for depth)."""
    write(root, "index.html", html_page("Trail guide", WORDS["index"], links=("/gear/", "/maps/")))
    write(root, "gear/index.html", html_page("Gear", WORDS["gear"], links=("/", "/safety/")))
    write(root, "maps/index.html", html_page("Maps", WORDS["maps"], links=("/",)))
    write(root, "safety/index.html", html_page("Safety", WORDS["safety"], links=("/food/",)))
    write(root, "food/index.html", html_page("Food", WORDS["food"], links=("/",)))


def urls(out: Path) -> set[str]:
    return {post.url for post in load_corpus(out).posts}


def paths(out: Path, server: SiteServer) -> set[str]:
    return {url.removeprefix(server.url.rstrip("/")) for url in urls(out)}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    return root


@pytest.fixture
def served(site: Path) -> Iterator[SiteServer]:
    with SiteServer(site) as server:
        yield server


def test_a_sitemap_index_with_lastmod_lists_the_pages_crawled(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    base = served.url
    write(site, "sitemap.xml", f"""<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>{base}pages.xml</loc><lastmod>2026-05-01</lastmod></sitemap>
        <sitemap><loc>{base}more.xml.gz</loc></sitemap></sitemapindex>""")
    write(site, "pages.xml", f"""<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>{base}gear/</loc><lastmod>2026-05-01</lastmod></url>
        <url><loc>{base}maps/</loc><lastmod>2026-05-02</lastmod></url></urlset>""")
    write(site, "more.xml.gz", gzip.compress(f"""<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>{base}food/</loc><lastmod>2026-05-03T10:00:00+00:00</lastmod></url></urlset>""".encode()))
    summary = crawl_index(base, tmp_path / "index", LOCAL)
    assert paths(tmp_path / "index", served) == {"/gear/", "/maps/", "/food/"}  # the sitemap's, not the links'
    assert "/safety/" not in {hit.path for hit in served.hits()}
    assert any("by 3 sitemap(s)" in line for line in summary.report)

    served.clear()
    write(site, "pages.xml", (site / "pages.xml").read_text().replace("2026-05-02", "2026-06-01"))
    write(site, "sitemap.xml", (site / "sitemap.xml").read_text().replace("2026-05-01", "2026-06-01"))
    again = crawl_index(base, tmp_path / "index", LOCAL)
    # Only the page whose <lastmod> moved is asked for (and, its bytes unchanged, is a 304);
    # of the sitemaps, the changed ones are read and the undated one revalidated.
    assert [(hit.path, hit.status) for hit in served.hits() if hit.path.endswith("/")] == [("/maps/", 304)]
    assert {hit.path: hit.status for hit in served.hits() if hit.path.endswith((".xml", ".gz"))} == {
        "/sitemap.xml": 200, "/pages.xml": 200, "/more.xml.gz": 304,
    }
    assert again.parsed == 0 and again.fingerprint == summary.fingerprint
    assert any("2 unchanged by <lastmod>" in line for line in again.report)

    served.clear()
    crawl_index(base, tmp_path / "index", LOCAL)  # nothing changed: no body but robots.txt's 404
    assert [hit.path for hit in served.hits() if hit.body_sent] == ["/robots.txt"]
    assert "/pages.xml" not in {hit.path for hit in served.hits()}  # its <lastmod> in the index did not move


def test_robots_disallow_rules_keep_pages_unrequested(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    robots = "User-agent: *\nAllow: /\nDisallow: /gear/\n\nUser-agent: askai-graph\nDisallow: /*ps/$\n"
    write(site, "robots.txt", robots)
    summary = crawl_index(served.url, tmp_path / "index", LOCAL)
    # Our own group applies (not "*"): /maps/ matches the wildcard rule, /gear/ is allowed to us.
    assert paths(tmp_path / "index", served) == {"/", "/gear/", "/safety/", "/food/"}
    assert not served.hits("/maps/")
    assert any("1 disallowed by robots.txt" in line for line in summary.report)


def test_crawl_delay_spaces_the_requests(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    write(site, "robots.txt", "User-agent: *\nCrawl-delay: 0.4\n")
    started = time.monotonic()
    summary = crawl_index(served.url, tmp_path / "index", CrawlOptions(allow_private=True, concurrency=4))
    pages = [hit.at for hit in served.hits() if hit.path not in ("/robots.txt", "/sitemap.xml")]
    assert len(pages) == 5
    # The crawler spaces the *starts* it grants (HostPacer, tested on a fake clock in
    # test_crawl_parts). What the server sees also carries each request's own lag
    # (resolving, connecting, a busy event loop): on a loaded machine one request can
    # arrive 0.4 s late and land beside the next, so gaps between arrivals prove
    # nothing. A lag only ever delays an arrival, so the last page cannot arrive before
    # four spacings after the start: 1.6 s with Crawl-delay, about 0.75 s at the default
    # rate (8 a second over robots.txt, the sitemap and five pages) without it.
    assert pages[-1] - started >= 4 * 0.4
    assert any("Crawl-delay 0.4 s" in line for line in summary.report)


def test_without_a_sitemap_links_are_followed_no_deeper_than_max_depth(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    linked_site(site)
    write(site, "gear/index.html", html_page(
        "Gear", WORDS["gear"], links=("/", "/safety/", "https://elsewhere.example/", "mailto:a@b.example")
    ))
    options = CrawlOptions(allow_private=True, rate=0, max_depth=2)
    summary = crawl_index(served.url, tmp_path / "index", options)
    assert paths(tmp_path / "index", served) == {"/", "/gear/", "/maps/", "/safety/"}
    assert not served.hits("/food/")  # three links away
    assert any("following links" in line for line in summary.report)
    assert any("deeper than --max-depth 2" in line for line in summary.report)


def test_link_following_keeps_to_the_start_folder_and_the_path_patterns(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    write(site, "docs/index.html", html_page("Docs", WORDS["index"], links=("/docs/gear/", "/docs/maps/", "/blog/")))
    write(site, "docs/gear/index.html", html_page("Gear", WORDS["gear"], links=("/docs/old/x/",)))
    write(site, "docs/maps/index.html", html_page("Maps", WORDS["maps"]))
    write(site, "docs/old/x/index.html", html_page("Old", WORDS["food"]))
    write(site, "blog/index.html", html_page("Blog", WORDS["safety"]))
    options = CrawlOptions(allow_private=True, rate=0, exclude=("/docs/old/*",))
    crawl_index(served.url + "docs/", tmp_path / "index", options)
    assert paths(tmp_path / "index", served) == {"/docs/", "/docs/gear/", "/docs/maps/"}
    requested = {hit.path for hit in served.hits()}
    assert "/blog/" not in requested and "/docs/old/x/" not in requested


def test_max_pages_bounds_the_requests(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    summary = crawl_index(served.url, tmp_path / "index", CrawlOptions(allow_private=True, rate=0, max_pages=2))
    assert len(served.bodies()) == 2 and summary.posts == 2
    assert any("over --max-pages 2" in line for line in summary.report)


def test_redirects_are_followed_and_recorded_and_the_canonical_url_wins(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    base = served.url
    write(site, "index.html", html_page("Trail guide", WORDS["index"], links=("/old-gear", "/maps/")))
    write(site, "gear/index.html", html_page("Gear", WORDS["gear"]))
    write(site, "maps/index.html", html_page("Maps", WORDS["maps"], canonical="https://trail.example/maps/"))
    served.routes["/old-gear"] = Reply(301, {"Location": "/gear/"})
    summary = crawl_index(base, tmp_path / "index", LOCAL)
    assert urls(tmp_path / "index") == {base, base + "gear/", "https://trail.example/maps/"}
    redirect = (base + "old-gear", f"redirected to {base}gear/")
    assert redirect in [(note.where, note.reason) for note in summary.notes]


def test_a_redirect_hop_to_a_private_address_is_refused(site: Path, served: SiteServer, tmp_path: Path) -> None:
    # docs.example stands in for a public site: the policy lets exactly the fixture
    # server's address through and asks the real public-address check about any other.
    # Once /leak/ has answered, the name re-resolves to a private address (DNS
    # rebinding): the redirect it sent, to its own host, must not reach that address.
    rebound: list[bool] = []

    async def resolve(host: str, port: int) -> list[str]:
        assert host == "docs.example"
        return ["10.0.0.8"] if rebound else ["127.0.0.1"]

    def public_or_fixture(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return str(address) == "127.0.0.1" or is_public_address(address)

    def leak() -> Reply:
        rebound.append(True)
        return Reply(302, {"Location": "/admin/"})

    write(site, "index.html", html_page("Trail guide", WORDS["index"], links=("/gear/", "/leak/")))
    write(site, "gear/index.html", html_page("Gear", WORDS["gear"]))
    write(site, "admin/index.html", html_page("Admin", WORDS["safety"]))
    served.routes["/leak/"] = leak
    start = f"http://docs.example:{served.port}/"
    options = CrawlOptions(rate=0, concurrency=1, retries=0)
    summary = crawl_index(start, tmp_path / "index", options, resolve=resolve, address_allowed=public_or_fixture)
    # The name was connected to at the address checked, its Host header kept.
    assert urls(tmp_path / "index") == {start, start + "gear/"}
    assert all(hit.headers["host"] == f"docs.example:{served.port}" for hit in served.hits())
    assert not served.hits("/admin/")
    [skip] = [skip for skip in summary.skips if skip.where == start + "leak/"]
    assert skip.reason == (
        f"redirected to {start}admin/: refused: docs.example resolves to 10.0.0.8, not a public address"
        " (--allow-private crawls it)"
    )


def test_a_loopback_site_is_refused_without_allow_private(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    with pytest.raises(CorpusError, match="not a public address"):
        crawl_index(served.url, tmp_path / "index", CrawlOptions(rate=0))
    assert served.hits() == []
    assert not (tmp_path / "index").exists()


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/", "http://user:secret@127.0.0.1/", "file:///etc/passwd"])
def test_only_http_urls_without_credentials_are_crawled(url: str, tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="cannot crawl"):
        crawl_index(url, tmp_path / "index", LOCAL)


@pytest.mark.parametrize("validator", ["etag", "last_modified"])
def test_a_recrawl_of_an_unchanged_site_fetches_no_body(validator: str, site: Path, tmp_path: Path) -> None:
    linked_site(site)
    with SiteServer(site, etag=validator == "etag", last_modified=validator == "last_modified") as server:
        first = crawl_index(server.url, tmp_path / "index", LOCAL)
        server.clear()
        again = crawl_index(server.url, tmp_path / "index", LOCAL)
        pages = [hit for hit in server.hits() if hit.path.endswith("/")]
    assert len(pages) == 5 and all(hit.status == 304 and not hit.body_sent for hit in pages)
    header = "if-none-match" if validator == "etag" else "if-modified-since"
    assert all(header in hit.headers for hit in pages)
    assert (again.parsed, again.added, again.changed, again.removed) == (0, [], [], [])
    assert again.fingerprint == first.fingerprint
    assert any("5 not modified (304)" in line for line in again.report)


def test_a_changed_page_is_fetched_again_and_the_rest_revalidated(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    linked_site(site)
    crawl_index(served.url, tmp_path / "index", LOCAL)
    served.clear()
    write(site, "maps/index.html", html_page("Maps", WORDS["maps"] + " A compass needs no battery.", links=("/",)))
    again = crawl_index(served.url, tmp_path / "index", LOCAL)
    assert served.bodies() == ["/maps/"]
    assert again.changed == [served.url + "maps/"] and again.parsed == 1


@pytest.mark.parametrize("gone", ["unlisted", "404", "410"])
def test_a_page_that_is_gone_leaves_the_index(gone: str, site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    listed = ["", "gear/", "maps/", "food/"]

    def sitemap(pages: list[str]) -> str:
        entries = "".join(f"<url><loc>{served.url}{page}</loc></url>" for page in pages)
        return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'

    write(site, "sitemap.xml", sitemap(listed))
    crawl_index(served.url, tmp_path / "index", LOCAL)
    assert served.url + "maps/" in urls(tmp_path / "index")
    if gone == "unlisted":
        write(site, "sitemap.xml", sitemap([page for page in listed if page != "maps/"]))
    else:
        served.routes["/maps/"] = Reply(int(gone), {"Content-Type": "text/html"}, b"<html>gone</html>")
    again = crawl_index(served.url, tmp_path / "index", LOCAL)
    assert again.removed == [served.url + "maps/"]
    assert served.url + "maps/" not in urls(tmp_path / "index") and again.posts == 3


def big_page() -> Iterator[bytes]:
    yield b"<html><body><main><p>"
    for _ in range(20 * 1024):
        yield b"x" * 1024


def test_error_pages_non_html_and_a_20_mb_page_are_skipped_with_one_reason_each(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    links = ("/gear/", "/missing/", "/broken/", "/huge/", "/huge-streamed/", "/guide.pdf")
    write(site, "index.html", html_page("Trail guide", WORDS["index"], links=links))
    write(site, "gear/index.html", html_page("Gear", WORDS["gear"]))
    write(site, "guide.pdf", b"%PDF-1.4 not a page")
    served.routes["/broken/"] = Reply(500, {"Content-Type": "text/html"}, b"oops")
    twenty_mb = 20 * 1024 * 1024
    served.routes["/huge/"] = Reply(200, {"Content-Type": "text/html", "Content-Length": str(twenty_mb)}, big_page)
    served.routes["/huge-streamed/"] = Reply(200, {"Content-Type": "text/html"}, big_page)
    options = CrawlOptions(allow_private=True, rate=0, retries=1, backoff=0.05)
    summary = crawl_index(served.url, tmp_path / "index", options)
    base = served.url
    reasons = {skip.where.removeprefix(base): skip.reason for skip in summary.skips}
    assert reasons == {
        "missing/": "HTTP 404 Not Found",
        "broken/": "HTTP 500 Internal Server Error",
        "huge/": f"larger than 10000000 bytes (Content-Length {twenty_mb})",
        "huge-streamed/": "larger than 10000000 bytes",
        "guide.pdf": "not HTML (application/pdf)",
    }
    assert len(served.hits("/broken/")) == 2  # retried once, then reported
    assert urls(tmp_path / "index") == {base, base + "gear/"}


def test_strict_makes_a_skipped_page_fatal_and_keeps_the_previous_index(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    linked_site(site)
    first = crawl_index(served.url, tmp_path / "index", LOCAL, strict=True)
    served.routes["/maps/"] = Reply(404, {"Content-Type": "text/html"}, b"gone")
    with pytest.raises(StrictIndexError, match="--strict"):
        crawl_index(served.url, tmp_path / "index", LOCAL, strict=True)
    assert load_corpus(tmp_path / "index").fingerprint == first.fingerprint


def test_a_slow_page_times_out_and_is_skipped(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    served.routes["/maps/"] = Reply(200, {"Content-Type": "text/html"}, b"<html>late</html>", delay=3)
    options = CrawlOptions(allow_private=True, rate=0, timeout=0.5, retries=0)
    summary = crawl_index(served.url, tmp_path / "index", options)
    assert [(skip.where, skip.reason) for skip in summary.skips] == [(served.url + "maps/", "timed out after 0.5 s")]
    assert summary.posts == 4


def test_a_page_failing_for_now_keeps_its_stored_copy(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    crawl_index(served.url, tmp_path / "index", LOCAL)
    served.routes["/maps/"] = Reply(503, {"Content-Type": "text/html"}, b"busy")
    again = crawl_index(served.url, tmp_path / "index", CrawlOptions(allow_private=True, rate=0, retries=0))
    assert served.url + "maps/" in urls(tmp_path / "index") and again.removed == []
    assert [note.reason for note in again.notes] == ["kept the copy from the last crawl (HTTP 503 Service Unavailable)"]


def test_retry_after_is_honoured(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    answers = iter([Reply(429, {"Retry-After": "1", "Content-Type": "text/html"}, b"slow down")])
    page = (site / "maps/index.html").read_bytes()
    served.routes["/maps/"] = lambda: next(answers, Reply(200, {"Content-Type": "text/html"}, page))
    crawl_index(served.url, tmp_path / "index", LOCAL)
    first, second = served.hits("/maps/")
    assert second.at - first.at >= 0.9  # Retry-After: 1 (the backoff alone is 0.05 s)
    assert served.url + "maps/" in urls(tmp_path / "index")


def test_a_robots_txt_server_error_stops_the_crawl_and_keeps_the_index(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    linked_site(site)
    first = crawl_index(served.url, tmp_path / "index", LOCAL)
    served.routes["/robots.txt"] = Reply(503, {"Content-Type": "text/plain"}, b"down")
    with pytest.raises(CorpusError, match="robots.txt: HTTP 503"):
        crawl_index(served.url, tmp_path / "index", LOCAL)
    assert load_corpus(tmp_path / "index").fingerprint == first.fingerprint


def test_noindex_pages_are_not_indexed_but_their_links_are_followed(
    site: Path, served: SiteServer, tmp_path: Path
) -> None:
    linked_site(site)
    write(site, "gear/index.html", html_page(
        "Gear", WORDS["gear"], links=("/safety/",), head='<meta name="robots" content="noindex">'
    ))
    crawl_index(served.url, tmp_path / "index", LOCAL)
    assert paths(tmp_path / "index", served) == {"/", "/maps/", "/safety/", "/food/"}


def run_askai(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "askai_graph", *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_askai_index_of_a_url_then_ask_cites_a_crawled_page(site: Path, served: SiteServer, tmp_path: Path) -> None:
    linked_site(site)
    write(site, "gear/index.html", html_page(
        "What to pack for a day walk",
        "For a day walk, pack a rain shell, a warm layer, a head torch and two litres of water. Add a map, a "
        "compass and a small first aid kit.",
        links=("/", "/safety/"), description="The kit list for a day walk in the hills.",
    ))
    out = tmp_path / "index"
    indexed = run_askai("index", served.url, "--allow-private", "--out", str(out), "-q")
    assert indexed.returncode == 0, indexed.stderr
    assert "indexed 5 posts" in indexed.stdout and f"crawled {served.url}" in indexed.stdout
    asked = run_askai("ask", "--json", "What should I pack for a day walk?", env={"ASKAI_CORPUS": str(out)})
    assert asked.returncode == 0, asked.stderr
    result = json.loads(asked.stdout)
    assert result["outcome"] == "accepted", result
    assert served.url + "gear/" in [source["url"] for source in result["sources"]]


def test_askai_index_of_a_loopback_url_without_the_flag_is_one_line(served: SiteServer, tmp_path: Path) -> None:
    refused = run_askai("index", served.url, "--out", str(tmp_path / "index"), "-q")
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and "--allow-private" in refused.stderr


def test_a_crawled_page_is_read_like_a_built_page(site: Path, served: SiteServer, tmp_path: Path) -> None:
    article = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Stoves | Trail guide</title>"
        "<meta name='description' content='Which camp stove to carry.'></head><body>"
        "<nav><a href='/'>Home</a> Navigation text that is not the article.</nav><main><article><h1>Stoves</h1>"
        f"<p>{WORDS['gear']} A gas canister stove boils a litre in four minutes.</p>"
        "<img src='/img/stove.png' alt='A canister stove on a rock'>"
        "<pre><code class='language-bash'>stove --light\nstove --simmer</code></pre></article></main>"
        "<footer>Copyright footer</footer></body></html>"
    )
    write(site, "index.html", article)
    crawl_index(served.url, tmp_path / "index", LOCAL)
    [post] = load_corpus(tmp_path / "index").posts
    assert (post.url, post.summary) == (served.url, "Which camp stove to carry.")
    assert post.title.startswith("Stoves")
    assert [(image.url, image.alt) for image in post.images] == [(served.url + "img/stove.png",
                                                                  "A canister stove on a rock")]
    assert "```bash\nstove --light\nstove --simmer\n```" in post.body
    assert "Navigation text" not in post.body and "Copyright footer" not in post.body


def test_urls_redirecting_to_one_page_index_it_once(site: Path, served: SiteServer, tmp_path: Path) -> None:
    write(site, "index.html", html_page("Trail guide", WORDS["index"], links=("/a", "/b", "/gear/")))
    write(site, "gear/index.html", html_page("Gear", WORDS["gear"]))
    served.routes["/a"] = served.routes["/b"] = Reply(301, {"Location": "/gear/"})
    summary = crawl_index(served.url, tmp_path / "index", LOCAL)
    assert summary.skips == [] and summary.posts == 2
    assert urls(tmp_path / "index") == {served.url, served.url + "gear/"}


def test_ctrl_c_during_askai_index_is_one_line(site: Path, tmp_path: Path) -> None:
    import signal
    import threading

    linked_site(site)
    asked, over = threading.Event(), threading.Event()

    def start_page() -> Reply:
        # Answered only once the test is over: the crawl is surely under way when the signal comes.
        asked.set()
        over.wait()
        return Reply(503)

    with SiteServer(site) as server:
        server.routes["/"] = start_page
        command = [sys.executable, "-m", "askai_graph", "index", server.url, "--allow-private",
                   "--out", str(tmp_path / "index"), "-q"]  # fmt: skip
        try:
            with interruptible(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
                while not asked.wait(0.05):
                    assert process.poll() is None, process.communicate()
                process.send_signal(signal.SIGINT)
                _, stderr = process.communicate()
        finally:
            over.set()
    assert process.returncode == 130 and stderr == "askai: interrupted\n", stderr
