"""Bounded resources over real uvicorn and real sockets; every test ends with /healthz answering.

One test per limit: header timeout (slowloris), connection cap, header size (h11 and
httptools), body timeout (slow body), a 50 MB post, the stream cap (1,000 streams
against a cap), the per-client rate limit (and a trusted proxy's X-Forwarded-For), and
the per-question deadline with a hung retriever.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from askai_graph import Settings, build_graph
from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.server import create_app
from askai_graph.server.serving import uvicorn_config
from tests.fakes import (
    PASSING,
    FakeRetriever,
    HungRetriever,
    SlowAsyncRetriever,
    cited_draft,
    huge_post,
    replies,
    retriever,
)
from tests.live import LiveServer, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do retrieval and caching work?"
PARSERS = ["h11", "httptools"]


def guarded(settings: Settings, graph: Any = None, parser: str = "auto", **overrides: Any) -> LiveServer:
    """A live server with every limit of ``settings`` (plus ``overrides``) in force."""
    settings = settings.model_copy(update=overrides)
    if graph is None:
        graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1),
                            settings=settings)  # fmt: skip
    app = create_app(graph, settings)
    config = uvicorn_config(app, settings, parser=parser, host="127.0.0.1", port=0, log_level="warning")
    return LiveServer(app, config)


def assert_healthy(base: str) -> None:
    """The server still answers: /healthz within a second."""
    response = httpx.get(f"{base}/healthz", timeout=1.0)
    assert response.status_code == 200


def address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def connect(base: str) -> socket.socket:
    sock = socket.create_connection(address(base), timeout=5)
    return sock


def read_response(sock: socket.socket) -> bytes:
    """Read until the server closes the connection (or 5 s pass)."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def status_and_json(raw: bytes) -> tuple[int, Any]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body) if body else None


@pytest.mark.parametrize("parser", PARSERS)
def test_half_sent_requests_are_closed_at_the_header_timeout(settings: Settings, parser: str) -> None:
    with guarded(settings, parser=parser, header_timeout_seconds=0.5) as base:
        sockets = [connect(base) for _ in range(20)]
        for sock in sockets:
            sock.sendall(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: app")
        # The server closes each of them (recv returns b"", not a timeout after 5 s).
        assert all(read_response(sock) == b"" for sock in sockets)
        for sock in sockets:
            sock.close()
        assert_healthy(base)


@pytest.mark.parametrize("parser", PARSERS)
def test_beyond_the_connection_cap_the_oldest_idle_connection_makes_room(settings: Settings, parser: str) -> None:
    with guarded(settings, parser=parser, max_connections=50, header_timeout_seconds=60) as base:
        sockets = [connect(base) for _ in range(300)]
        for sock in sockets:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
        assert_healthy(base)
        for sock in sockets:
            sock.settimeout(0.01)
        open_now = 0
        for sock in sockets:
            try:
                open_now += sock.recv(1) != b""
            except TimeoutError:
                open_now += 1
            except ConnectionResetError:
                pass
            sock.close()
        assert open_now < 50


@pytest.mark.parametrize("parser", PARSERS)
def test_a_request_head_over_the_limit_gets_431_whatever_the_parser(settings: Settings, parser: str) -> None:
    with guarded(settings, parser=parser, max_header_bytes=8192) as base:
        sock = connect(base)
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_000_000 + b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may close before the megabyte is sent
        status, body = status_and_json(read_response(sock))
        sock.close()
        assert status == 431 and "8192" in body["detail"]
        ok = httpx.get(f"{base}/healthz", headers={"X-Fine": "a" * 4000}, timeout=1.0)
        assert ok.status_code == 200
        assert_healthy(base)


def test_a_slow_body_gets_408_at_the_body_timeout(settings: Settings) -> None:
    with guarded(settings, body_timeout_seconds=0.5) as base:
        sock = connect(base)
        sock.sendall(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\nContent-Length: 40\r\n\r\n{\"mess")  # fmt: skip
        status, body = status_and_json(read_response(sock))
        sock.close()
        assert status == 408 and "0.5 seconds" in body["detail"]
        assert_healthy(base)


def test_a_50_mb_post_is_refused_without_stalling_other_requests(settings: Settings) -> None:
    with guarded(settings) as base:
        json_type = {"Content-Type": "application/json"}
        declared = httpx.post(f"{base}/api/chat", content=b"x" * 50_000_000, headers=json_type, timeout=30)
        assert declared.status_code == 413

        def chunks() -> Iterator[bytes]:
            for _ in range(50):
                yield b" " * 1_000_000

        chunked = httpx.post(f"{base}/api/chat", content=chunks(), headers=json_type, timeout=30)
        assert chunked.status_code == 413 and "exceeds the limit" in chunked.json()["detail"]
        assert_healthy(base)


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize(
    ("path", "body", "headers", "status"),
    [
        ("/api/chat", b"x" * 100_000, {"Content-Type": "application/json"}, 413),  # too large, unread
        ("/api/chat", b'{"message": "hi"}', {"Content-Type": "text/plain"}, 415),  # the wrong type, unread
        ("/api/feedback", b"x" * 100_000, {"Content-Type": "application/json"}, 413),
    ],
)
def test_the_next_request_on_a_connection_is_never_charged_for_a_refused_body(
    settings: Settings, parser: str, path: str, body: bytes, headers: dict[str, str], status: int
) -> None:
    with guarded(settings, parser=parser) as base, httpx.Client(timeout=10) as client:
        refused = client.post(f"{base}{path}", content=body, headers=headers)
        assert refused.status_code == status and refused.headers["connection"] == "close"
        # The same client (keep-alive pool) asks again: a fresh connection, not the old body's bytes as a head.
        after = client.get(f"{base}/healthz")
        assert after.status_code == 200, after.text


def test_streams_beyond_the_cap_get_503_with_retry_after_at_once(settings: Settings) -> None:
    slow = SlowAsyncRetriever(delay=3.0)
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=slow, settings=settings)
    # One address plays 1,000 clients here: the per-client connection cap is not under test.
    overrides = {"max_connections": 2000, "max_connections_per_client": 2000, "rate_limit": "", "cache_enabled": False}
    with guarded(settings, graph, max_streams=8, **overrides) as base:

        async def flood() -> list[httpx.Response]:
            limits = httpx.Limits(max_connections=1000, max_keepalive_connections=0)
            async with httpx.AsyncClient(limits=limits, timeout=30) as client:
                requests = [client.post(f"{base}/api/chat", json={"message": QUESTION}) for _ in range(1000)]
                return await asyncio.gather(*requests)

        responses = asyncio.run(flood())
        statuses = [response.status_code for response in responses]
        assert statuses.count(200) == 8 and statuses.count(503) == 992
        refused = next(response for response in responses if response.status_code == 503)
        assert refused.headers["retry-after"] == "2" and "retry" in refused.json()["detail"]
        assert all(r.text.rstrip().endswith("}") and "event: done" in r.text for r in responses if r.status_code == 200)
        # The slots came back: the next question is admitted.
        assert sse_events(base, QUESTION)[-1][0] == "done"
        assert_healthy(base)


def test_a_client_over_the_rate_limit_gets_429_with_retry_after(settings: Settings) -> None:
    with guarded(settings, rate_limit="3/minute") as base:
        statuses = [ask_as(base, "192.0.2.9") for _ in range(3)]
        refused = httpx.post(f"{base}/api/chat", json={"message": QUESTION}, timeout=10)
        assert statuses == [200, 200, 200] and refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 60 and "3/minute" in refused.json()["detail"]
        assert_healthy(base)


def ask_as(base: str, forwarded_for: str) -> int:
    headers = {"X-Forwarded-For": forwarded_for}
    return httpx.post(f"{base}/api/chat", json={"message": QUESTION}, headers=headers, timeout=10).status_code


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(settings: Settings) -> None:
    with guarded(settings, rate_limit="2/minute", trusted_proxies="127.0.0.1") as base:
        assert [ask_as(base, "192.0.2.1") for _ in range(3)] == [200, 200, 429]
        assert ask_as(base, "192.0.2.2") == 200
        assert ask_as(base, "198.51.100.7, 192.0.2.3") == 200  # the nearest untrusted hop counts
        assert_healthy(base)


def test_without_trusted_proxies_x_forwarded_for_is_ignored(settings: Settings) -> None:
    with guarded(settings, rate_limit="2/minute") as base:
        assert [ask_as(base, f"192.0.2.{n}") for n in range(3)] == [200, 200, 429]
        assert_healthy(base)


def test_a_hung_retriever_ends_at_the_deadline_with_done_fallback_and_frees_the_stream(settings: Settings) -> None:
    hung = HungRetriever(release=threading.Event())
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=hung, settings=settings)
    try:
        with guarded(settings, graph, request_timeout_seconds=1.0, max_streams=1) as base:
            events = sse_events(base, QUESTION)
            assert [name for name, _, _ in events if name != "step"][-1] == "done"
            assert "".join(data["text"] for name, data, _ in events if name == "token") == FALLBACK_ANSWER
            done = events[-1][1]
            assert done["outcome"] == "fallback" and done["gates"]["retrieval"] == "failed"
            assert "sources" not in [name for name, _, _ in events]
            # The only stream slot is free again: the next question is admitted, not refused.
            again = httpx.post(f"{base}/api/chat", json={"message": "Another question?"}, timeout=10)
            assert again.status_code == 200 and "event: done" in again.text
            assert_healthy(base)
            hung.release.set()  # lets the abandoned worker threads end before the server stops
    finally:
        hung.release.set()


def test_a_slow_async_run_is_cancelled_at_the_deadline(settings: Settings) -> None:
    slow = SlowAsyncRetriever(delay=30.0)
    writer = replies(cited_draft(1))
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=slow, settings=settings)
    with guarded(settings, graph, request_timeout_seconds=0.5) as base:
        events = sse_events(base, QUESTION)
        assert events[-1][0] == "done" and events[-1][1]["outcome"] == "fallback"
        assert writer.calls == 0
        assert_healthy(base)


def test_analysing_a_huge_retrieved_post_does_not_stall_the_event_loop(settings: Settings) -> None:
    huge = FakeRetriever(documents=[huge_post()], queries=[])
    graph = build_graph(retriever=huge, settings=settings)  # offline writer and critic
    with guarded(settings, graph) as base:
        done: list[Any] = []
        asker = threading.Thread(target=lambda: done.append(sse_events(base, "How does retrieval cache tokens?", 120)))
        asker.start()
        while not huge.queries:  # the run has reached Research; slicing the post comes next
            time.sleep(0.01)
        assert_healthy(base)
        asker.join(120)
        assert done and done[0][-1][0] == "done"


BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def body_routes(routes: list[Any]) -> list[tuple[str, str]]:
    """Every (method, path) that may carry a body; a route without methods (an ASGI app: /mcp) takes any."""
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    found = []
    for route in routes:
        if hasattr(route, "original_router"):  # an included router: its routes are the app's
            found += body_routes(route.original_router.routes)
        elif isinstance(route, Mount):
            assert isinstance(route.app, StaticFiles), f"a mount at {route.path} this test does not know"
        else:
            methods = getattr(route, "methods", None)
            found += [(method, route.path) for method in sorted(BODY_METHODS & set(methods or BODY_METHODS))]
    return found


def test_every_route_that_reads_a_body_answers_a_slow_body_with_408(settings: Settings) -> None:
    server = guarded(settings, body_timeout_seconds=0.5)
    routes = body_routes(server.server.config.app.routes)
    assert {("POST", "/api/chat"), ("POST", "/api/feedback"), ("POST", "/mcp")} <= set(routes)
    with server as base:
        host, port = address(base)
        for method, path in routes:
            sock = connect(base)
            sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                         "Accept: application/json, text/event-stream\r\nContent-Length: 40\r\n\r\n{\"mess".encode())
            status, body = status_and_json(read_response(sock))
            sock.close()
            assert status == 408 and "0.5 seconds" in body["detail"], (method, path, status, body)
        assert_healthy(base)


def test_a_flood_of_slow_mcp_bodies_ends_at_the_body_timeout(settings: Settings) -> None:
    with guarded(settings, body_timeout_seconds=0.5, max_connections=20) as base:
        host, port = address(base)
        sockets = [connect(base) for _ in range(30)]
        for sock in sockets:
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                         "Content-Length: 400\r\n\r\n{".encode())
        # Every connection the cap left open is answered 408 (or was closed to make room), none hangs.
        answers = [read_response(sock) for sock in sockets]
        for sock in sockets:
            sock.close()
        assert all(raw == b"" or status_and_json(raw)[0] in (408, 503) for raw in answers)
        assert sum(raw.startswith(b"HTTP/1.1 408") for raw in answers) >= 10
        assert_healthy(base)


def test_a_client_leaving_mid_body_on_mcp_is_one_log_line(settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    with guarded(settings) as base:
        host, port = address(base)
        with caplog.at_level("INFO"):
            sock = connect(base)
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                         "Content-Length: 400\r\n\r\n{".encode())
            time.sleep(0.3)
            sock.close()
            deadline = time.monotonic() + 30  # a wait for the log line, not a bound under test
            while time.monotonic() < deadline and not any("disconnected" in r.message for r in caplog.records):
                time.sleep(0.05)
        assert_healthy(base)
    mine = [record for record in caplog.records if record.name.startswith(("askai_graph", "mcp"))]
    assert [record.getMessage() for record in mine if record.levelno >= logging.INFO] == [
        "client 127.0.0.1 disconnected before its request body arrived (1 bytes read)"
    ]
    assert not any(record.exc_info for record in caplog.records)
