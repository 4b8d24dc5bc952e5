"""The widget sends the docs version and language of the page it sits on (Chromium)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.browser import ask
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


def docs_page(request: Request) -> HTMLResponse:
    """A docs page as Docusaurus renders one (``<html lang>``, ``docs-version-*``), or MkDocs Material with mike."""
    api = html.escape(request.query_params["api"])
    attributes = html.escape(request.query_params.get("attributes", ""), quote=False)
    mike = '<div class="md-version"><button class="md-version__current">2.1</button></div>'
    mkdocs = request.query_params.get("mike")
    root = '<html lang="pt-BR">' if mkdocs else '<html lang="es" class="docs-version-1.0">'
    generator = "mkdocs-1.6.1, mkdocs-material-9.6.14" if mkdocs else "Docusaurus v3.8.1"
    if request.query_params.get("blog"):
        root, generator = '<html lang="es" class="docs-version-1.0">', "Hugo 0.147.0"
    return HTMLResponse(
        f"""<!doctype html>{root}<head><meta charset="utf-8"><title>Docs</title>
        <meta name="generator" content="{generator}">
        <script src="{api}/widget.js" defer></script></head><body>
            {mike if mkdocs else ""}
        <askai-widget endpoint="{api}" inline {attributes}></askai-widget></body></html>"""
    )


@pytest.fixture(scope="module")
def api(index_cache: Any, site: str) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, cors_origins=(site,))
    graph = build_graph(writer=replies(*[cited_draft(1)] * 4), critic=replies(*[PASSING] * 4),
                        retriever=retriever(1, 2), settings=settings)
    with LiveServer(create_app(graph, settings)) as url:
        yield url


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with LiveServer(Starlette(routes=[Route("/", docs_page)])) as url:
        yield url


def sent(page: Any, url: str) -> dict[str, Any]:
    page.goto(url)
    with page.expect_request("**/api/chat") as request:
        ask(page, "How do retrieval and caching work?")
    body: dict[str, Any] = request.value.post_data_json
    return body


def test_the_widget_sends_docusaurus_pages_version_and_language(page: Any, api: str, site: str) -> None:
    body = sent(page, f"{site}/?api={api}")
    assert (body.get("version"), body.get("locale")) == ("1.0", "es")


def test_the_widget_sends_mkdocs_material_and_mikes_version_and_language(page: Any, api: str, site: str) -> None:
    body = sent(page, f"{site}/?api={api}&mike=1")
    assert (body.get("version"), body.get("locale")) == ("2.1", "pt-BR")


def test_the_widgets_attributes_win_over_the_page(page: Any, api: str, site: str) -> None:
    body = sent(page, f"{site}/?api={api}&attributes=version%3D%222.0%22%20locale%3D%22ja%22")
    assert (body.get("version"), body.get("locale")) == ("2.0", "ja")


def test_a_page_no_docs_generator_built_sends_neither(page: Any, api: str, site: str) -> None:
    # Its lang is the language it is written in, not which docs it reads.
    body = sent(page, f"{site}/?api={api}&blog=1")
    assert "version" not in body and "locale" not in body
