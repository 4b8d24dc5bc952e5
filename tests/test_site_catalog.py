"""Catalog questions list the site's pages in the site's own order, on any site."""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.catalog import SiteCatalog, site_order_key
from askai_graph.indexing import build_index
from askai_graph.retrieval import BM25Retriever
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
    final = graph.invoke({"question": question})
    listed = {r.source_url for r in final["search_results"] if r.source_url in final["answer"]}
    assert len(listed) == 7
    assert final["outcome"] == "accepted_early"
    assert final["sources"] == []  # low confidence: accepted early, shown without source cards


def test_a_retriever_without_a_catalog_still_answers_catalog_questions_from_search() -> None:
    fake = retriever(1, 2, 3, 4, 5)
    assert not isinstance(fake, SiteCatalog)
    final = build_graph(retriever=fake, settings=Settings()).invoke({"question": "What articles do you have?"})
    assert len(final["search_results"]) == 5
