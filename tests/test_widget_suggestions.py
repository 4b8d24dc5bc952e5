"""Starter questions in the widget: the server's or the page's own, on an empty panel; a click asks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings
from askai_graph.server import create_app
from tests.browser import host_page, open_widget, received, requests_reported, settled
from tests.live import LiveServer
from tests.test_suggestions import SAMPLE_SITE_FIRST_PAGES

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


@pytest.fixture(scope="module")
def demo(index_cache: Any) -> Iterator[str]:
    with LiveServer(create_app(settings=Settings(index_cache_dir=index_cache, cache_enabled=False))) as base:
        yield base


def suggestion_requests(page: Any) -> list[str]:
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url) if r.url.endswith("/api/suggestions") else None)
    return urls


def test_the_servers_suggestions_show_on_an_empty_widget_and_a_click_asks(page: Any, demo: str) -> None:
    bodies: list[Any] = []
    page.on("request", lambda r: bodies.append(r.post_data_json) if r.url.endswith("/api/chat") else None)
    open_widget(page, f"{demo}/")
    suggestions = page.locator("[data-askai-suggestion]")
    expect(suggestions).to_have_text(SAMPLE_SITE_FIRST_PAGES)
    suggestions.nth(2).click()
    settled(page, "root.querySelector('[data-askai]').dataset.state === 'done'")
    assert bodies == [{"message": SAMPLE_SITE_FIRST_PAGES[2]}]
    [done] = received(page, "done")
    assert done["outcome"] == "accepted"
    expect(page.locator("[data-askai-question]")).to_have_text(SAMPLE_SITE_FIRST_PAGES[2])
    expect(page.locator("[data-askai-suggestions]")).to_be_hidden()
    # A new conversation is empty again, so it offers them again.
    page.locator("[data-askai-new]").click()
    expect(suggestions).to_have_count(3)
    expect(suggestions.first).to_be_visible()


def test_the_suggestions_attribute_replaces_the_servers(page: Any, demo: str) -> None:
    fetched = suggestion_requests(page)
    attribute = """inline suggestions='["How do I tune BM25?", "What is a semantic cache?"]'"""
    page.goto(host_page(page, demo, attribute))
    expect(page.locator("[data-askai-suggestion]")).to_have_text(["How do I tune BM25?", "What is a semantic cache?"])
    assert fetched == []


def test_an_empty_suggestions_attribute_turns_them_off(page: Any, demo: str) -> None:
    fetched = suggestion_requests(page)
    page.goto(host_page(page, demo, "inline suggestions='[]'"))
    expect(page.locator("[data-askai-status]")).to_have_text("Ask a question about this site's articles.")
    expect(page.locator("[data-askai-suggestions]")).to_be_hidden()
    assert fetched == []


def test_a_closed_launcher_fetches_no_suggestions_until_it_opens(page: Any, demo: str) -> None:
    fetched = suggestion_requests(page)
    page.goto(host_page(page, demo))
    expect(page.locator("[data-askai-open]")).to_be_visible()  # started: it would have asked for them
    requests_reported(page)
    assert fetched == []
    page.locator("[data-askai-open]").click()
    expect(page.locator("[data-askai-suggestion]")).to_have_count(3)
    assert len(fetched) == 1
