"""The newcomer's path: the default server over the bundled sample site, GET /, the three demo endings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings
from askai_graph.server import create_app
from tests.browser import ask, open_widget, received
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


@pytest.fixture(scope="module")
def demo(index_cache: Any) -> Iterator[str]:
    """What ``askai serve`` runs: the sample site, the offline Writer and Critic."""
    with LiveServer(create_app(settings=Settings(index_cache_dir=index_cache, cache_enabled=False))) as base:
        yield base


def test_a_topical_question_gets_an_answer_with_source_cards(page: Any, demo: str) -> None:
    open_widget(page, f"{demo}/")
    ask(page, "How does a semantic cache work?")
    [sources] = received(page, "sources")
    hrefs = page.locator("a[data-askai-source]").evaluate_all("cards => cards.map(c => c.getAttribute('href'))")
    assert hrefs == [source["anchor_url"] for source in sources] and hrefs
    expect(page.locator("[data-askai-gate-notice]")).to_be_hidden()


def test_a_catalog_question_gets_an_answer_without_cards_and_the_reason(page: Any, demo: str) -> None:
    open_widget(page, f"{demo}/")
    ask(page, "What course articles do you have?")
    assert received(page, "done")[-1]["outcome"] == "accepted_early"
    expect(page.locator("a[data-askai-source]")).to_have_count(0)
    expect(page.locator("[data-askai-gate-notice]")).to_have_text(
        "Sources are hidden because the answer was not confirmed by review (low confidence)."
    )


def test_an_off_topic_question_falls_back_honestly(page: Any, demo: str) -> None:
    open_widget(page, f"{demo}/")
    ask(page, "How do I bake sourdough bread?")
    assert received(page, "done")[-1]["outcome"] == "fallback"
    expect(page.locator("a[data-askai-source]")).to_have_count(0)
    expect(page.locator("[data-askai-gate-notice]")).to_have_text("I couldn't find this in the site's articles.")
