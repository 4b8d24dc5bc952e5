"""A TCP proxy a test can cut and restore: a database outage without touching the database.

``cut()`` closes every open connection (both ends see a reset) and refuses new ones until
``restore()``; the way a network partition or a server restart looks to a client.
``stall()`` keeps every connection open but forwards nothing (what is sent is ACKed and
dropped) until ``resume()``: a peer gone silent, as a half-dead proxy looks to a client.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class TcpProxy:
    """Forward ``127.0.0.1:port`` to ``target``; cut and restore it at will."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._open = threading.Event()
        self._open.set()
        self._flowing = threading.Event()
        self._flowing.set()
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stopped = True
        self.cut()
        self._listener.close()

    def cut(self) -> None:
        """Drop every connection and refuse new ones."""
        self._open.clear()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    sock.shutdown(socket.SHUT_RDWR)  # wakes the pipe blocked in recv on it
                with contextlib.suppress(OSError):
                    sock.close()
            self._sockets.clear()

    def restore(self) -> None:
        """Accept and forward connections again."""
        self._open.set()

    def stall(self) -> None:
        """Keep every connection open but forward nothing, in either direction."""
        self._flowing.clear()

    def resume(self) -> None:
        """Forward again (what was dropped meanwhile stays dropped)."""
        self._flowing.set()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._open.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)  # the timeout was for connecting: an idle connection stays up
            with self._lock:
                if not self._open.is_set():  # cut while this one was connecting
                    client.close()
                    upstream.close()
                    continue
                self._sockets |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if self._flowing.is_set():
                    sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.close()
