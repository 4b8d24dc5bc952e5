"""The Sphinx extension, in real ``sphinx-build`` runs (``html`` and ``dirhtml``) of a small rST site.

``extensions = ["askai_graph.sphinx"]``: the widget on every page, and an index of the
pages Sphinx wrote, in the toctree's order, answering with the built URLs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import Settings, build_graph
from askai_graph.indexing.store import IndexReader
from askai_graph.plugins.sphinx import toctree_order
from askai_graph.state import STATE_KEYS
from tests.sites import sphinx_build, sphinx_project

pytestmark = pytest.mark.integration

BASE = "https://lantern.example/docs/"
URLS = {
    "html": ["index.html", "guide/index.html", "guide/ssl.html", "guide/install.html", "reference.html"],
    "dirhtml": ["", "guide/", "guide/ssl/", "guide/install/", "reference/"],
}


def built(tmp_path: Path, builder: str, conf: str = f"html_baseurl = {BASE!r}\n") -> Path:
    out = tmp_path / builder
    result = sphinx_build(sphinx_project(tmp_path, conf), builder, out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_catalog_answer_lists_pages_in_toctree_order(tmp_path: Path, index_cache: Path, builder: str) -> None:
    out = built(tmp_path, builder)
    graph = build_graph(settings=Settings(corpus=out / "askai" / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": "What guides are there?"}, output_keys=STATE_KEYS)
    assert final["validation"].ok, final["answer"]
    positions = [final["answer"].index(f"({BASE}{url})") for url in URLS[builder]]
    assert positions == sorted(positions)  # ssl before install: the toctree's order, not the alphabet's


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_question_is_answered_with_the_built_url(tmp_path: Path, index_cache: Path, builder: str) -> None:
    out = built(tmp_path, builder)
    graph = build_graph(settings=Settings(corpus=out / "askai" / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": "How do I turn certificate verification off?"})
    assert final["outcome"] == "accepted", final["answer"]
    assert [source.url for source in final["sources"]] == [BASE + URLS[builder][2]]


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_every_page_carries_one_widget_and_its_script(tmp_path: Path, builder: str) -> None:
    source = sphinx_project(tmp_path, f"html_baseurl = {BASE!r}\n")
    with (source / "reference.rst").open("a", encoding="utf-8") as page:
        page.write("\n.. py:module:: lantern\n")  # a Python module: Sphinx writes py-modindex
    out = built(tmp_path, builder)
    pages = [p for p in out.rglob("*.html") if "_static" not in p.parts]
    names = {p.relative_to(out).as_posix() for p in pages}
    generated = {"genindex", "search", "py-modindex"}  # Sphinx's own pages: a reader lands there too
    assert {name.removesuffix("/index.html").removesuffix(".html") for name in names} >= generated
    assert len(pages) >= 9  # the five toctree pages, the orphan FAQ and Sphinx's three
    for page in pages:
        html = page.read_text("utf-8")
        assert html.count("<askai-widget") == 1, page
        depth = page.relative_to(out).as_posix().count("/")
        # No server_url: the widget comes from the site's own root, which askai serve --site serves.
        script = f'<script data-askai-script="" defer="defer" src="{"../" * depth}_static/../widget.js"></script>'
        assert html.count(script) == 1, page
    indexed = {post.url for post in IndexReader(out / "askai" / "index").posts}
    assert not {url for url in indexed if any(name in url for name in generated)}  # no document of the site


def test_server_url_option_is_the_script_and_the_endpoint(tmp_path: Path) -> None:
    out = built(tmp_path, "html", 'askai_server_url = "https://ask.lantern.example"\naskai_mode = "inline"\n'
                                  "askai_index = False\n")
    html = (out / "guide" / "ssl.html").read_text("utf-8")
    assert '<script data-askai-script="" defer="defer" src="https://ask.lantern.example/widget.js"></script>' in html
    assert '<askai-widget endpoint="https://ask.lantern.example" inline></askai-widget>' in html
    assert not (out / "askai").exists()


@pytest.mark.parametrize(
    ("conf", "message"),
    [
        ('askai_sever_url = "https://x.example"\n', "option 'askai_sever_url': unknown option"),
        ('askai_server_url = "javascript:alert(1)"\n', "option 'askai_server_url': must be an http:// or https:// URL"),
        ('askai_mode = "sidebar"\n', "option 'askai_mode'"),
    ],
)
def test_bad_options_fail_the_build_with_a_clear_error(tmp_path: Path, conf: str, message: str) -> None:
    result = sphinx_build(sphinx_project(tmp_path, conf), "html", tmp_path / "out")
    assert result.returncode != 0
    assert message in result.stderr, result.stderr


def test_toctree_order_is_depth_first_and_each_page_is_listed_once() -> None:
    includes = {"index": ["a", "b"], "a": ["a1", "b"], "b": ["b1"]}
    titles = {"a": "Alpha", "b": "Beta"}
    assert toctree_order("index", includes, titles) == {
        "index": (0, ""), "a": (1, ""), "a1": (2, "Alpha"), "b": (3, "Alpha"), "b1": (4, "Beta"),
    }
