"""The listening socket ``askai serve`` binds itself (``serving.bind``), over real uvicorn and real sockets.

What every accepted connection gets there, whichever event loop uvicorn runs:
``TCP_NODELAY``, so a kept-alive response never waits on the client's delayed ACK.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
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
