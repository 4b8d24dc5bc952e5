"""A real ``docusaurus build`` of a small site (``tests/builds/docusaurus``) with the askai plugin.

The classic preset, docs in two versions (1.0, made with ``docusaurus docs:version 1.0``,
and the docs folder, ``next``) and a blog with tags and an author page. The plugin runs
``askai index`` on the build; the index is held against the pages Docusaurus wrote: each
code block as a reader sees it, the site's versions, one widget on every page, and no
list page. The site's packages are installed from its committed lock file by ``make
test`` (about 300 MB); the build takes about a minute on two cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from askai_graph.indexing.store import IndexReader
from askai_graph.retrieval.scope import SiteVariants
from tests.sites import BUILDS, ROOT, clean_env, indexed_code, shown_code, widget_count

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SITE = BUILDS / "docusaurus"
URL = "https://lantern.example/"  # docusaurus.config.js' url
DOCS = ["", "guide/ssl", "guide/install", "guide/configure"]  # 1.0, the latest release, at the site's root
NEXT_DOCS = ["next/", "next/guide/ssl", "next/guide/install", "next/guide/configure"]
POST = "blog/2026/11/02/caching-large-files"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docusaurus = SITE / "node_modules" / ".bin" / "docusaurus"
    if not docusaurus.exists():
        pytest.fail(f"the Docusaurus site is not installed: run make test, or npm ci in {SITE}")
    out = tmp_path_factory.mktemp("docusaurus") / "build"
    env = clean_env() | {
        "ASKAI_BIN": str(Path(sys.executable).parent / "askai"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),  # this checkout's code
        "NO_UPDATE_NOTIFIER": "1",  # no registry look-up
    }
    result = subprocess.run([str(docusaurus), "build", "--out-dir", str(out)], cwd=SITE, env=env,
                            capture_output=True, text=True, timeout=800)  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "askai: indexed" in result.stdout, result.stdout[-2000:]
    return out


def index_of(out: Path) -> IndexReader:
    return IndexReader(out / "askai" / "index")


def page_file(out: Path, url: str) -> Path:
    """The file Docusaurus wrote for the page at ``url`` (``/guide/ssl`` is ``guide/ssl/index.html``)."""
    return out / url.removeprefix(URL).strip("/") / "index.html"


def test_the_docs_of_both_versions_and_the_blog_post_are_indexed_and_no_list_page(built: Path) -> None:
    urls = {post.url for post in index_of(built).posts}
    assert urls == {URL + path for path in [*DOCS, *NEXT_DOCS, POST]}  # no tag, author, archive, blog list, 404


def test_a_page_is_indexed_without_the_themes_badge_breadcrumbs_and_pagination(built: Path) -> None:
    posts = {post.url.removeprefix(URL): post for post in index_of(built).posts}
    for path, post in posts.items():
        assert "Skip to main content" not in post.body and "Version:" not in post.body, path
    home = posts[""].body  # a short doc: its text, not the next page's title in the pagination below it
    assert "Lantern is a small HTTP proxy" in home and "Certificate verification" not in home
    blog = posts[POST].body  # the post's text, not its date, author and tags around it
    assert blog.startswith("Lantern 1.1 streams") and "Maintainer" not in blog and "Tags:" not in blog


def test_each_indexed_code_block_is_the_pages_own(built: Path) -> None:
    compared = 0
    for post in index_of(built).posts:
        shown = shown_code(page_file(built, post.url).read_text("utf-8"))
        assert indexed_code(post.body) == shown, post.url
        compared += len(shown)
    assert compared >= 13  # each version's configuration page has 4, its install page 1; the post 1; ssl 1 each


def test_the_index_has_the_sites_versions_and_each_page_the_version_of_its_url(built: Path) -> None:
    index = index_of(built)
    releases = json.loads((SITE / "versions.json").read_text("utf-8"))
    variants = SiteVariants.from_manifest(index.manifest)
    assert sorted(variants.versions) == sorted([*releases, "next"])  # the docs folder is "next"
    assert variants.default_version == releases[0]  # the latest release is served at the site's root
    for post in index.posts:
        path = post.url.removeprefix(URL)
        expected = "" if path.startswith("blog/") else "next" if path.startswith("next/") else releases[0]
        assert post.version == expected, post.url


def test_every_page_has_exactly_one_widget(built: Path) -> None:
    pages = {page.relative_to(built).as_posix(): page for page in built.rglob("*.html")}
    assert {"404.html", "blog/tags/index.html", "blog/authors/index.html", "blog/archive/index.html"} <= set(pages)
    for name, page in pages.items():
        assert widget_count(page.read_text("utf-8")) == (1, 1), name
