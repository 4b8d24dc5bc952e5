"""The widget on another site's page: CORS decides, the keyboard suffices, axe finds nothing serious."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.browser import ask, axe_violations
from tests.fakes import PASSING, ScriptedChatModel, cited_draft, replies, retriever
from tests.live import LiveServer, free_port

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do retrieval and caching work?"


def host_page(request: Request) -> HTMLResponse:
    """A static page of "another site" embedding the widget from ``?api=``, as the README shows."""
    api = html.escape(request.query_params["api"])
    endpoint = html.escape(request.query_params.get("endpoint", request.query_params["api"]))
    inline = " inline" if request.query_params.get("inline") else ""
    return HTMLResponse(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>My blog</title>
        <script src="{api}/widget.js" defer></script>
        <style>* {{ color: red !important; font-size: 40px !important; }}
        section {{ display: none !important; }}</style>
        </head><body><main><h1>My blog</h1><p>A post.</p>
        <askai-widget endpoint="{endpoint}"{inline}></askai-widget></main></body></html>"""
    )


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """Another origin: a different port on 127.0.0.1."""
    with LiveServer(Starlette(routes=[Route("/", host_page)])) as url:
        yield url


def api_server(index_cache: Any, writer: ScriptedChatModel, **options: Any) -> LiveServer:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, **options)
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=retriever(1, 2), settings=settings)
    return LiveServer(create_app(graph, settings))


def test_embedding_works_from_an_origin_in_cors_origins(page: Any, index_cache: Any, site: str) -> None:
    with api_server(index_cache, replies(cited_draft(1)), cors_origins=(site,)) as api:
        page.goto(f"{site}/?api={api}&inline=1")
        ask(page, QUESTION)
    expect(page.locator("[data-askai]")).to_have_attribute("data-state", "done")
    expect(page.locator("a[data-askai-source]")).to_have_count(1)
    # The host page's CSS hides every <section> and paints text red; the shadow root keeps the panel intact.
    expect(page.locator("[data-askai]")).to_be_visible()
    assert page.locator("[data-askai-answer] p").evaluate("p => getComputedStyle(p).color") != "rgb(255, 0, 0)"


def test_embedding_is_refused_from_an_origin_not_in_cors_origins(page: Any, index_cache: Any, site: str) -> None:
    writer = replies(cited_draft(1))
    with api_server(index_cache, writer, cors_origins=("https://blog.example",)) as api:
        page.goto(f"{site}/?api={api}&inline=1")
        ask(page, QUESTION)
    expect(page.locator("[data-askai]")).to_have_attribute("data-state", "error")
    # Told apart from a network failure: the server is up and refused this page's origin.
    expect(page.locator("[data-askai-error] p")).to_have_text(
        f"The Ask AI server refused this site ({site}). Its owner can allow it with ASKAI_CORS_ORIGINS."
    )
    expect(page.locator("a[data-askai-source]")).to_have_count(0)
    assert writer.calls == 0  # the browser never sent the question


def test_a_server_that_cannot_be_reached_is_a_network_failure(page: Any, index_cache: Any, site: str) -> None:
    with api_server(index_cache, replies(cited_draft(1))) as api:
        closed = f"http://127.0.0.1:{free_port()}"  # widget.js from the server, questions to a closed port
        page.goto(f"{site}/?api={api}&endpoint={closed}&inline=1")
        ask(page, QUESTION)
    expect(page.locator("[data-askai-error] p")).to_have_text(
        "Could not reach the Ask AI server. Check your connection and try again."
    )


def test_embedding_is_refused_by_default(page: Any, index_cache: Any, site: str) -> None:
    writer = replies(cited_draft(1))
    with api_server(index_cache, writer) as api:
        page.goto(f"{site}/?api={api}&inline=1")
        ask(page, QUESTION)
    expect(page.locator("[data-askai]")).to_have_attribute("data-state", "error")
    assert writer.calls == 0


def test_the_whole_flow_works_with_the_keyboard_alone(page: Any, index_cache: Any, site: str) -> None:
    with api_server(index_cache, replies(cited_draft(1)), cors_origins=(site,)) as api:
        page.goto(f"{site}/?api={api}")
        launcher = page.locator("[data-askai-open]")
        expect(page.locator("[data-askai]")).to_be_hidden()
        page.keyboard.press("Tab")
        expect(launcher).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("[data-askai]")).to_be_visible()
        expect(page.locator("[data-askai-input]")).to_be_focused()
        page.keyboard.type(QUESTION)
        page.keyboard.press("Enter")
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "done")
        expect(page.locator("[data-askai-input]")).to_be_focused()
        # Tab backwards from the input reaches the answer's controls (share, copy, thumbs), then its last card.
        page.keyboard.press("Shift+Tab")
        expect(page.locator("[data-askai-share]")).to_be_focused()
        for _ in range(4):
            page.keyboard.press("Shift+Tab")
        expect(page.locator("a[data-askai-source]").last).to_be_focused()
        page.keyboard.press("Escape")
    expect(page.locator("[data-askai]")).to_be_hidden()
    expect(launcher).to_be_focused()
    expect(launcher).to_have_attribute("aria-expanded", "false")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_or_critical_violation(browser: Any, index_cache: Any, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 360, "height": 800})
    page = context.new_page()
    # Cites both retrieved posts, so two cards are audited (cards are the cited posts).
    with api_server(index_cache, replies(cited_draft(1, 2) + "\n\n```python\nprint(1)\n```\n")) as api:
        page.goto(f"{api}/")
        assert axe_violations(page) == []
        ask(page, QUESTION)
        expect(page.locator("a[data-askai-source]")).to_have_count(2)
        assert axe_violations(page) == []
    context.close()


def test_an_embedded_widget_loads_mermaid_from_the_api_origin(page: Any, index_cache: Any, site: str) -> None:
    diagram = cited_draft(1) + "\n\n```mermaid\ngraph TD\n  A[Ask] --> B[Answer]\n```\n"
    with api_server(index_cache, replies(diagram), cors_origins=(site,)) as api:
        page.goto(f"{site}/?api={api}&inline=1")
        ask(page, QUESTION)
        expect(page.locator('[data-askai-mermaid="rendered"] svg')).to_have_count(1, timeout=20_000)
