"""Run the app under uvicorn with every limit set: ``askai serve`` and the tests use this.

The listening socket is bound *before* the corpus loads, so a port conflict is
reported at once, and ``--port 0`` picks a free port that is printed before serving.
uvicorn's own proxy-header handling is off: the app trusts ``X-Forwarded-For`` only
from ``trusted_proxies`` (see ``limits``), never from 127.0.0.1 by default.

Every accepted connection has ``TCP_NODELAY`` (set by ``protocol``, whatever the event
loop): a response is a few small writes, and with Nagle's algorithm the last one waited
for the client's delayed ACK, ~40 ms per request on a kept-alive connection. ``askai
serve``, each of its ``--workers`` and ``/mcp`` (the same app) accept here.
"""

from __future__ import annotations

import socket
from typing import Any

from askai_graph.server.guards.limits import trusted_hosts
from askai_graph.server.protocol import ConnectionLimits, guarded_protocol
from askai_graph.settings import Settings


class BindError(OSError):
    """The address cannot be bound (in use, not local, not permitted)."""


def bind(host: str, port: int) -> socket.socket:
    """Bind a listening TCP socket on ``host:port`` (``port`` 0: any free port).

    Raises:
        BindError: the address is in use or cannot be bound, with a one-line reason.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets whose ``proto`` says TCP,
    # and accepted sockets inherit it (without, every kept-alive response waited ~40 ms on a delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def uvicorn_config(app: Any, settings: Settings, *, parser: str = "auto", log_level: str = "info", **extra: Any) -> Any:
    """Return a ``uvicorn.Config`` for ``app`` with the connection limits of ``settings``.

    Args:
        app: The ASGI app.
        settings: Where the limits come from.
        parser: HTTP parser: ``auto``, ``h11`` or ``httptools``; the limits hold for each.
        log_level: uvicorn's log level.
        **extra: Further ``uvicorn.Config`` arguments (``host``, ``port``...).
    """
    import uvicorn

    limits = ConnectionLimits(
        header_timeout=settings.header_timeout_seconds,
        max_header_bytes=settings.max_header_bytes,
        max_connections=settings.max_connections,
        max_connections_per_client=settings.max_connections_per_client,
        trusted_proxies=tuple(trusted_hosts(settings.trusted_proxies)),
    )
    return uvicorn.Config(
        app,
        http=guarded_protocol(limits, parser),
        ws="none",
        lifespan="on",  # the threads database opens for the app's lifetime
        proxy_headers=False,
        # h11 has its own head limit; ours answers first with a clear 431.
        h11_max_incomplete_event_size=settings.max_header_bytes + 1024,
        log_level=log_level,
        timeout_graceful_shutdown=5,
        **extra,
    )
