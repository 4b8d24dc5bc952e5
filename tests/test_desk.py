"""The answer desk under both faces: one admission order, and one way an answer is logged.

``POST /api/chat`` and MCP's ``ask_docs`` (over ``/mcp``) are asked the same question
under the same conditions. Case ``k`` of ``REFUSALS`` switches on refusal ``k`` and every
refusal after it, so the one that answers is the first in the desk's order; the same
table runs on both faces, so both refuse in the same order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.answers.desk import BUSY, NOT_READY, Desk
from askai_graph.server.scaleout.outages import THREADS_UNREACHABLE
from askai_graph.stores.runlog import RunLog, open_run_log
from tests.fakes import PASSING, cited_draft, replies, retriever

QUESTION = "How do retrieval and caching work?"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
BASE = "http://127.0.0.1:4321"
VARIANTS = {"versions": ["1.0"], "default_version": "1.0"}
"""The site serves one version; the requests of these tests ask for ``9.9``."""

# In the desk's order: (refusal, its HTTP status, the words both faces say).
REFUSALS = [
    ("not_ready", 503, NOT_READY),
    ("no_slot", 503, BUSY),
    ("rate_limited", 429, "rate limit of 1/minute per client reached"),
    ("bad_input", 422, "is 2001 characters; the limit is 2000"),
    ("unknown_version", 422, "version '9.9' is not a version of this site (1.0)"),
    ("lease_outage", 503, THREADS_UNREACHABLE),
]
NAMES = [name for name, _, _ in REFUSALS]
RETRY_AFTER = {"no_slot", "rate_limited", "lease_outage"}
"""The refusals that say when to retry (``Retry-After`` over HTTP, the words over MCP)."""


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


def refused_with(face: str, first: str, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, Any]:
    """Switch on refusal ``first`` and every one after it, ask once on ``face``, return what came back."""
    on = set(NAMES[NAMES.index(first) :])
    settings = settings.model_copy(update={"max_streams": 1, "rate_limit": "1/minute" if "rate_limited" in on else ""})
    app = app_for(settings)
    desk: Desk = app.state.desk
    assert desk.fixed is not None
    desk.fixed = dataclasses.replace(desk.fixed, info={"variants": VARIANTS})
    ask = ask_http if face == "http" else ask_mcp
    question = "x" * 2001 if "bad_input" in on else QUESTION
    extra = {"version": "9.9"} if "unknown_version" in on else {}

    async def unreachable(*_: Any) -> Any:
        raise sqlite3.OperationalError("unable to open database file")

    if "lease_outage" in on:
        monkeypatch.setattr(desk.leases, "claim", unreachable)
    with TestClient(app, base_url=BASE) as client:
        if "rate_limited" in on:
            ask(client, "")  # counted, then refused for its empty question: the client's one request this minute
        if "no_slot" in on:
            assert asyncio.run(desk.slots.try_acquire()) is not None  # the one slot, taken by another answer
        if "not_ready" in on:
            desk.fixed = dataclasses.replace(desk.fixed, graph=None)
        return ask(client, question, **extra)


@pytest.mark.parametrize(("first", "status", "words"), REFUSALS, ids=NAMES)
def test_the_first_refusal_in_the_desks_order_answers_on_both_faces(
    face: str, first: str, status: int, words: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    got_status, text, headers = refused_with(face, first, settings, monkeypatch)
    assert words in text
    if face == "http":
        assert got_status == status
        assert ("retry-after" in headers) is (first in RETRY_AFTER)
    elif first in ("not_ready", "no_slot"):
        assert got_status == status  # ``/mcp`` itself takes the desk's first two steps, before any tool
    else:
        assert got_status == 0  # a tool error, one line, that says when to retry if the refusal does
        assert ("retry" in text) is (first in RETRY_AFTER)


def test_an_admitted_question_is_answered_on_both_faces(face: str, settings: Settings) -> None:
    with TestClient(app_for(settings), base_url=BASE) as client:
        status, text, _ = (ask_http if face == "http" else ask_mcp)(client, QUESTION)
    assert status == 200 and "accepted" in text


def test_ask_docs_logs_its_reader_as_api_chat_does(settings: Settings, run_log: RunLog) -> None:
    with TestClient(app_for(settings, run_log), base_url=BASE) as client:
        readers = client.app.state.desk.readers  # type: ignore[attr-defined]
        search_id = readers.issue(readers("testclient"))  # as /api/search issues this client's search
        assert ask_http(client, QUESTION, search_id=search_id)[0] == 200
        assert ask_mcp(client, QUESTION + " Briefly.")[0] == 200
    by_question = {record.question: record for record in run_log.runs()}
    http, mcp = by_question[QUESTION], by_question[QUESTION + " Briefly."]
    # One client, one keyed hash, whichever face it asked by; only the launcher's question has a search.
    assert http.reader is not None and mcp.reader == http.reader
    assert (http.search_id, mcp.search_id) == (search_id, None)


@pytest.mark.parametrize("version", ["1.0", "next"])
def test_a_site_without_versions_refuses_a_version_it_cannot_honour(
    face: str, version: str, settings: Settings
) -> None:
    with TestClient(app_for(settings), base_url=BASE) as client:
        status, text, _ = (ask_http if face == "http" else ask_mcp)(client, QUESTION, version=version)
    assert f"'version' {version!r}: this site's index keeps no versions" in text
    assert status == (422 if face == "http" else 0)


def test_a_site_without_versions_reads_current_the_name_docusaurus_gives_its_one_version(
    face: str, settings: Settings
) -> None:
    with TestClient(app_for(settings), base_url=BASE) as client:
        status, text, _ = (ask_http if face == "http" else ask_mcp)(client, QUESTION, version="current")
    assert status == 200 and "accepted" in text
