"""Each source card shows its evidence in a real browser: the quote, its section, a link to its place."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.documents import Document
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.browser import ask, open_widget, received
from tests.fakes import PASSING, FakeRetriever, replies
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

PAGE = "https://docs.example/cache/"
BARE = "https://docs.example/streams/"
QUOTE = "Entries expire after ten minutes, and a new index empties the cache at once."
CACHE = Document(
    page_content=f"# Caching\n\nThe cache stores finished answers in Redis.\n\n## Expiry rules\n\n{QUOTE}\n",
    metadata={
        "source_url": PAGE,
        "title": "Answer cache",
        "anchors": [{"heading": "Caching", "id": "caching"}, {"heading": "Expiry rules", "id": "expiry"}],
    },
)
STREAMS = Document(
    page_content="Tokens stream only once the answer is final.", metadata={"source_url": BARE, "title": "Streams"}
)
DRAFT = (
    f"Cached entries expire after ten minutes ([Answer cache]({PAGE})). "
    f"Tokens stream only once the answer is final ([Streams]({BARE}))."
)


@pytest.fixture(scope="module")
def served(index_cache: Any) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    search = FakeRetriever(documents=[CACHE, STREAMS])
    graph = build_graph(writer=replies(DRAFT), critic=replies(PASSING), retriever=search, settings=settings)
    with LiveServer(create_app(graph, settings)) as base:
        yield base


def test_a_card_shows_its_quote_under_the_title_with_the_section_as_subtitle(page: Any, served: str) -> None:
    open_widget(page, f"{served}/")
    ask(page, "When do cached entries expire?")
    card = page.locator("a[data-askai-source]").first
    expect(card.locator(".title")).to_have_text("Answer cache")
    expect(card.locator(".section")).to_have_text("Expiry rules")
    expect(card.locator(".quote")).to_have_text(QUOTE)
    order = card.evaluate("card => [...card.children].map(c => c.className)")
    assert order == ["title", "section", "quote", "where"]


def test_a_cards_link_targets_the_sections_anchor(page: Any, served: str) -> None:
    open_widget(page, f"{served}/")
    ask(page, "When do cached entries expire?")
    [sources] = received(page, "sources")
    assert sources[0]["anchor_url"] == f"{PAGE}#expiry"
    expect(page.locator("a[data-askai-source]").first).to_have_attribute("href", f"{PAGE}#expiry")


def test_a_page_without_anchors_links_to_its_quote_and_shows_no_empty_subtitle(page: Any, served: str) -> None:
    open_widget(page, f"{served}/")
    ask(page, "When do cached entries expire?")
    card = page.locator("a[data-askai-source]").nth(1)
    expect(card).to_have_attribute("href", f"{BARE}#:~:text=Tokens%20stream%20only%20once%20the%20answer%20is%20final.")
    expect(card.locator(".section")).to_have_count(0)
    expect(card.locator(".quote")).to_have_text("Tokens stream only once the answer is final.")
