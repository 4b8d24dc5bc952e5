"""A Docusaurus 3 build read by ``askai index build/`` (what the Docusaurus plugin runs after each build).

The pages here are small, hand-written in the shape Docusaurus 3's classic theme writes:
marks on ``<html>`` (page kind, ``docs-version-<name>``, ``lang``), ``<title>`` with the
site's name, Prism code blocks as one ``<span class="token-line">`` per line with no
newline characters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph.indexing.build import build_index
from askai_graph.indexing.store import IndexReader
from askai_graph.models.offline.writer import plain_text
from askai_graph.retrieval.scope import SiteVariants

SITE = "https://my.site/"
CODE_LINES = ["cd my-website", "", "npm run start", "  --port 3001"]
PAGE = """<!doctype html>
<html lang="{lang}" dir="ltr" class="{classes}" data-has-hydrated="false">
<head><meta charset="UTF-8"><meta name="generator" content="Docusaurus v3.5.2">
<title data-rh="true">{title} | My Site</title>
<meta data-rh="true" property="og:title" content="{title} | My Site">
<link data-rh="true" rel="canonical" href="{url}"></head>
<body class="navigation-with-keyboard"><div id="__docusaurus"><nav class="navbar">Docs Blog</nav>
<div class="main-wrapper"><main class="docMainContainer"><article>\
<nav class="theme-doc-breadcrumbs"><ul class="breadcrumbs"><li><span>Guides</span></li></ul></nav>\
<span class="theme-doc-version-badge badge badge--secondary">Version: 1.0</span>\
<div class="theme-doc-markdown markdown">
<header><h1>{title}</h1></header>
<p>{text}</p>
<h2 class="anchor anchorWithStickyNavbar" id="start">Start the site<a href="#start" class="hash-link"
 aria-label="Direct link to Start the site">&#8203;</a></h2>
<div class="language-bash codeBlockContainer_Ckt0 theme-code-block"><div class="codeBlockContent_biex">
<pre tabindex="0" class="prism-code language-bash codeBlock_bY9V thin-scrollbar"><code class="codeBlockLines_e6Vv">\
{code}</code></pre>
<div class="buttonGroup__atx"><button type="button" aria-label="Copy code to clipboard" title="Copy"
 class="clean-btn"></button></div></div></div>
<ul><li><code>1.0</code> at <code>http://localhost:3000/docs/</code> for the version 1.0 docs</li></ul>
</div></article><nav class="pagination-nav" aria-label="Docs pages"><a class="pagination-nav__link" href="/docs/b">\
<div class="pagination-nav__sublabel">Next</div><div class="pagination-nav__label">Deploy your site</div></a></nav>\
</main></div><footer class="footer">Copyright My Site</footer></div></body></html>"""
DOC = "docs-wrapper plugin-docs plugin-id-default docs-version-{version} docs-doc-page docs-doc-id-intro"


def prism(lines: list[str]) -> str:
    """A code block's lines as Prism renders them: a span per line, a <br> for its end, no newline."""
    out = []
    for line in lines:
        empty = '<span class="token plain" style="display:inline-block"></span>'
        tokens = f'<span class="token plain">{line}</span>' if line else empty
        out.append(f'<span class="token-line" style="color:#393A34">{tokens}<br></span>')
    return "".join(out)


def write_page(build: Path, rel: str, title: str, classes: str, text: str, lang: str = "en") -> None:
    path = build / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    url = SITE + rel.removesuffix("index.html")
    path.write_text(PAGE.format(lang=lang, classes=classes, title=title, url=url, text=text, code=prism(CODE_LINES)))


HOME = """<!doctype html><html lang="en" dir="ltr" class="plugin-pages plugin-id-default">
<head><meta name="generator" content="Docusaurus v3.5.2"><title data-rh="true">Hello from My Site | My Site</title>
<link data-rh="true" rel="canonical" href="https://my.site/"></head>
<body><div id="__docusaurus"><nav class="navbar">Docs Blog</nav><div class="main-wrapper">
<header class="hero hero--primary"><div class="container"><h1 class="hero__title">My Site</h1>
<p class="hero__subtitle">Dinosaurs are cool</p></div></header>
<main><section class="features"><div class="container"><h3>Easy to Use</h3>
<p>Docusaurus was designed from the ground up to be easily installed and used to get your website up.</p>
</div></section></main></div></div></body></html>"""


def index_of(build: Path, tmp_path: Path) -> IndexReader:
    build_index(build, tmp_path / "index", base_url=SITE)
    return IndexReader(tmp_path / "index")


@pytest.fixture
def build(tmp_path: Path) -> Path:
    """A one-version build: a doc, a blog post, and the pages Docusaurus generates around them."""
    root = tmp_path / "build"
    root.mkdir()
    (root / "index.html").write_text(HOME)  # its <h1> is the site's name in the hero banner, not the page's title
    write_page(root, "docs/create-a-document/index.html", "Create a Document", DOC.format(version="current"),
               "Documents are groups of pages.")  # fmt: skip
    write_page(root, "blog/welcome/index.html", "Welcome", "blog-wrapper plugin-blog plugin-id-default blog-post-page",
               "Docusaurus blogging features are powered by the blog plugin.")  # fmt: skip
    for rel, kind in [
        ("blog/tags/hello/index.html", "blog-tags-post-list-page"),
        ("blog/tags/index.html", "blog-tags-list-page"),
        ("blog/authors/index.html", "blog-authors-list-page"),
        ("blog/authors/slorber/index.html", "blog-authors-posts-page"),
        ("blog/index.html", "blog-list-page"),
        ("docs/tags/index.html", "docs-tags-list-page"),
        ("docs/tags/guide/index.html", "docs-tags-doc-list-page"),
    ]:
        write_page(root, rel, "Listing", f"blog-wrapper plugin-blog plugin-id-default {kind}", "Welcome. Read more")
    # The archive has no page class of its own (Docusaurus 3.10): only its plugin's.
    write_page(root, "blog/archive/index.html", "Archive", "plugin-blog plugin-id-default", "2026 November 2 - Welcome")
    write_page(root, "404.html", "Page Not Found", "plugin-pages plugin-id-default", "We could not find it.")
    return root


def test_code_blocks_are_the_pages_code_line_for_line(build: Path, tmp_path: Path) -> None:
    post = next(p for p in index_of(build, tmp_path).posts if p.url.endswith("/create-a-document/"))
    assert "```bash\n" + "\n".join(CODE_LINES) + "\n```" in post.body


def test_a_url_in_inline_code_is_kept_in_the_index_and_in_a_quoted_sentence(build: Path, tmp_path: Path) -> None:
    post = next(p for p in index_of(build, tmp_path).posts if p.url.endswith("/create-a-document/"))
    line = "- `1.0` at `http://localhost:3000/docs/` for the version 1.0 docs"
    assert line in post.body
    assert plain_text(line) == line
    assert plain_text("see https://my.site/docs/ and `http://localhost:3000/`") == "see and `http://localhost:3000/`"


def test_a_page_is_its_markdown_without_the_badge_breadcrumbs_and_pagination(build: Path, tmp_path: Path) -> None:
    post = next(p for p in index_of(build, tmp_path).posts if p.url.endswith("/create-a-document/"))
    assert post.body.startswith("# Create a Document\n\nDocuments are groups of pages.")
    assert "Version:" not in post.body and "Guides" not in post.body and "Deploy your site" not in post.body


def test_titles_are_the_pages_own_without_the_site_name(build: Path, tmp_path: Path) -> None:
    titles = sorted(post.title for post in index_of(build, tmp_path).posts)
    assert titles == ["Create a Document", "Hello from My Site", "Welcome"]


def test_list_pages_and_the_404_page_are_not_indexed(build: Path, tmp_path: Path) -> None:
    urls = sorted(post.url for post in index_of(build, tmp_path).posts)
    assert urls == [SITE, SITE + "blog/welcome/", SITE + "docs/create-a-document/"]


def test_a_build_with_one_version_and_one_language_has_no_versions(build: Path, tmp_path: Path) -> None:
    index = index_of(build, tmp_path)
    assert not SiteVariants.from_manifest(index.manifest).any
    assert {post.version for post in index.posts} == {""}


@pytest.fixture
def versioned(tmp_path: Path) -> Path:
    """A build with a release (1.0, served at /docs/), the docs folder (/docs/next/) and a French translation."""
    root = tmp_path / "build"
    write_page(root, "index.html", "Home", "plugin-pages plugin-id-default", "Dinosaurs are cool.")
    write_page(root, "docs/intro/index.html", "Intro", DOC.format(version="1.0"), "Install version one.")
    write_page(root, "docs/0.9/intro/index.html", "Intro", DOC.format(version="0.9"), "Install version nought.")
    write_page(root, "docs/next/intro/index.html", "Intro", DOC.format(version="current"), "Install the next one.")
    write_page(root, "fr/index.html", "Accueil", "plugin-pages plugin-id-default", "Les dinosaures.", lang="fr")
    write_page(root, "fr/docs/intro/index.html", "Intro", DOC.format(version="1.0"), "Installer la version un.",
               lang="fr")  # fmt: skip
    return root


def test_a_versioned_build_has_the_versions_and_languages_of_its_pages(versioned: Path, tmp_path: Path) -> None:
    index = index_of(versioned, tmp_path)
    variants = SiteVariants.from_manifest(index.manifest)
    assert (variants.versions, variants.default_version) == (("1.0", "0.9", "next"), "1.0")
    assert (variants.locales, variants.default_locale) == (("en", "fr"), "en")
    labels = {post.url.removeprefix(SITE): (post.version, post.locale, post.doc) for post in index.posts}
    assert labels["docs/intro/"] == ("1.0", "en", "docs/intro/index.html")
    assert labels["docs/next/intro/"] == ("next", "en", "docs/next/intro/index.html")
    assert labels["fr/docs/intro/"] == ("1.0", "fr", "docs/intro/index.html")
    assert labels[""] == ("", "en", "index.html")


def test_version_filtering_reads_the_versions_of_a_build(versioned: Path, tmp_path: Path) -> None:
    from askai_graph.retrieval.scope import scope_of

    index = index_of(versioned, tmp_path)
    variants = SiteVariants.from_manifest(index.manifest)
    rows = [(n, post.version, post.locale, post.doc) for n, post in enumerate(index.posts)]
    urls = [post.url.removeprefix(SITE) for post in index.posts]
    for asked, page in [("current", "docs/next/intro/"), ("next", "docs/next/intro/"), (None, "docs/intro/"),
                        ("0.9", "docs/0.9/intro/")]:  # fmt: skip
        scope = scope_of(variants, rows, asked, "en")
        assert scope is not None
        assert sorted(urls[n] for n in scope.pages) == ["", page], asked  # the home page belongs to no version
