"""Mermaid in the widget: diagrams render to SVG, Mermaid loads only when needed, no callback ever runs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.browser import answer_dom, ask
from tests.fakes import PASSING, cited_draft, replies, retriever, ungated_graph, url
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DIAGRAM = f'{cited_draft(1)}\n\n```mermaid\ngraph TD\n  A[Question] --> B[Answer]\n  click A href "{url(1)}"\n```\n'
CALLBACKS = (
    "Diagram:\n\n```mermaid\ngraph TD\n  A[Ask] --> B[Answer]\n"
    '  click A callback "tooltip"\n  click B call callback()\n```\n'
)
# The host page defines a global the diagram's callbacks name; it must never be called.
TRAP = "window.__fired = []; window.callback = (...args) => window.__fired.push(args);"


def mermaid_requests(page: Any) -> list[str]:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url) if "/mermaid/" in request.url else None)
    return requests


@pytest.fixture(scope="module")
def diagram_server(index_cache: Any) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    graph = build_graph(writer=replies(DIAGRAM), critic=replies(PASSING), retriever=retriever(1, 2), settings=settings)
    with LiveServer(create_app(graph, settings)) as base:
        yield base


def test_an_accepted_mermaid_answer_renders_an_svg(page: Any, diagram_server: str) -> None:
    page.goto(f"{diagram_server}/")
    ask(page, "How does the flow work?")
    expect(page.locator('[data-askai-mermaid="rendered"] svg')).to_have_count(1, timeout=20_000)
    expect(page.locator("[data-askai-mermaid] svg")).to_contain_text("Question")
    assert set(answer_dom(page)["svgLinks"]) <= {url(1)}
    expect(page.locator("a[data-askai-source]").first).to_have_attribute("href", re.compile(re.escape(url(1) + "#")))


def test_mermaid_loads_only_when_an_answer_has_a_diagram(page: Any, index_cache: Any) -> None:
    requests = mermaid_requests(page)
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1), settings=settings
    )
    with LiveServer(create_app(graph, settings)) as base:
        page.goto(f"{base}/")
        ask(page, "How does caching work?")
    expect(page.locator("a[data-askai-source]")).to_have_count(1)
    assert requests == []


def test_mermaid_is_imported_lazily_for_a_diagram(page: Any, diagram_server: str) -> None:
    requests = mermaid_requests(page)
    page.goto(f"{diagram_server}/")
    assert requests == []
    ask(page, "How does the flow work?")
    expect(page.locator('[data-askai-mermaid="rendered"] svg')).to_have_count(1, timeout=20_000)
    assert any(request.endswith("/static/mermaid/mermaid.esm.min.mjs") for request in requests)


def test_a_mermaid_click_callback_never_fires(page: Any, index_cache: Any) -> None:
    # The gate refuses callbacks; this answer bypasses it to test the renderer's own defence.
    page.add_init_script(TRAP)
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    with LiveServer(create_app(ungated_graph(CALLBACKS), settings)) as base:
        page.goto(f"{base}/")
        ask(page, "Draw it")
        expect(page.locator('[data-askai-mermaid="rendered"] svg')).to_have_count(1, timeout=20_000)
        for label in ("Ask", "Answer"):
            page.locator("[data-askai-mermaid] svg .node", has_text=label).click()
    assert page.evaluate("window.__fired") == []
    assert answer_dom(page)["handlers"] == []
