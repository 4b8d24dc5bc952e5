"""``POST /api/chat`` answers from the reader's version and language, and caches each apart.

Over the Docusaurus fixture of ``tests/data/versions`` (see ``test_reader_scope``),
served by ``askai serve``'s own app (``create_app`` opening the index).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from askai_graph import Settings
from askai_graph.indexing import build_index
from askai_graph.server import create_app
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DOCUSAURUS = Path(__file__).parent / "data" / "versions" / "docusaurus" / "docs"
QUESTION = "How do I fake timers in Gizmo?"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, index_cache: Path) -> Iterator[str]:
    out = tmp_path_factory.mktemp("scope-server") / "index"
    build_index(DOCUSAURUS, out)
    db = f"sqlite:///{out.parent / 'threads.sqlite3'}"
    settings = Settings(corpus=out, index_cache_dir=index_cache, database_url=db)
    import uvicorn

    # The app opens its threads database and index in its lifespan.
    config = uvicorn.Config(create_app(settings=settings), host="127.0.0.1", port=0, log_level="warning", ws="none",
                            lifespan="on", timeout_graceful_shutdown=2)
    with LiveServer(None, config) as url:
        yield url


def ask(base: str, **body: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ask ``QUESTION`` with ``body``; return ``done`` and the cards."""
    with httpx.Client(timeout=30) as client:
        with connect_sse(client, "POST", f"{base}/api/chat", json={"message": QUESTION, **body}) as source:
            source.response.raise_for_status()
            events = [(sse.event, json.loads(sse.data)) for sse in source.iter_sse()]
    cards = next((data for name, data in events if name == "sources"), [])
    return events[-1][1], cards


def test_each_versions_reader_gets_that_versions_cards_never_the_others_cached_answer(base: str) -> None:
    first, old = ask(base, version="1.0")
    second, new = ask(base, version="2.0")
    assert [card["url"] for card in old] == ["https://gizmo.example/docs/1.0/fake-timers"]
    assert [card["url"] for card in new] == ["https://gizmo.example/docs/fake-timers"]
    assert (first["cached"], second["cached"]) == (False, False)
    again, _ = ask(base, version="1.0")
    assert again["cached"] is True  # the same version's reader is served from the cache


def test_an_untranslated_pages_card_says_so(base: str) -> None:
    _, cards = ask(base, locale="es")
    assert [(c["url"], c.get("untranslated"), c.get("locale")) for c in cards] == [
        ("https://gizmo.example/docs/fake-timers", True, "en")
    ]


@pytest.mark.parametrize(
    ("body", "detail"),
    [({"version": "9.9"}, "'version' version '9.9' is not a version of this site (2.0, 1.0, next)"),
     ({"locale": "es;DROP"}, "'locale'")],
)
def test_a_bad_version_or_locale_is_a_422_saying_which(base: str, body: dict[str, str], detail: str) -> None:
    response = httpx.post(f"{base}/api/chat", json={"message": QUESTION, **body}, timeout=30)
    assert response.status_code == 422
    assert response.json()["detail"].startswith(detail)


@pytest.fixture(scope="module")
def mcp_url(base: str) -> str:
    return f"{base}/mcp"


def call(url: str, tool: str, arguments: dict[str, Any]) -> Any:
    import asyncio

    from mcp import Client

    async def run() -> Any:
        async with Client(url, read_timeout_seconds=60) as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(run())


def test_mcp_ask_docs_and_search_docs_read_the_version_they_name(mcp_url: str) -> None:
    # A version the HTTP tests did not ask: a fresh answer, not one of theirs from the cache.
    answer = call(mcp_url, "ask_docs", {"question": QUESTION, "version": "next"}).structured_content
    assert [source["url"] for source in answer["sources"]] == ["https://gizmo.example/docs/next/fake-timers"], answer
    found = call(mcp_url, "search_docs", {"query": QUESTION, "version": "next"}).structured_content["result"]
    assert [passage["url"] for passage in found] == ["https://gizmo.example/docs/next/fake-timers"]


def test_mcp_refuses_a_version_the_site_does_not_have(mcp_url: str) -> None:
    reply = call(mcp_url, "search_docs", {"query": QUESTION, "version": "9.9"})
    assert reply.is_error and "'9.9' is not a version of this site" in reply.content[0].text


def searched(base: str, **params: str) -> httpx.Response:
    return httpx.get(f"{base}/api/search", params={"q": "fake timers", **params}, timeout=30)


def test_search_keeps_to_the_readers_version_the_sites_default_when_none_is_named(base: str) -> None:
    def urls(**params: str) -> list[str]:
        response = searched(base, **params)
        assert response.status_code == 200, response.text
        return [page["url"] for page in response.json()["results"]]

    assert urls(version="1.0") == ["https://gizmo.example/docs/1.0/fake-timers"]
    assert urls(version="2.0") == urls() == ["https://gizmo.example/docs/fake-timers"]


def test_search_refuses_a_version_the_site_does_not_have(base: str) -> None:
    refused = searched(base, version="9.9")
    assert refused.status_code == 422
    assert "9.9" in refused.json()["detail"] and "2.0" in refused.json()["detail"]
