"""Heading anchors: the id each heading gets on the real page, read at index time and kept in the index."""

from __future__ import annotations

from pathlib import Path

from askai_graph.evidence.results import HeadingAnchor
from askai_graph.indexing import build_index, scan_source
from askai_graph.indexing.anchors import github_slug, heading_anchors, mkdocs_slug
from askai_graph.indexing.html import read_html_page
from askai_graph.indexing.loader import load_corpus
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.corpus import Page
from askai_graph.retrieval.pages import BM25Retriever

SITES = Path(__file__).parent / "data" / "generators"
MKDOCS_DOCS = SITES / "mkdocs" / "docs"
SSL_PAGE = "https://lantern.example/guide/ssl/"


def test_mkdocs_slugs_the_way_python_markdown_toc_does() -> None:
    assert mkdocs_slug("First steps") == "first-steps"
    assert mkdocs_slug("`Foo` & Bar: baz!") == "foo-bar-baz"
    assert mkdocs_slug("Über  -- uns") == "uber-uns"


def test_docusaurus_slugs_the_way_github_slugger_does() -> None:
    assert github_slug("First steps") == "first-steps"
    assert github_slug("Foo & Bar: baz!") == "foo--bar-baz"
    assert github_slug("Über uns") == "über-uns"


def test_a_custom_id_wins_over_the_generated_slug() -> None:
    anchors = heading_anchors("## Install it { #setup .wide }\n\ntext\n\n## Use it {#use}\n", "mkdocs")
    assert anchors == (HeadingAnchor(heading="Install it", id="setup"), HeadingAnchor(heading="Use it", id="use"))


def test_repeated_headings_are_numbered_as_each_generator_numbers_them() -> None:
    markdown = "## Usage\n\n## Usage\n\n## Usage\n"
    assert [a.id for a in heading_anchors(markdown, "mkdocs")] == ["usage", "usage_1", "usage_2"]
    assert [a.id for a in heading_anchors(markdown, "docusaurus")] == ["usage", "usage-1", "usage-2"]


def test_a_heading_inside_a_code_fence_has_no_anchor() -> None:
    anchors = heading_anchors("```sh\n# not a heading\n```\n\n## Real one\n", "mkdocs")
    assert anchors == (HeadingAnchor(heading="Real one", id="real-one"),)


def test_a_docs_tree_page_keeps_its_custom_heading_id() -> None:
    page = {post.url: post for post in scan_source(MKDOCS_DOCS, None).items}[SSL_PAGE]
    assert HeadingAnchor(heading="Enabling and disabling verification", id="ssl") in page.anchors
    assert "{" not in page.body.splitlines()[0]  # the attribute list never reaches the text


def test_a_built_index_keeps_the_anchors_and_research_hands_them_on(tmp_path: Path) -> None:
    build_index(MKDOCS_DOCS, tmp_path / "index")
    retriever = BM25Retriever(corpus=load_corpus(tmp_path / "index"))
    results = to_search_results(retriever.invoke("enabling disabling verification"), top_k=3)
    ssl = next(result for result in results if result.source_url == SSL_PAGE)
    assert HeadingAnchor(heading="Enabling and disabling verification", id="ssl") in ssl.anchors


BUILT_PAGE = """<html><head><title>Install</title><link rel="canonical" href="https://d.example/install/"></head>
<body><nav>menu</nav><main><article>
<h1 id="install">Installing Lantern<a class="headerlink" href="#install">¶</a></h1>
<p>Lantern installs with pip in one step and works on every platform we know of.</p>
<section id="check-it"><h2>Check the <code>installation</code></h2>
<p>Run lantern --version to check that the installation worked as it should.</p></section>
<h2 class="anchor" id="upgrade">Upgrading<a class="hash-link" href="#upgrade">\u200b</a></h2>
<p>Upgrade with pip install -U lantern whenever a new release comes out.</p>
<h2>No id here</h2><p>This heading has no id at all, so its cards link to a text fragment.</p>
</article></main></body></html>"""


def test_a_built_pages_headings_keep_the_ids_the_page_gives_them() -> None:
    page = read_html_page("install.html", BUILT_PAGE, None)
    assert isinstance(page, Page)
    # Its own id, its Sphinx section's, a Docusaurus heading's; a heading without one has none.
    assert [anchor.id for anchor in page.anchors] == ["install", "check-it", "upgrade"]
    assert [anchor.heading for anchor in page.anchors][1:] == ["Check the `installation`", "Upgrading"]


def test_a_sphinx_headings_permalink_pilcrow_is_not_part_of_its_text() -> None:
    page = read_html_page("install.html", BUILT_PAGE, None)
    assert isinstance(page, Page)
    assert "¶" not in page.body
    assert page.anchors[0] == HeadingAnchor(heading="Installing Lantern", id="install")
