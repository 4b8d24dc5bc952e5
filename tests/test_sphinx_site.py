"""A real ``sphinx-build -b html`` of a small site (``tests/builds/sphinx``) with the askai extension.

The index the extension writes is held against the pages Sphinx wrote: each code block
as a reader sees it, the site's one version, and one widget on every page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from askai_graph.indexing.store import IndexReader
from askai_graph.retrieval.scope import SiteVariants
from tests.sites import BUILDS, indexed_code, shown_code, sphinx_build, widget_count

pytestmark = pytest.mark.integration

SITE = BUILDS / "sphinx"
BASE = "https://lantern.example/docs/"  # conf.py's html_baseurl


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sphinx") / "html"
    result = sphinx_build(SITE, "html", out)
    assert result.returncode == 0, result.stderr
    return out


def index_of(out: Path) -> IndexReader:
    return IndexReader(out / "askai" / "index")


def test_each_indexed_code_block_is_the_pages_own(built: Path) -> None:
    posts = list(index_of(built).posts)
    assert {post.url.removeprefix(BASE) for post in posts} == {"index.html", "configure.html", "api.html"}
    compared = 0
    for post in posts:
        shown = shown_code((built / post.url.removeprefix(BASE)).read_text("utf-8"))
        assert indexed_code(post.body) == shown, post.url
        compared += len(shown)
    assert compared == 5  # four on the configuration page (one with line numbers), one in the API's


def test_a_page_is_indexed_without_the_themes_sidebar(built: Path) -> None:
    posts = {post.url.removeprefix(BASE): post for post in index_of(built).posts}
    # The theme's sidebar names every page and links the previous one: none of it is the API page's text.
    assert "Remove the cached responses" in posts["api.html"].body
    for post in posts.values():
        assert "Navigation" not in post.body and "Related Topics" not in post.body, post.url
    assert "Configuring Lantern" not in posts["api.html"].body


def test_a_rebuild_indexes_the_pages_it_did_not_write_again_as_before(tmp_path: Path) -> None:
    source, out = tmp_path / "source", tmp_path / "html"
    shutil.copytree(SITE, source)
    assert sphinx_build(source, "html", out).returncode == 0
    before = {post.url: post.body for post in index_of(out).posts}
    with (source / "configure.rst").open("a", encoding="utf-8") as page:
        page.write("\nA closing line.\n")
    written = (out / "api.html").stat().st_mtime_ns
    assert sphinx_build(source, "html", out).returncode == 0
    assert (out / "api.html").stat().st_mtime_ns == written  # Sphinx did not write it again
    after = {post.url: post.body for post in index_of(out).posts}
    assert after[BASE + "api.html"] == before[BASE + "api.html"]  # still its content alone
    assert "A closing line." in after[BASE + "configure.html"]


def test_the_index_has_the_sites_one_version(built: Path) -> None:
    index = index_of(built)
    assert not SiteVariants.from_manifest(index.manifest).versions  # conf.py's version is the only one
    assert {post.version for post in index.posts} == {""}


def test_every_page_has_exactly_one_widget(built: Path) -> None:
    pages = {page.relative_to(built).as_posix(): page for page in built.rglob("*.html")}
    assert {"genindex.html", "search.html", "py-modindex.html"} <= set(pages)  # Sphinx's own pages
    for name, page in pages.items():
        assert widget_count(page.read_text("utf-8")) == (1, 1), name
