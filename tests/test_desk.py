"""The answer desk under both faces: ``POST /api/chat`` and MCP's ``ask_docs`` (over ``/mcp``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.stores.runlog import RunLog, open_run_log
from tests.fakes import PASSING, cited_draft, replies, retriever

QUESTION = "How do retrieval and caching work?"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
BASE = "http://127.0.0.1:4321"


def app_for(settings: Settings, run_log: RunLog | None = None) -> FastAPI:
    graph = build_graph(
        writer=replies(cited_draft(1, 2)), critic=replies(PASSING), retriever=retriever(1, 2, 3), settings=settings
    )
    return create_app(graph, settings, run_log=run_log)


def ask_http(client: TestClient, question: str, **extra: Any) -> tuple[int, str, dict[str, str]]:
    """Ask ``/api/chat``; return the status, the refusal's detail (or the stream) and the headers."""
    reply = client.post("/api/chat", json={"message": question, **extra})
    text = reply.json()["detail"] if reply.status_code != 200 else reply.text
    return reply.status_code, text, dict(reply.headers)


def ask_mcp(client: TestClient, question: str, **extra: Any) -> tuple[int, str, dict[str, Any]]:
    """Call ``ask_docs`` over ``/mcp``; return the HTTP status and the refusal's words (or the result)."""
    call = {"name": "ask_docs", "arguments": {"question": question, **extra}}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    reply = client.post("/mcp", json=message, headers=MCP_HEADERS)
    if reply.status_code != 200:
        return reply.status_code, reply.json()["detail"], {}
    result = reply.json()["result"]
    return 200 if not result["isError"] else 0, result["content"][0]["text"], result


@pytest.fixture(params=["http", "mcp"])
def face(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def run_log(tmp_path: Path) -> Iterator[RunLog]:
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield log
    log.close()


def test_an_admitted_question_is_answered_on_both_faces(face: str, settings: Settings) -> None:
    with TestClient(app_for(settings), base_url=BASE) as client:
        status, text, _ = (ask_http if face == "http" else ask_mcp)(client, QUESTION)
    assert status == 200 and "accepted" in text


def test_ask_docs_logs_its_reader_as_api_chat_does(settings: Settings, run_log: RunLog) -> None:
    with TestClient(app_for(settings, run_log), base_url=BASE) as client:
        assert ask_http(client, QUESTION, search_id="ab" * 16)[0] == 200
        assert ask_mcp(client, QUESTION + " Briefly.")[0] == 200
    by_question = {record.question: record for record in run_log.runs()}
    http, mcp = by_question[QUESTION], by_question[QUESTION + " Briefly."]
    # One client, one keyed hash, whichever face it asked by; only the launcher's question has a search.
    assert http.reader is not None and mcp.reader == http.reader
    assert (http.search_id, mcp.search_id) == ("ab" * 16, None)
