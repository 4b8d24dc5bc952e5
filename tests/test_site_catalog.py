"""Catalog questions list the site's pages in the site's own order, on any site."""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.evidence.results import SearchResult
from askai_graph.indexing import build_index
from askai_graph.retrieval.corpus import site_order_key
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.rules.catalog import SiteCatalog, catalog_answer
from askai_graph.state import STATE_KEYS
from tests.fakes import retriever

SITES = Path(__file__).parent / "data" / "sites"


def catalog_titles(site: str, base: str, tmp_path: Path, limit: int = 12) -> list[str]:
    build_index(SITES / site, tmp_path / site, base_url=base)
    documents = BM25Retriever(corpus=load_corpus(tmp_path / site)).catalog(limit)
    return [d.metadata["title"] for d in documents]


def test_docusaurus_catalog_follows_sidebar_position(tmp_path: Path) -> None:
    assert catalog_titles("docusaurus", "https://tern.example/", tmp_path) == [
        "Introduction to Tern",
        "Create a vault",
        "Share the vault with your team",
        "Export variables",
        "Rotate a passphrase",
    ]


def test_hugo_catalog_lists_newest_first_then_undated_by_title(tmp_path: Path) -> None:
    assert catalog_titles("hugo", "https://trail.example/", tmp_path) == [
        "Choosing boots that do not hurt",  # 2024-08-21
        "Packing a first aid kit for day hikes",  # 2024-05-10
        "Finding and treating water on the trail",  # 2024-01-28
        "Reading contour lines on a paper map",  # 2023-11-02
        "When the weather turns on the ridge",  # 2022-06-15
        "Layering clothes for winter walks",  # no date
        "Trail Notes",  # no date
    ]


def test_catalog_without_order_or_dates_is_by_title(tmp_path: Path) -> None:
    assert catalog_titles("mkdocs", "https://docs.example/", tmp_path) == [
        "Command reference",
        "Configuring workers",
        "Installing Quaystone",
        "Quaystone documentation",
        "User guide",
    ]


def test_built_html_catalog_lists_dated_pages_first_then_by_title(tmp_path: Path) -> None:
    assert catalog_titles("html", "https://lantern.example/", tmp_path) == [
        "Installing Lantern",  # article:published_time 2024-02-03
        "About the project",
        "Lantern",
    ]


def test_catalog_top_k_bounds_the_list(tmp_path: Path) -> None:
    assert len(catalog_titles("hugo", "https://trail.example/", tmp_path, limit=3)) == 3


def test_site_order_puts_weighted_pages_first_then_dated_then_titled() -> None:
    keys = {
        "weight 2": site_order_key(2, "2030-01-01", "z", "u1"),
        "weight 1": site_order_key(1, None, "z", "u2"),
        "old": site_order_key(None, "2020-01-01", "a", "u3"),
        "new": site_order_key(None, "2024-01-01T10:00:00", "a", "u4"),
        "untitled date": site_order_key(None, "not a date", "b", "u5"),
        "a": site_order_key(None, None, "A", "u6"),
    }
    assert sorted(keys, key=keys.__getitem__) == ["weight 1", "weight 2", "new", "old", "a", "untitled date"]


def test_in_memory_corpus_lists_the_same_catalog_as_its_built_index(tmp_path: Path) -> None:
    built = catalog_titles("docusaurus", "https://tern.example/", tmp_path)
    corpus = load_corpus(SITES / "docusaurus", base_url="https://tern.example/")
    memory = BM25Retriever(corpus=corpus, cache_dir=tmp_path)
    assert [d.metadata["title"] for d in memory.catalog(12)] == built


@pytest.mark.parametrize("question", ["What articles do you have?", "List all posts", "Table of contents"])
def test_catalog_question_on_a_site_that_never_says_articles_lists_every_page(
    question: str, tmp_path: Path, index_cache: Path
) -> None:
    source = SITES / "hugo"
    assert not any("article" in p.read_text().lower() for p in source.rglob("*.md"))
    build_index(source, tmp_path / "index", base_url="https://trail.example/")
    graph = build_graph(settings=Settings(corpus=tmp_path / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": question}, output_keys=STATE_KEYS)
    listed = {r.source_url for r in final["search_results"] if r.source_url in final["answer"]}
    assert len(listed) == 7
    assert final["outcome"] == "accepted_early"
    assert final["sources"] == []  # low confidence: accepted early, shown without source cards


def test_a_retriever_without_a_catalog_still_answers_catalog_questions_from_search() -> None:
    fake = retriever(1, 2, 3, 4, 5)
    assert not isinstance(fake, SiteCatalog)
    graph = build_graph(retriever=fake, settings=Settings())
    final = graph.invoke({"question": "What articles do you have?"}, output_keys=STATE_KEYS)
    assert len(final["search_results"]) == 5


def test_bundled_site_lists_its_posts_for_which_tutorials_are_on_this_site(index_cache: Path) -> None:
    final = build_graph(settings=Settings(index_cache_dir=index_cache)).invoke(
        {"question": "Which tutorials are on this site?"}, output_keys=STATE_KEYS
    )
    listed = {r.source_url for r in final["search_results"] if r.source_url in final["answer"]}
    assert final["outcome"] in ("accepted", "accepted_early"), final["validation"]
    assert len(listed) >= 4


def test_catalog_over_summaries_holding_markdown_links_passes_validation(tmp_path: Path, index_cache: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, description in [
        ("alpha", "Read [the alpha notes](https://elsewhere.example/alpha) first."),
        ("beta", "Beta builds on <https://elsewhere.example/beta> and alpha."),
        ("gamma", "Gamma is described at https://elsewhere.example/gamma in full."),
        ("delta", "Delta, the **last** step, closes the [loop][ref]."),
    ]:
        (docs / f"{name}.md").write_text(f"---\ntitle: {name.title()}\ndescription: \"{description}\"\n---\n\nText.\n")
    build_index(docs, tmp_path / "index", base_url="https://links.example/")
    graph = build_graph(settings=Settings(corpus=tmp_path / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": "List all the pages in the docs."}, output_keys=STATE_KEYS)
    assert final["validation"].ok, final["validation"].errors
    assert final["outcome"] == "accepted_early"
    assert "elsewhere.example" not in final["answer"] and "\\[" not in final["answer"]
    assert "Read the alpha notes first." in final["answer"]


def test_catalog_answer_lists_a_docs_site_in_nav_order(tmp_path: Path, index_cache: Path) -> None:
    build_index(Path(__file__).parent / "data" / "generators" / "mkdocs" / "docs", tmp_path / "index")
    graph = build_graph(settings=Settings(corpus=tmp_path / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": "What guides are there?"}, output_keys=STATE_KEYS)
    assert final["validation"].ok and final["outcome"] == "accepted_early"
    positions = [final["answer"].index(f"({url})") for url in (
        "https://lantern.example/", "https://lantern.example/guide/", "https://lantern.example/guide/clients/",
        "https://lantern.example/guide/ssl/", "https://lantern.example/reference/",
    )]
    assert positions == sorted(positions)


def result(n: int, section: str = "", pages: int = 0, url: str | None = None) -> SearchResult:
    return SearchResult(title=f"Page {n}", source_url=url or f"https://s.example/p{n}/", content="x",
                        summary=f"About page {n}.", section=section, site_pages=pages)


def test_catalog_answer_groups_pages_under_their_nav_sections_in_order() -> None:
    answer = catalog_answer([result(1), result(2, "Guide"), result(3, "Guide"), result(4, "API"), result(5)])
    assert answer == "\n".join([
        "Here is what the site has:", "",
        "- [Page 1](https://s.example/p1/): About page 1.", "",
        "**Guide**", "",
        "- [Page 2](https://s.example/p2/): About page 2.",
        "- [Page 3](https://s.example/p3/): About page 3.", "",
        "**API**", "",
        "- [Page 4](https://s.example/p4/): About page 4.", "",
        "**Other pages**", "",
        "- [Page 5](https://s.example/p5/): About page 5.",
    ])


def test_catalog_answer_ends_with_how_many_more_and_the_index_page() -> None:
    listed = [result(0, pages=40, url="https://s.example/"), result(1, pages=40), result(2, pages=40)]
    assert catalog_answer(listed).endswith("\n\nAnd 37 more: see [Page 0](https://s.example/).")
    assert catalog_answer(listed[1:]).endswith("\n\nAnd 38 more.")  # no index page listed: nothing to link
    assert "more" not in catalog_answer([result(1, pages=1)])


def test_catalog_answer_bounded_by_catalog_top_k_passes_validation(tmp_path: Path, index_cache: Path) -> None:
    build_index(Path(__file__).parent / "data" / "generators" / "mkdocs" / "docs", tmp_path / "index")
    settings = Settings(corpus=tmp_path / "index", index_cache_dir=index_cache, catalog_top_k=4)
    final = build_graph(settings=settings).invoke({"question": "Table of contents"}, output_keys=STATE_KEYS)
    assert final["validation"].ok and final["outcome"] == "accepted_early"
    assert "**The Lantern guide**" in final["answer"]
    assert final["answer"].endswith("And 2 more: see [Home](https://lantern.example/).")
