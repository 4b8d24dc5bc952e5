"""What the MCP tools make of a finished answer, without a transport: sources, links, errors."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient

from askai_graph import Settings
from askai_graph.mcp.server import ASK_DOCS
from askai_graph.mcp.tools import ToolRefused, answer_result, snippet, unlinked
from askai_graph.server import create_app
from askai_graph.server.answers.events import answer_events
from askai_graph.server.answers.events import error as error_event
from askai_graph.state import Outcome, Source
from askai_graph.summary import RunSummary

ROOT = Path(__file__).resolve().parent.parent
A, B = "https://docs.example/a", "https://docs.example/b"
IDS = {"thread_id": "t", "run_id": "r"}


def summary(outcome: str, answer: str, sources: tuple[Source, ...] = ()) -> RunSummary:
    gates = {"retrieval": "passed", "validation": "passed", "critic": "passed" if sources else "failed"}
    return RunSummary(
        answer=answer, outcome=outcome, gates=gates, sources=sources, cited_urls=(A,), retrieved_urls=(A, B), **IDS
    )


async def events(*items: Any) -> AsyncGenerator[Any, None]:
    for item in items:
        yield item


def result(final: RunSummary) -> dict[str, Any]:
    return dict(asyncio.run(answer_result(events(*answer_events(final, token_chars=8)))))


def test_an_accepted_answer_carries_its_sources_and_ids() -> None:
    card = Source(title="A", url=A, section="Setup", anchor_url=f"{A}#setup", quote="Run the installer.")
    got = result(summary("accepted", f"See [A]({A}).", (card,)))
    evidence = {"section": "Setup", "anchor_url": f"{A}#setup", "quote": "Run the installer."}
    assert got["sources"] == [{"title": "A", "url": A, **evidence}]
    assert got["answer"] == f"See [A]({A})."
    assert (got["thread_id"], got["run_id"], got["cached"]) == ("t", "r", False)


def test_no_sources_event_means_no_sources_key() -> None:
    assert "sources" not in result(summary("accepted_early", f"- [A]({A})"))


def test_a_degraded_answer_reaches_an_agent_without_its_links() -> None:
    got = result(summary("degraded", f"A claim ([A]({A})), see {B} and <{A}>.\n\n> **Note:** unverified."))
    assert A not in got["answer"] and B not in got["answer"] and "http" not in got["answer"]
    assert got["answer"].startswith("A claim (A), see") and "**Note:** unverified." in got["answer"]


def test_unlinked_keeps_code_and_the_text_of_links_and_images() -> None:
    text = f'[A]({A} "t") ![diagram]({B})\n\n[ref]: {A}\n\n```\ncurl http://127.0.0.1:4321/api/chat\n```'
    assert unlinked(text, None) == "A diagram\n\n\n```\ncurl http://127.0.0.1:4321/api/chat\n```"


def test_an_error_event_is_a_tool_error_with_its_fixed_message() -> None:
    with pytest.raises(ToolRefused, match="Internal error while answering"):
        asyncio.run(answer_result(events(("token", {"text": "half"}), error_event())))


def test_a_run_that_ends_without_done_is_a_tool_error() -> None:
    with pytest.raises(ToolRefused, match="without an outcome"):
        asyncio.run(answer_result(events(("token", {"text": "half"}))))


def test_the_ask_docs_description_says_what_every_outcome_means() -> None:
    assert all(f'"{outcome}"' in ASK_DOCS for outcome in get_args(Outcome))


def test_a_snippet_is_one_plain_line_cut_at_a_word() -> None:
    text = "word " * 200
    cut = snippet("# Title\n\n" + text, limit=50)
    assert "\n" not in cut and len(cut) <= 52 and cut.endswith(" …")


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("host", "proxies", "foreign_host_allowed"),
    [("127.0.0.1", "", False), ("0.0.0.0", "", True), ("127.0.0.1", "10.0.0.1", True)],
)
def test_mcp_checks_the_host_header_only_on_the_loopback_interface(
    settings: Settings, host: str, proxies: str, foreign_host_allowed: bool
) -> None:
    app = create_app(settings=settings.model_copy(update={"host": host, "trusted_proxies": proxies}))
    with TestClient(app, base_url="http://docs.example") as client:
        foreign = client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        local = client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS | {"Host": "127.0.0.1:4321"})
    assert local.status_code == 200, local.text
    assert (foreign.status_code == 200) is foreign_host_allowed, foreign.text


def test_building_the_mcp_server_leaves_the_root_logger_as_it_was(settings: Settings) -> None:
    root = logging.getLogger()
    before = (root.level, list(root.handlers))
    create_app(settings=settings).state.mcp.load()
    assert (root.level, list(root.handlers)) == before


# In a fresh interpreter: this test session has imported the SDK long before.
STARTS_WITHOUT_THE_SDK = """
import sys
from fastapi.testclient import TestClient
from askai_graph.server import create_app

INITIALIZE, MCP_HEADERS = {initialize!r}, {headers!r}
app = create_app()
with TestClient(app, base_url="http://127.0.0.1:8000") as client:
    assert client.get("/healthz").status_code == 200
    assert "mcp" not in sys.modules, "the MCP SDK was imported before any /mcp request"
    reply = client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert reply.status_code == 200, reply.text
    assert reply.json()["result"]["serverInfo"]["name"] == "askai-graph"
    assert "mcp" in sys.modules
"""


def test_the_app_starts_without_the_mcp_sdk_and_imports_it_on_the_first_mcp_request(index_cache: Path) -> None:
    env = {**os.environ, "ASKAI_INDEX_CACHE_DIR": str(index_cache)}
    done = subprocess.run(
        [sys.executable, "-c", STARTS_WITHOUT_THE_SDK.format(initialize=INITIALIZE, headers=MCP_HEADERS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("request_id", "code"),
    [("NaN", -32700), ("Infinity", -32700), ('{"a": 1}', -32600), ("[1]", -32600), ("1.5", -32600), ("true", -32600)],
)
def test_a_request_id_mcp_cannot_answer_by_is_a_json_rpc_error(settings: Settings, request_id: str, code: int) -> None:
    body = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/list", "params": {{}}}}'
    with TestClient(create_app(settings=settings), base_url="http://127.0.0.1:4321") as client:
        refused = client.post("/mcp", content=body, headers=MCP_HEADERS)
        fine = client.post("/mcp", content=body.replace(request_id, '"a-string"', 1), headers=MCP_HEADERS)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == code and refused.json()["id"] is None
    assert fine.status_code == 200 and fine.json()["id"] == "a-string"
