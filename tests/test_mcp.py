"""The MCP tools through the official SDK's client, on both transports.

``stdio``: ``askai mcp`` as a subprocess (what an agent's MCP config starts). ``http``:
``/mcp`` on the real app, served by uvicorn on 127.0.0.1. Both answer over the bundled
sample site with the offline models, the same graph, limits and cache as ``/api/chat``.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from askai_graph import Settings
from askai_graph.indexing.llmstxt import site_pages
from askai_graph.indexing.loader import corpus_for
from askai_graph.server import create_app
from tests.live import LiveServer, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ROOT = Path(__file__).resolve().parent.parent
ACCEPTED = "How does BM25 rank documents?"
OFF_TOPIC = "How do I bake sourdough bread?"
# Retried to the limit by the offline Critic, then degraded (see tests/test_studio.py).
CRITIC_FAILS = "Can token probabilities reveal unsupported claims?"
URL = re.compile(r"https?://", re.IGNORECASE)

Target = str | StdioServerParameters


@contextmanager
def served(transport: str, tmp: Path, index_cache: Path, rate_limit: str = "") -> Iterator[Target]:
    """Serve the MCP tools on ``transport``; yield what the SDK's ``Client`` connects to."""
    if transport == "stdio":
        env = {
            "ASKAI_INDEX_CACHE_DIR": str(index_cache),
            "ASKAI_DATABASE_URL": f"sqlite:///{tmp / 'threads.sqlite'}",
            "ASKAI_RATE_LIMIT": rate_limit,
        }
        yield StdioServerParameters(command=sys.executable, args=["-m", "askai_graph", "mcp"], env=env, cwd=ROOT)
        return
    settings = Settings(index_cache_dir=index_cache, rate_limit=rate_limit, run_log=False)
    app = create_app(settings=settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none", lifespan="on")
    with LiveServer(app, config) as base:
        yield f"{base}/mcp"


def session(target: Target, calls: Callable[[Client], Awaitable[Any]]) -> Any:
    """Connect one MCP client to ``target`` and return what ``calls(client)`` returns."""

    async def run() -> Any:
        async with Client(target, read_timeout_seconds=60) as client:
            return await calls(client)

    return asyncio.run(run())


def result_of(reply: Any) -> Any:
    """The structured result of a successful tool call (the SDK wraps a list as ``{"result": [...]}``)."""
    assert not reply.is_error, reply.content
    data = reply.structured_content
    return data["result"] if set(data) == {"result"} else data


@pytest.fixture(scope="module", params=["http", "stdio"])
def target(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, index_cache: Path
) -> Iterator[Target]:
    with served(request.param, tmp_path_factory.mktemp(f"mcp-{request.param}"), index_cache) as found:
        yield found


def ask(target: Target, *arguments: dict[str, Any]) -> list[Any]:
    """Call ``ask_docs`` once per ``arguments``, in order, on one connection; return each raw reply."""

    async def calls(client: Client) -> list[Any]:
        return [await client.call_tool("ask_docs", args) for args in arguments]

    return session(target, calls)  # type: ignore[no-any-return]


def test_the_server_names_itself_with_the_packages_version(target: Target) -> None:
    import askai_graph

    async def calls(client: Client) -> Any:
        return client.server_info

    info = session(target, calls)
    assert (info.name, info.version) == ("askai-graph", askai_graph.__version__)


def test_ask_docs_on_an_accepted_question_returns_its_sources(target: Target) -> None:
    (reply,) = ask(target, {"question": ACCEPTED})
    answer = result_of(reply)
    assert answer["outcome"] == "accepted" and answer["gates"]["critic"] == "passed"
    assert answer["sources"], "an accepted answer carries its source cards"
    assert all(source["url"] in answer["answer"] for source in answer["sources"]), "cards are the cited pages"
    assert answer["run_id"] and answer["thread_id"]


@pytest.mark.parametrize(("question", "outcome"), [(OFF_TOPIC, "fallback"), (CRITIC_FAILS, "degraded")])
def test_ask_docs_on_a_failed_gate_returns_no_sources_and_no_url(target: Target, question: str, outcome: str) -> None:
    (reply,) = ask(target, {"question": question})
    answer = result_of(reply)
    assert answer["outcome"] == outcome and "failed" in answer["gates"].values()
    assert "sources" not in answer
    everything = json.dumps(answer) + "".join(getattr(block, "text", "") for block in reply.content)
    assert not URL.search(everything), everything


def test_search_docs_items_are_all_unendorsed_candidates(target: Target) -> None:
    async def calls(client: Client) -> Any:
        return await client.call_tool("search_docs", {"query": "BM25 parameters", "limit": 4})

    passages = result_of(session(target, calls))
    assert 0 < len(passages) <= 4
    assert all(passage["endorsed"] is False for passage in passages)
    assert all(set(passage) == {"title", "url", "snippet", "endorsed"} for passage in passages)
    assert "bm25-and-lexical-search" in passages[0]["url"]


def all_pages(target: Target) -> tuple[list[Any], list[Any]]:
    """Every page ``list_pages`` lists, following its cursors; and each reply."""

    async def calls(client: Client) -> list[Any]:
        replies = [result_of(await client.call_tool("list_pages", {}))]
        while replies[-1]["next_cursor"] is not None:
            replies.append(result_of(await client.call_tool("list_pages", {"cursor": replies[-1]["next_cursor"]})))
        return replies

    replies = session(target, calls)
    return [page for reply in replies for page in reply["pages"]], replies


def test_list_pages_is_the_sites_catalog_in_its_order(target: Target, index_cache: Path) -> None:
    pages, replies = all_pages(target)
    corpus = corpus_for(Settings(index_cache_dir=index_cache))
    assert [page["url"] for page in pages] == [page.url for page in site_pages(corpus)]
    assert replies[-1]["total"] == len(pages)


def test_list_pages_is_paginated_with_a_cursor(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, index_cache: Path
) -> None:
    monkeypatch.setattr("askai_graph.mcp.tools.PAGE_SIZE", 4)
    with served("http", tmp_path, index_cache) as found:
        pages, replies = all_pages(found)

        async def bad(client: Client) -> Any:
            return await client.call_tool("list_pages", {"cursor": "not-a-cursor"})

        refused = session(found, bad)
    assert len(replies) > 1 and all(len(reply["pages"]) <= 4 for reply in replies)
    assert len({page["url"] for page in pages}) == len(pages) == replies[0]["total"]
    assert refused.is_error and "cursor" in refused.content[0].text


def test_a_thread_continues_across_two_ask_docs_calls(target: Target) -> None:
    (first,) = ask(target, {"question": "What is BM25?"})
    thread = {key: result_of(first)[key] for key in ("thread_id", "thread_token")}
    (follow_up,) = ask(target, {"question": "How do I tune its parameters?", **thread})
    answer = result_of(follow_up)
    assert answer["thread_id"] == thread["thread_id"] and answer["thread_token"] == thread["thread_token"]
    assert answer["outcome"] == "accepted"
    assert answer["sources"][0]["url"].endswith("/bm25-and-lexical-search"), "the follow-up was read on its thread"


def test_a_thread_id_without_its_token_is_an_unknown_thread_to_ask_docs(target: Target) -> None:
    (first,) = ask(target, {"question": "What is BM25?"})
    (alone,) = ask(target, {"question": "How do I tune its parameters?", "thread_id": result_of(first)["thread_id"]})
    assert alone.is_error and "thread_id is unknown" in alone.content[0].text


def test_a_tool_error_is_one_line_never_a_traceback(target: Target) -> None:
    replies = ask(target, {"question": "What is BM25?", "thread_id": "not-a-thread"}, {"question": "x" * 3_000})
    for reply in replies:
        assert reply.is_error
        (block,) = reply.content
        assert "\n" not in block.text and "Traceback" not in block.text, block.text
    assert "thread_id" in replies[0].content[0].text and "limit" in replies[1].content[0].text


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_the_rate_limit_answers_with_an_mcp_error(transport: str, tmp_path: Path, index_cache: Path) -> None:
    with served(transport, tmp_path, index_cache, rate_limit="2/minute") as found:
        replies = ask(found, *[{"question": OFF_TOPIC}] * 3)
    assert [reply.is_error for reply in replies] == [False, False, True]
    assert "rate limit of 2/minute per client reached" in replies[2].content[0].text


def test_every_tool_counts_against_the_rate_limit(tmp_path: Path, index_cache: Path) -> None:
    async def calls(client: Client) -> list[Any]:
        return [
            await client.call_tool("list_pages", {}),
            await client.call_tool("search_docs", {"query": "BM25"}),
            await client.call_tool("list_pages", {}),
        ]

    with served("http", tmp_path, index_cache, rate_limit="2/minute") as found:
        replies = session(found, calls)
    assert [reply.is_error for reply in replies] == [False, False, True]
    assert "rate limit of 2/minute per client reached" in replies[2].content[0].text


def test_mcp_and_http_share_one_rate_limit_and_one_answer_cache(tmp_path: Path, index_cache: Path) -> None:
    settings = Settings(index_cache_dir=index_cache, rate_limit="2/minute", run_log=False)
    app = create_app(settings=settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none", lifespan="on")
    with LiveServer(app, config) as base:
        events = sse_events(base, ACCEPTED)
        assert events[-1][1]["outcome"] == "accepted"
        cached, refused = ask(f"{base}/mcp", {"question": ACCEPTED}, {"question": ACCEPTED})
    [cards] = [data for name, data, _ in events if name == "sources"]
    # The hit carries the cards the first answer was streamed with, as a fresh answer would.
    assert result_of(cached)["cached"] is True and result_of(cached)["sources"] == cards
    assert refused.is_error and "rate limit" in refused.content[0].text
