"""The listening socket ``askai serve`` binds itself (``serving.bind``), over real uvicorn and real sockets.

What every accepted connection gets there, whichever event loop uvicorn runs:
``TCP_NODELAY``, so a kept-alive response never waits on the client's delayed ACK; and
what one client may hold: ``max_connections_per_client``, past which a connection is
refused before the app (a flood from 127.0.0.2, also loopback, while 127.0.0.1 is
served), with refusals logged once per interval.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.guards.client_connections import ClientConnections, RefusalLog, TrustedPeers
from askai_graph.server.serving import bind, uvicorn_config
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

LOOPS = ["asyncio", pytest.param("uvloop", marks=pytest.mark.skipif(
    not __import__("importlib").util.find_spec("uvloop"), reason="uvloop is not installed"))]  # fmt: skip


@contextlib.contextmanager
def served(settings: Settings, *, loop: str = "asyncio", **overrides: Any) -> Iterator[tuple[LiveServer, str]]:
    """A live server on a socket bound by ``serving.bind``, as ``askai serve`` runs it; yields it and its URL."""
    settings = settings.model_copy(update=overrides)
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1),
                        settings=settings)  # fmt: skip
    app = create_app(graph, settings)
    with contextlib.closing(bind("127.0.0.1", 0)) as sock:
        live = LiveServer(app, uvicorn_config(app, settings, log_level="warning", loop=loop), sockets=[sock])
        with live as base:
            yield live, base


def accepted_sockets(live: LiveServer) -> list[Any]:
    """The server's side of its open connections (read from uvicorn's own record of them)."""
    return [conn.transport.get_extra_info("socket") for conn in list(live.server.server_state.connections)]


@pytest.mark.parametrize("loop", LOOPS)
def test_a_kept_alive_connection_is_accepted_with_tcp_nodelay(settings: Settings, loop: str) -> None:
    with served(settings, loop=loop) as (live, base), httpx.Client(timeout=10) as client:
        for _ in range(3):  # one connection, kept alive
            assert client.get(f"{base}/healthz").status_code == 200
        sockets = accepted_sockets(live)
        assert len(sockets) == 1
        assert sockets[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def slow_feedback(base: str, source: str) -> socket.socket:
    """A connection from ``source`` whose request is busy in the app: a feedback post whose body never comes."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))
    sock.sendall(f"POST /api/feedback HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                 "Content-Length: 400\r\n\r\n{".encode())  # fmt: skip
    return sock


def wait_for(condition: Any, what: str) -> None:
    """Wait until ``condition()`` holds (a wait on a condition, not a bound under test)."""
    deadline = time.monotonic() + 30
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


def test_one_client_past_its_connection_cap_is_refused_and_every_other_client_is_served(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    # The whole listener holds 30; one client (127.0.0.2, also loopback) tries to hold 60 busy ones.
    limits = {"max_connections": 30, "max_connections_per_client": 10, "body_timeout_seconds": 60,
              "header_timeout_seconds": 60, "feedback_per_minute": 10_000}  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="askai_graph"), served(settings, **limits) as (live, base):
        flood = [slow_feedback(base, "127.0.0.2") for _ in range(60)]
        try:
            # The 50 past the cap are answered 503 and closed at once, never read by the app.
            refused = [read_all(sock) for sock in flood[10:]]
            assert all(raw.startswith(b"HTTP/1.1 503") for raw in refused)
            assert b"too many connections from your address" in refused[0]
            wait_for(lambda: len(live.server.server_state.connections) == 10, "the refused connections closed")
            # Another client is served at once, though one client holds ten busy connections.
            assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
        finally:
            for sock in flood:
                sock.close()
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("askai_graph.server")]
    assert len(lines) == 1 and "over 10 connections from one client address" in lines[0]


class Timers:
    """Stands in for the event loop's ``call_later``: the test ends each interval itself."""

    def __init__(self) -> None:
        self.pending: list[tuple[Any, tuple[Any, ...]]] = []

    def call_later(self, delay: float, callback: Any, *args: Any) -> None:
        self.pending.append((callback, args))

    def end_interval(self) -> None:
        callback, args = self.pending.pop(0)
        callback(*args)


def test_refusals_are_logged_once_then_counted_once_per_interval() -> None:
    logged: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            logged.append(record.getMessage())

    logger = logging.getLogger("tests.refusals")
    logger.addHandler(handler := Lines())
    timers = Timers()
    try:
        refusals = RefusalLog(logger, interval=10)
        for _ in range(1000):
            refusals.refused(timers, "over the cap")  # type: ignore[arg-type]
        timers.end_interval()  # 999 counted: one line
        timers.end_interval()  # a quiet interval: no line, and the next refusal is logged at once
        refusals.refused(timers, "over the cap")  # type: ignore[arg-type]
    finally:
        logger.removeHandler(handler)
    assert logged == [
        "refusing connections: over the cap (counted from now on, one line per 10 s)",
        "999 more connections refused in 10 s: over the cap",
        "refusing connections: over the cap (counted from now on, one line per 10 s)",
    ]
    assert len(timers.pending) == 1


def test_connections_from_a_trusted_proxy_are_not_capped_per_client() -> None:
    connections = ClientConnections(2, TrustedPeers(["10.0.0.0/8", "192.0.2.7"]))
    assert all(connections.admit("10.1.2.3") for _ in range(10))
    assert all(connections.admit("192.0.2.7") for _ in range(10))
    assert [connections.admit("203.0.113.9") for _ in range(3)] == [True, True, False]
    for _ in range(3):
        connections.release("203.0.113.9")
    assert connections.open == {}  # an address with nothing open is forgotten


def read_all(sock: socket.socket) -> bytes:
    """Read until the server closes the connection."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data
