"""Stop in the widget: the request is aborted, the server cancels the run, no model call follows."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.fakes import cited_draft, replies, retriever, review
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DELAY = 0.3


def calls_after_leaving(page: Any, index_cache: Any, leave: Callable[[Any], None]) -> tuple[Any, Any]:
    """Ask, ``leave`` once the first review is in, and return the model calls then and a while later."""
    # Each model call takes DELAY and the critic always asks for a retry: three attempts pending.
    writer, critic = replies(cited_draft(1), delay=DELAY), replies(review(confidence=0.1), delay=DELAY)
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    graph = build_graph(writer=writer, critic=critic, retriever=retriever(1, 2), settings=settings)
    with LiveServer(create_app(graph, settings)) as base:
        page.goto(f"{base}/")
        page.locator("[data-askai-input]").fill("How do retrieval and caching work?")
        page.locator("[data-askai-input]").press("Enter")
        expect(page.locator('[data-askai-steps] li[data-askai-step="critic"]')).to_have_count(1)
        leave(page)
        at_leaving = (writer.calls, critic.calls)
        time.sleep(5 * DELAY)  # the rest of the run would take 4 more calls of DELAY each
        later = (writer.calls, critic.calls)
    return at_leaving, later


def test_stop_aborts_the_request_and_the_server_makes_no_further_model_calls(page: Any, index_cache: Any) -> None:
    def stop(page: Any) -> None:
        page.locator("[data-askai-stop]").click()
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "idle")

    at_stop, later = calls_after_leaving(page, index_cache, stop)
    assert at_stop in {(1, 1), (2, 1)}  # the second draft may have been in flight
    assert later == at_stop
    expect(page.locator("[data-askai-stop]")).to_be_hidden()
    expect(page.locator("[data-askai-status]")).to_have_text("Stopped.")
    expect(page.locator("a[data-askai-source]")).to_have_count(0)


def test_removing_the_widget_from_the_page_stops_its_run(page: Any, index_cache: Any) -> None:
    at_removal, later = calls_after_leaving(
        page, index_cache, lambda page: page.evaluate("document.querySelector('askai-widget').remove()")
    )
    assert at_removal in {(1, 1), (2, 1)}
    assert later == at_removal
