"""The graph's public output on LangGraph Server: ``/runs/wait`` and its ``/mcp`` tool keep the Source Gate.

``langgraph dev`` serves the repo's graph (the offline defaults over the bundled site);
what a run returns is the graph's output schema, so no retrieved page the answer does
not cite, no draft and no verdict reaches a caller. The thread's checkpoint still holds
them (read here to know which pages were retrieved).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any, get_type_hints

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from mcp import Client

from askai_graph.state import OutputState

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

GRAPH_ID = "ask_ai"
GRAPH_TOOL = "askai"
PUBLIC = set(get_type_hints(OutputState))
ACCEPTED = "How does BM25 rank documents?"
OFF_TOPIC = "How do I bake sourdough bread?"
# Degraded under the defaults (tests/test_studio.py).
CRITIC_FAILS = "Can token probabilities reveal unsupported claims?"
_LINK = re.compile(r"\]\((https?://[^)\s]+)\)")


@pytest.fixture(scope="module")
def client(langgraph_server: str) -> Iterator[SyncLangGraphClient]:
    sdk = get_sync_client(url=langgraph_server)
    yield sdk
    sdk.close()


def wait(client: SyncLangGraphClient, question: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run ``question`` with ``/runs/wait``; return its output and the thread's whole state."""
    thread_id = client.threads.create()["thread_id"]
    output = client.runs.wait(thread_id, GRAPH_ID, input={"question": question})
    assert isinstance(output, dict)
    return output, client.threads.get_state(thread_id)["values"]


def uncited_retrieved(state: dict[str, Any]) -> set[str]:
    """Retrieved page URLs that are neither source cards nor cited by the answer's own text."""
    retrieved = {result["source_url"] for result in state["search_results"]}
    shown = {source["url"] for source in state["sources"]} | set(_LINK.findall(state["answer"]))
    return retrieved - shown


@pytest.mark.parametrize(("question", "outcome"), [(OFF_TOPIC, "fallback"), (CRITIC_FAILS, "degraded")])
def test_runs_wait_names_no_retrieved_url_outside_sources(
    client: SyncLangGraphClient, question: str, outcome: str
) -> None:
    output, state = wait(client, question)
    assert output["outcome"] == outcome and output["sources"] == []
    assert set(output) == PUBLIC, "the output schema: no search_results, draft, critique, validation or query"
    shown = json.dumps(output)
    assert not [url for url in uncited_retrieved(state) if url in shown]
    if outcome == "degraded":
        assert state["search_results"] and state["critique"] is not None, "the checkpoint keeps the internals"


def test_runs_wait_still_returns_an_accepted_answers_sources(client: SyncLangGraphClient) -> None:
    output, state = wait(client, ACCEPTED)
    assert output["outcome"] == "accepted" and set(output) == PUBLIC
    assert output["sources"] and output["sources"] == state["sources"]
    retrieved = {result["source_url"] for result in state["search_results"]}
    assert {source["url"] for source in output["sources"]} <= retrieved


def mcp_tool_result(server: str, question: str) -> str:
    """Call the graph's tool on LangGraph Server's ``/mcp``; return every text block of the result."""

    async def call() -> str:
        async with Client(f"{server}/mcp", read_timeout_seconds=60) as mcp:
            assert GRAPH_TOOL in [tool.name for tool in (await mcp.list_tools()).tools]
            reply = await mcp.call_tool(GRAPH_TOOL, {"question": question})
            assert not reply.is_error, reply.content
            return "".join(getattr(block, "text", "") for block in reply.content) + json.dumps(reply.structured_content)

    return asyncio.run(call())


@pytest.mark.parametrize("question", [OFF_TOPIC, CRITIC_FAILS])
def test_the_graphs_mcp_tool_names_no_retrieved_url_outside_sources(
    langgraph_server: str, client: SyncLangGraphClient, question: str
) -> None:
    _, state = wait(client, question)  # the same run on a thread, to know what was retrieved
    text = mcp_tool_result(langgraph_server, question)
    print(f"\n[/mcp {question}] {text[:400]}")
    assert "search_results" not in text and "critique" not in text and "draft" not in text
    assert not [url for url in uncited_retrieved(state) if url in text]


def test_the_graphs_mcp_tool_still_returns_an_accepted_answers_sources(
    langgraph_server: str, client: SyncLangGraphClient
) -> None:
    _, state = wait(client, ACCEPTED)
    text = mcp_tool_result(langgraph_server, ACCEPTED)
    assert state["sources"] and all(source["url"] in text for source in state["sources"])
