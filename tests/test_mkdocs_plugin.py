"""The MkDocs plugin, in real ``mkdocs build`` runs of a fixture site: ``plugins: [search, askai]``.

Each build writes the widget into every page and the index into ``site/askai/index/``,
which then answers questions with the built pages' URLs, titles and nav order.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from askai_graph import Settings, build_graph
from askai_graph.indexing.store import IndexReader
from askai_graph.state import STATE_KEYS
from tests.live import free_port
from tests.sites import clean_env, mkdocs_build, mkdocs_project

pytestmark = pytest.mark.integration

QUESTION = "How do I turn certificate verification off?"


def built(tmp_path: Path, **config: object) -> Path:
    result = mkdocs_build(mkdocs_project(tmp_path, **config))
    assert result.returncode == 0, result.stderr
    return tmp_path / "site"


def pages(site: Path) -> list[Path]:
    return sorted(path for path in site.rglob("*.html") if path.name != "404.html")


def answer(site: Path, index_cache: Path, question: str = QUESTION) -> dict[str, object]:
    graph = build_graph(settings=Settings(corpus=site / "askai" / "index", index_cache_dir=index_cache))
    return dict(graph.invoke({"question": question}, output_keys=STATE_KEYS))


@pytest.mark.parametrize(
    ("directory_urls", "ssl_url"),
    [(True, "https://lantern.example/guide/ssl/"), (False, "https://lantern.example/guide/ssl.html")],
)
def test_build_writes_an_index_that_answers_with_the_built_url(
    tmp_path: Path, index_cache: Path, directory_urls: bool, ssl_url: str
) -> None:
    site = built(tmp_path, use_directory_urls=directory_urls)
    final = answer(site, index_cache)
    assert final["outcome"] == "accepted", final["answer"]
    assert [source.url for source in final["sources"]] == [ssl_url]  # type: ignore[attr-defined]


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_every_built_page_carries_one_widget_and_its_script(tmp_path: Path, theme: str) -> None:
    site = built(tmp_path, theme={"name": theme})
    assert len(pages(site)) == 5
    for page in pages(site):
        html = page.read_text("utf-8")
        assert html.count("<askai-widget") == 1, page
        depth = page.relative_to(site).as_posix().count("/")
        # No server_url: the widget comes from the site's own root, which askai serve --site serves.
        assert f'<script src="{"../" * depth}widget.js" defer data-askai-script></script>' in html, page
        assert "data-askai-theme" in html
    # The theme's 404 page too (a reader lands there); the server shows it at any path: the script's is the root's.
    missing = (site / "404.html").read_text("utf-8")
    assert missing.count("<askai-widget") == 1
    assert missing.count('<script src="/widget.js" defer data-askai-script></script>') == 1
    assert "data-askai-theme" in missing
    assert not [post.url for post in IndexReader(site / "askai" / "index").posts if "404" in post.url]


def test_material_build_indexes_nav_titles_sections_and_order(tmp_path: Path) -> None:
    site = built(tmp_path, theme={"name": "material"})
    reader = IndexReader(site / "askai" / "index")
    posts = {post.url: post for post in reader.posts}
    install = posts["https://lantern.example/guide/install/"]
    assert install.title == "Install" and install.section == "Guide"  # the nav's title, not the H1
    assert "pip install lantern-proxy" in install.body
    assert "Search" not in install.body and "Lantern" not in install.title  # Material's header and nav are not text
    ordered = sorted(posts.values(), key=lambda p: (p.weight is None, p.weight or 0))
    assert [p.url.removeprefix("https://lantern.example/") for p in ordered] == [
        "", "guide/install/", "guide/ssl/", "reference/", "faq/",  # faq.md is not in the nav: last
    ]


def test_material_catalog_answer_follows_the_nav(tmp_path: Path, index_cache: Path) -> None:
    site = built(tmp_path, theme={"name": "material"})
    final = answer(site, index_cache, "What guides are there?")
    assert final["validation"].ok, final["answer"]  # type: ignore[attr-defined]
    text = str(final["answer"])
    urls = ["https://lantern.example/guide/install/", "https://lantern.example/guide/ssl/",
            "https://lantern.example/reference/"]
    positions = [text.index(f"({url})") for url in urls]
    assert positions == sorted(positions)


def test_build_prints_one_line_with_the_page_count(tmp_path: Path) -> None:
    result = mkdocs_build(mkdocs_project(tmp_path))
    lines = [line for line in result.stderr.splitlines() if "askai:" in line]
    assert len(lines) == 1 and re.search(r"askai: indexed 5 pages into \S+askai/index \(5 parsed", lines[0]), lines


def test_a_rebuild_parses_only_the_changed_page(tmp_path: Path) -> None:
    config = mkdocs_project(tmp_path)
    assert mkdocs_build(config).returncode == 0
    ssl = tmp_path / "docs" / "guide" / "ssl.md"
    ssl.write_text(ssl.read_text() + "\nPinning a certificate is described in the reference.\n")
    result = mkdocs_build(config)
    assert "askai: indexed 5 pages" in result.stderr and "(1 parsed, the rest unchanged)" in result.stderr
    assert (tmp_path / ".cache" / "plugin" / "askai" / "index").is_dir()


@pytest.mark.enable_socket
def test_mkdocs_serve_rebuilds_the_index_incrementally(tmp_path: Path) -> None:
    config = mkdocs_project(tmp_path)
    log = tmp_path / "serve.log"
    command = [sys.executable, "-m", "mkdocs", "serve", "-f", str(config), "-a", f"127.0.0.1:{free_port()}"]
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=tmp_path, env=clean_env(), stdout=out, stderr=subprocess.STDOUT)
    try:
        first = wait_for_line(log, server, r"askai: indexed 5 pages .*\(5 parsed")
        ssl = tmp_path / "docs" / "guide" / "ssl.md"
        ssl.write_text(ssl.read_text() + "\nPinning a certificate is described in the reference.\n")
        second = wait_for_line(log, server, r"askai: indexed 5 pages .*\(1 parsed, the rest unchanged\)")
        assert first and second
    finally:
        server.terminate()
        server.wait(20)


def wait_for_line(log: Path, server: subprocess.Popen[bytes], pattern: str) -> str:
    """Wait (up to 2 minutes: builds on a loaded machine) for a line matching ``pattern`` in the server's log."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and server.poll() is None:
        match = re.search(pattern + ".*", log.read_text())
        if match:
            return match[0]
        time.sleep(0.2)
    raise AssertionError(f"no line matching {pattern!r}:\n{log.read_text()[-3000:]}")


def test_options_reach_the_widget(tmp_path: Path) -> None:
    plugin = {"askai": {"server_url": "https://ask.lantern.example", "mode": "inline", "index": False,
                        "suggestions": ["How do I install it?"], "strings": {"launcher": "Fragen"}}}
    site = built(tmp_path, plugin=plugin)
    html = (site / "guide" / "ssl" / "index.html").read_text("utf-8")
    assert '<script src="https://ask.lantern.example/widget.js" defer data-askai-script></script>' in html
    element = re.search(r"<askai-widget[^>]*>", html)
    assert element is not None
    assert element[0] == ('<askai-widget endpoint="https://ask.lantern.example" inline '
                          'suggestions="[&quot;How do I install it?&quot;]" strings="{&quot;launcher&quot;: '
                          '&quot;Fragen&quot;}">')
    assert not (site / "askai").exists()  # index: false


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        ({"askai": {"sever_url": "https://x.example"}}, "option 'sever_url': unknown option"),
        ({"askai": {"server_url": "ftp://x.example"}}, "option 'server_url': must be an http:// or https:// URL"),
        ({"askai": {"mode": "sidebar"}}, "option 'mode'"),
    ],
)
def test_bad_options_fail_the_build_with_a_clear_error(tmp_path: Path, plugin: object, message: str) -> None:
    result = mkdocs_build(mkdocs_project(tmp_path, plugin=plugin))
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not (tmp_path / "site").exists()
