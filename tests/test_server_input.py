"""Bad input to POST /api/chat: a 4xx JSON error with a clear message, the graph never started."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.fakes import PASSING, FakeRetriever, ScriptedChatModel, cited_draft, replies, retriever
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def doubles() -> tuple[ScriptedChatModel, FakeRetriever]:
    return replies(cited_draft(1)), retriever(1)


@pytest.fixture(scope="module")
def base(index_cache: Any, doubles: tuple[ScriptedChatModel, FakeRetriever]) -> Iterator[str]:
    writer, search = doubles
    settings = Settings(index_cache_dir=index_cache, max_body_bytes=1024, max_question_chars=100, rate_limit="")
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=search, settings=settings)
    with LiveServer(create_app(graph, settings)) as url:
        yield url


def started(doubles: tuple[ScriptedChatModel, FakeRetriever]) -> tuple[int, int]:
    """How often the graph has reached the retriever and the writer so far."""
    writer, search = doubles
    return writer.calls, len(search.queries)


def post(base: str, **kwargs: Any) -> httpx.Response:
    return httpx.post(f"{base}/api/chat", timeout=10, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "status", "detail"),
    [
        ({"content": b"hello"}, 415, "Content-Type must be application/json (got missing)"),
        (
            {"content": b'{"message": "hi"}', "headers": {"Content-Type": "text/plain"}},
            415,
            "Content-Type must be application/json (got 'text/plain')",
        ),
        (
            {"data": {"message": "hi"}},
            415,
            "Content-Type must be application/json (got 'application/x-www-form-urlencoded')",
        ),
        (
            {"content": b"{not json", "headers": JSON},
            400,
            "request body is not valid JSON (Expecting property name enclosed in double quotes)",
        ),
        ({"content": b'{"message": "\xff"}', "headers": JSON}, 400, "request body is not valid JSON (not UTF-8)"),
        ({"content": b"", "headers": JSON}, 400, "request body is not valid JSON (Expecting value)"),
        (
            {"json": ["message", "hi"]},
            422,
            'request body must be a JSON object like {"message": "..."}, not an array',
        ),
        ({"json": {}}, 422, "'message' is required"),
        ({"json": {"question": "hi"}}, 422, "'message' is required"),
        ({"json": {"message": 42}}, 422, "'message' must be a string, not a number"),
        ({"json": {"message": None}}, 422, "'message' must be a string, not null"),
        ({"json": {"message": ["hi"]}}, 422, "'message' must be a string, not an array"),
        ({"json": {"message": ""}}, 422, "'message' is empty"),
        ({"json": {"message": " \n\t "}}, 422, "'message' is empty"),
        ({"json": {"message": "x" * 101}}, 422, "'message' is 101 characters; the limit is 100"),
        (
            {"json": {"message": "hi", "max_attempts": 9}},
            422,
            "unknown field(s) 'max_attempts': only 'message', 'thread_id', 'thread_token', 'version', 'locale'"
            " and 'search_id' are accepted",
        ),
        (
            {"json": {"message": "x" * 2000}},
            413,
            "request body is 2014 bytes; the limit is 1024",
        ),
        (
            {"content": b"[" * 1000, "headers": JSON},
            400,
            "request body is not valid JSON (nested deeper than 32 levels)",
        ),
        (
            {"content": b'{"message": ' + b"1" * 900 + b"}", "headers": JSON},
            400,
            "request body is not valid JSON (a number longer than 100 characters)",
        ),
        ({"content": b'{"message": NaN}', "headers": JSON}, 400, "request body is not valid JSON (NaN is not JSON)"),
        (
            {"content": '{"message": "hi"}'.encode("utf-16"), "headers": JSON},
            400,
            "request body is not valid JSON (not UTF-8)",
        ),
        (
            {"content": b'{"message": "hi"}', "headers": {"Content-Type": "application/json; charset=latin-1"}},
            415,
            "the body must be UTF-8 (got charset=latin-1)",
        ),
        (
            {"content": b'{"message": "\\ud800 hi"}', "headers": JSON},
            422,
            "'message' is not valid Unicode (unpaired surrogate)",
        ),
    ],
    ids=[
        "no-content-type",
        "text-plain",
        "form-encoded",
        "not-json",
        "not-utf8",
        "empty-body",
        "not-an-object",
        "message-missing",
        "message-misspelled",
        "message-number",
        "message-null",
        "message-array",
        "message-empty",
        "message-whitespace",
        "message-too-long",
        "unknown-field-rejected",
        "body-too-large",
        "deep-nesting",
        "huge-number",
        "nan",
        "utf-16",
        "charset-latin-1",
        "lone-surrogate",
    ],
)
def test_bad_input_is_refused_with_a_clear_4xx_json_error(
    base: str, doubles: Any, kwargs: dict[str, Any], status: int, detail: str
) -> None:
    before = started(doubles)
    response = post(base, **kwargs)
    assert started(doubles) == before  # the graph never started
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"detail": detail}


def test_body_over_the_limit_without_content_length_is_refused_while_reading(base: str, doubles: Any) -> None:
    def chunked() -> Iterator[bytes]:
        yield b'{"message": "'
        for _ in range(100):
            yield b"x" * 100
        yield b'"}'

    before = started(doubles)
    response = post(base, content=chunked(), headers=JSON)
    assert started(doubles) == before
    assert response.status_code == 413
    assert response.json() == {"detail": "request body exceeds the limit of 1024 bytes"}


def test_message_at_the_limit_after_stripping_is_accepted(base: str, doubles: Any) -> None:
    before = started(doubles)
    with httpx.stream("POST", f"{base}/api/chat", json={"message": "  " + "x" * 100 + "  "}, timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        response.read()
    assert started(doubles)[1] == before[1] + 1


def test_get_is_not_allowed(base: str) -> None:
    response = httpx.get(f"{base}/api/chat", timeout=10)
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}


def test_the_question_limit_counts_decoded_characters_not_escaped_bytes(settings: Settings) -> None:
    question = "\U0001f600" * 1400  # 1,400 characters; 16,800 bytes as JSON \\u escapes
    body = json.dumps({"message": question}).encode()
    assert len(body) > 16_384
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1),
                        settings=settings)  # fmt: skip
    with LiveServer(create_app(graph, settings)) as url:
        response = post(url, content=body, headers=JSON)
        assert response.status_code == 200 and "event: done" in response.text
        too_long = post(url, content=json.dumps({"message": "\U0001f600" * 2001}).encode(), headers=JSON)
        assert too_long.status_code == 422
        assert too_long.json() == {"detail": "'message' is 2001 characters; the limit is 2000"}


def test_a_client_leaving_mid_body_is_one_info_line(base: str, caplog: pytest.LogCaptureFixture) -> None:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with caplog.at_level(logging.INFO):
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{\"message\": \"hal")  # fmt: skip
        deadline = time.monotonic() + 30  # a wait for the log line, not a bound under test
        while "disconnected before its request body" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
    lines = [r for r in caplog.records if "disconnected before its request body" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
