"""Stop in the widget: the request is aborted, the server cancels the run, no model call follows."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.fakes import cited_draft, replies, retriever, review
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DELAY = 0.3


def test_stop_aborts_the_request_and_the_server_makes_no_further_model_calls(page: Any, index_cache: Any) -> None:
    # Each model call takes DELAY and the critic always asks for a retry: three attempts pending.
    writer, critic = replies(cited_draft(1), delay=DELAY), replies(review(confidence=0.1), delay=DELAY)
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    graph = build_graph(writer=writer, critic=critic, retriever=retriever(1, 2), settings=settings)
    with LiveServer(create_app(graph, settings)) as base:
        page.goto(f"{base}/")
        page.locator("[data-askai-input]").fill("How do retrieval and caching work?")
        page.locator("[data-askai-input]").press("Enter")
        expect(page.locator('[data-askai-steps] li[data-askai-step="critic"]')).to_have_count(1)
        page.locator("[data-askai-stop]").click()
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "idle")
        at_stop = (writer.calls, critic.calls)
        time.sleep(5 * DELAY)  # the rest of the run would take 4 more calls of DELAY each
        later = (writer.calls, critic.calls)
    assert at_stop in {(1, 1), (2, 1)}  # the second draft may have been in flight
    assert later == at_stop
    expect(page.locator("[data-askai-stop]")).to_be_hidden()
    expect(page.locator("[data-askai-status]")).to_have_text("Stopped.")
    expect(page.locator("a[data-askai-source]")).to_have_count(0)
