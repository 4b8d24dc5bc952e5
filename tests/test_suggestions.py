"""``GET /api/suggestions``: the configured starter questions, else the site's first pages as questions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ValidationError

from askai_graph import Settings, build_graph
from askai_graph.models.providers import default_retriever
from askai_graph.server import create_app
from askai_graph.server.routes.suggestions import as_question, catalog_suggestions, names_a_topic
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer

SAMPLE_SITE_FIRST_PAGES = [
    "What should I know about Agents as State Machines?",
    "What should I know about Backpressure and Client Disconnects?",
    "What should I know about BM25 and Lexical Search?",
]


@pytest.mark.parametrize(
    ("title", "question"),
    [
        ("Semantic Caching for LLM Answers", "What should I know about Semantic Caching for LLM Answers?"),
        ("BM25 and Lexical Search Explained", "What should I know about BM25 and Lexical Search?"),
        ("How to install the CLI", "How do I install the CLI?"),
        ("Why BM25 still wins", "Why BM25 still wins?"),
        ("What is a thread?", "What is a thread?"),
        ("  Getting   started.  ", "What should I know about Getting started?"),
        ("Howdy partners", "What should I know about Howdy partners?"),  # "how" only as a word
    ],
)
def test_a_page_title_is_phrased_as_a_question(title: str, question: str) -> None:
    assert as_question(title) == question


def test_the_sample_sites_first_catalog_pages_become_three_questions(settings: Settings) -> None:
    assert catalog_suggestions(default_retriever(settings)) == SAMPLE_SITE_FIRST_PAGES


class Catalog(BaseRetriever):
    """A site whose pages, in its own order, have these titles (the first is its home page)."""

    titles: list[str]

    def catalog(self, limit: int, version: str | None = None, locale: str | None = None) -> list[Document]:
        urls = ["https://docs.example/"] + [f"https://docs.example/page-{n}/" for n in range(1, len(self.titles))]
        pages = zip(self.titles, urls, strict=True)
        return [Document(page_content=t, metadata={"source_url": u, "title": t}) for t, u in pages][:limit]

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return []


def test_titles_a_sites_navigation_gives_its_own_pages_are_not_asked_about() -> None:
    site = Catalog(titles=["FastAPI", "Features", "Learn", "User Guide", "Python Types Intro", "Security", "Testing"])
    assert catalog_suggestions(site) == [
        "What should I know about Python Types Intro?",
        "What should I know about Security?",
        "What should I know about Testing?",
    ]


@pytest.mark.parametrize(
    ("title", "topic"),
    [("Features", False), ("API Reference", False), ("Release Notes", False), ("Getting started", False),
     ("Learn", False), ("", False), ("Dependencies", True), ("Async tests", True), ("Help FastAPI", True)],
)  # fmt: skip
def test_a_title_names_a_topic_unless_every_word_is_the_navigations(title: str, topic: bool) -> None:
    assert names_a_topic(title) is topic


def test_a_retriever_without_a_catalog_suggests_nothing() -> None:
    assert catalog_suggestions(retriever(1, 2)) == []


def test_suggestions_are_read_from_the_environment_as_a_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_SUGGESTIONS", '["How do I install it?", "What does it cost, per month?"]')
    assert Settings().suggestions == ("How do I install it?", "What does it cost, per month?")


@pytest.mark.parametrize("value", ['["How?", ""]', '["   "]', '"How do I install it?"', "[1]"])
def test_a_malformed_suggestions_list_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ASKAI_SUGGESTIONS", value)
    with pytest.raises(ValidationError, match="suggestions"):
        Settings()


def custom_app(index_cache: Path, **options: Any) -> Any:
    settings = Settings(index_cache_dir=index_cache, **options)
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1), settings=settings
    )
    return create_app(graph, settings)


@pytest.fixture(scope="module")
def sample_site(index_cache: Path) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cors_origins=("https://blog.example",))
    with LiveServer(create_app(settings=settings)) as url:
        yield url


@pytest.mark.integration
@pytest.mark.enable_socket
def test_the_served_site_suggests_its_first_pages_as_questions(sample_site: str) -> None:
    response = httpx.get(f"{sample_site}/api/suggestions")
    assert response.status_code == 200
    assert response.json() == {"suggestions": SAMPLE_SITE_FIRST_PAGES}


@pytest.mark.integration
@pytest.mark.enable_socket
def test_a_listed_origin_may_read_the_suggestions(sample_site: str) -> None:
    response = httpx.get(f"{sample_site}/api/suggestions", headers={"Origin": "https://blog.example"})
    assert response.headers["access-control-allow-origin"] == "https://blog.example"


@pytest.mark.integration
@pytest.mark.enable_socket
def test_configured_suggestions_win_and_at_most_three_are_offered(index_cache: Path) -> None:
    configured = ("How do I install it?", "What does it cost?", "Is there an API?", "Who wrote it?")
    with LiveServer(custom_app(index_cache, suggestions=configured)) as url:
        assert httpx.get(f"{url}/api/suggestions").json() == {"suggestions": list(configured[:3])}


@pytest.mark.integration
@pytest.mark.enable_socket
def test_a_graph_brought_without_the_apps_corpus_suggests_nothing_unless_configured(index_cache: Path) -> None:
    with LiveServer(custom_app(index_cache)) as url:
        assert httpx.get(f"{url}/api/suggestions").json() == {"suggestions": []}
