"""``askai index`` given a Docusaurus project root (the folder with ``docusaurus.config.js``).

The site publishes its docs under the docs' route, its blog posts under the blog's route
by Docusaurus' blog rules, and its Markdown pages in ``src/pages`` at the site's root;
nothing else in the project (its README, dependencies, build output) is a page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from askai_graph.indexing.sources import scan_source
from tests.sites import BUILDS

PROJECT = Path(__file__).parent / "data" / "sites" / "docusaurus-project"
SITE = "https://keeper.example.org/"


def _urls(root: Path, base_url: str | None = None) -> set[str]:
    scan = scan_source(root, base_url)
    assert not scan.skips
    return {page.url for page in scan.items}


def test_the_docs_of_a_project_root_are_under_the_docs_route_once() -> None:
    docs = {url for url in _urls(PROJECT) if url.startswith(SITE + "docs/")}
    assert docs == {SITE + "docs/intro", SITE + "docs/setup/install"}


def test_blog_posts_are_under_the_blog_route_by_slug_else_by_the_date_in_their_name() -> None:
    posts = {url for url in _urls(PROJECT) if url.startswith(SITE + "news/")}
    assert posts == {
        SITE + "news/2024/03/09/launch",  # 2024-03-09-launch.md
        SITE + "news/key-rotation",  # slug: key-rotation, in a dated folder
        SITE + "news/2024/06/10/audit-log",  # 2024-06-10-audit-log/index.md
    }


def test_markdown_pages_in_src_pages_are_at_the_sites_root() -> None:
    assert SITE + "pricing" in _urls(PROJECT)


def test_nothing_but_docs_blog_and_pages_is_indexed(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(PROJECT, root)
    for folder in ("node_modules/some-package", "build/docs", ".docusaurus"):
        (root / folder).mkdir(parents=True)
        (root / folder / "notes.md").write_text("# Not a page\n\nNot published by the site.\n")
    urls = _urls(root)
    assert len(urls) == 6  # 2 docs, 3 posts, 1 page: no README, dependency, build output, translated post
    assert all(url.startswith((SITE + "docs/", SITE + "news/", SITE + "pricing")) for url in urls)


def test_a_project_root_with_versions_gives_the_urls_of_its_build() -> None:
    # tests/test_docusaurus_site.py checks these URLs against a real build of this site.
    site = "https://lantern.example/"
    docs = ["", "guide/ssl", "guide/install", "guide/configure"]
    expected = {site + path for path in docs} | {site + "next/" + path for path in docs}
    assert _urls(BUILDS / "docusaurus", site) == expected | {site + "blog/2026/11/02/caching-large-files"}
