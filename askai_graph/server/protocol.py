"""Connection-level limits uvicorn lacks, the same whichever HTTP parser it runs.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) but not a client
that sends half a request and stops (slowloris), and only h11 bounds the size of the
request head (httptools accepted a 1 MB header). Before the app sees a request, a
connection is *awaiting* its request line and headers; this subclass of uvicorn's
HTTP protocols (h11 or httptools) limits that phase:

- ``header_timeout_seconds``: the head must be complete in time, from the connection's
  start or the end of the previous response; otherwise the connection is closed.
- ``max_header_bytes``: a larger head gets ``431`` (JSON ``{"detail"}``) and a close,
  counted here from the raw bytes, not by the parser.
- ``max_connections_per_client``: a connection past one remote address's cap gets
  ``503`` and a close at once, before the app (``client_connections``), so one client
  cannot fill the cap below.
- ``max_connections``: when a new connection would pass the cap, the oldest connection
  still awaiting a request is closed to make room (a slowloris connection, or an idle
  keep-alive one); if every connection is busy with a request, the new one gets ``503``.
  File descriptors stay bounded, and a real request, whose head arrives at once,
  always gets a turn.

Refused connections are logged at most one line per interval (``client_connections.RefusalLog``).

Every connection also gets ``TCP_NODELAY`` here, whatever the event loop (``serving``).

Body timeouts, the stream cap and the rate limit live in the app (``limits``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
from dataclasses import dataclass
from typing import Any

from askai_graph.server.guards.client_connections import ClientConnections, RefusalLog, TrustedPeers, peer_host

logger = logging.getLogger(__name__)

_REASONS = {431: "Request Header Fields Too Large", 503: "Service Unavailable"}


@dataclass(frozen=True)
class ConnectionLimits:
    """The connection limits, from ``Settings``."""

    header_timeout: float
    """Seconds a connection may spend awaiting a complete request head."""
    max_header_bytes: int
    """Largest request line plus headers, in bytes."""
    max_connections: int
    """Open connections at most."""
    max_connections_per_client: int | None = None
    """Open connections one remote address may hold (``client_connections``); ``None``: no cap."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses (or networks, or ``*``) whose connections are not capped per client: reverse proxies."""


def _raw_response(status: int, detail: str) -> bytes:
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


def _no_delay(transport: asyncio.Transport) -> None:
    """Turn Nagle's algorithm off on ``transport``'s TCP socket (asyncio skips a socket made with ``proto`` 0)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # the peer may already be gone
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _Guard:
    """Mixin over a uvicorn HTTP protocol; see the module docstring."""

    limits: ConnectionLimits
    clients: ClientConnections
    refusals: RefusalLog
    # Provided by the uvicorn protocol this is mixed into.
    cycle: Any
    connections: set[Any]
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        _no_delay(transport)
        self._head = bytearray()
        self._seen_cycle: Any = None
        self._header_timer: asyncio.TimerHandle | None = None
        self._await_request()
        self._peer = peer_host(transport)
        if not self.clients.admit(self._peer):
            # Refused before making room: one client's flood must never close another client's connection.
            self.refusals.refused(self.loop, f"over {self.clients.cap} connections from one client address: 503")
            self._refuse(503, "too many connections from your address; close some and try again")
            return
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def _await_request(self) -> None:
        self._awaiting = True
        self._since = self.loop.time()
        self._head.clear()
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self.limits.header_timeout, self._on_header_timeout)

    def _request_started(self) -> None:
        self._awaiting = False
        self._seen_cycle = self.cycle
        self._head.clear()
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _make_room(self) -> None:
        idle = [c for c in self.connections if c is not self and getattr(c, "_awaiting", False)]
        if idle:
            oldest = min(idle, key=lambda c: c._since)
            logger.debug("connection cap reached: closing the oldest connection awaiting a request")
            oldest._close()
            return
        self.refusals.refused(self.loop, f"the cap of {self.limits.max_connections} connections reached, all busy: 503")
        self._refuse(503, "too many connections; try again shortly")

    def _close(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self._awaiting = False
        if not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: int, detail: str) -> None:
        if not self.transport.is_closing():
            self.transport.write(_raw_response(status, detail))
        self._close()

    def _on_header_timeout(self) -> None:
        self._header_timer = None
        if self._awaiting and not self.transport.is_closing():
            logger.debug("closing a connection that sent no complete request within the header timeout")
            self._close()

    def data_received(self, data: bytes) -> None:
        if self._awaiting:
            self._head += data
            end = self._head.find(b"\r\n\r\n")
            size = len(self._head) if end < 0 else end + 4
            if size > self.limits.max_header_bytes:
                self._refuse(431, f"request headers exceed {self.limits.max_header_bytes} bytes")
                return
        super().data_received(data)  # type: ignore[misc]
        if self.cycle is not None and self.cycle is not self._seen_cycle:
            self._request_started()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if self.cycle is not None and self.cycle is not self._seen_cycle:
            self._request_started()  # a pipelined request began inside the call above
        elif not self.transport.is_closing():
            self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self.clients.release(self._peer)
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self._awaiting = False
        super().connection_lost(exc)  # type: ignore[misc]


def guarded_protocol(limits: ConnectionLimits, parser: str = "auto") -> type:
    """Return uvicorn's HTTP protocol class for ``parser`` with ``limits`` enforced.

    Args:
        limits: The connection limits.
        parser: ``"h11"``, ``"httptools"``, or ``"auto"`` (httptools when installed,
            as uvicorn chooses).
    """
    if parser == "auto":
        try:
            import httptools  # noqa: F401
        except ImportError:
            parser = "h11"
        else:
            parser = "httptools"
    if parser == "httptools":
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base  # type: ignore[assignment]
    # One count of connections per client, and one refusal log, for every connection of this listener.
    clients = ClientConnections(limits.max_connections_per_client, TrustedPeers(list(limits.trusted_proxies)))
    shared = {"limits": limits, "clients": clients, "refusals": RefusalLog(logger)}
    return type(f"Guarded{base.__name__}", (_Guard, base), shared)
