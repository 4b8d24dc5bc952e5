"""A real HTTP server on 127.0.0.1 serving a site folder the test wrote, with hooks.

It serves files the way a static host does (``/guide/`` is ``guide/index.html``), with
an ``ETag`` and a ``Last-Modified`` on each (either can be turned off) and ``304`` to a
matching ``If-None-Match`` / ``If-Modified-Since``. ``routes`` replace a path's answer
(a status, a redirect, a slow or endless body); ``latency`` delays every answer. Every
request is logged with its headers and whether a body was sent. Used by the crawl tests
and ``bench/crawl.py``.
"""

from __future__ import annotations

import email.utils
import hashlib
import mimetypes
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Reply:
    """A scripted answer: status, headers, and a body (bytes, or chunks sent one by one)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | Callable[[], Iterator[bytes]] = b""
    delay: float = 0.0
    """Seconds to wait before answering."""
    drip: float = 0.0
    """Send the status line and headers one byte at a time, this many seconds apart."""


@dataclass
class Hit:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    at: float
    status: int = 0
    body_sent: bool = False


def html_page(title: str, text: str, *, links: tuple[str, ...] = (), canonical: str | None = None,
              description: str | None = None, head: str = "") -> str:
    """Return a small built page: nav with ``links``, one article, a footer."""
    nav = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    meta = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    meta += f'<meta name="description" content="{description}">' if description else ""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>{meta}{head}</head>'
        f"<body><header><nav><ul>{nav}</ul></nav></header><main><article><h1>{title}</h1>"
        f"<p>{text}</p></article></main><footer><p>Copyright the site authors.</p></footer></body></html>"
    )


class SiteServer:
    """Serve ``root`` on 127.0.0.1 until the ``with`` block ends."""

    def __init__(self, root: Path, *, etag: bool = True, last_modified: bool = True, latency: float = 0.0) -> None:
        self.root, self.etag, self.last_modified, self.latency = root, etag, last_modified, latency
        self.routes: dict[str, Reply | Callable[[], Reply]] = {}
        self.log: list[Hit] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def hits(self, path: str | None = None) -> list[Hit]:
        """Return the requests logged (for ``path`` only, if given)."""
        with self._lock:
            return [hit for hit in self.log if path is None or hit.path == path]

    def bodies(self) -> list[str]:
        """Return the paths of pages (not robots.txt or sitemaps) answered with a body."""
        return [hit.path for hit in self.hits() if hit.body_sent and not hit.path.endswith((".txt", ".xml"))]

    def clear(self) -> None:
        with self._lock:
            self.log.clear()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
                path = urlsplit(self.path).path
                hit = Hit(path, {k.lower(): v for k, v in self.headers.items()}, time.monotonic())
                with site._lock:
                    site.log.append(hit)
                if site.latency:
                    time.sleep(site.latency)
                route = site.routes.get(path)
                reply = (route() if callable(route) else route) if route is not None else site._file(path, self)
                try:
                    self._send(reply, hit)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def _send(self, reply: Reply, hit: Hit) -> None:
                if reply.delay:
                    time.sleep(reply.delay)
                hit.status = reply.status
                if reply.drip:
                    fields = "".join(f"{name}: {value}\r\n" for name, value in reply.headers.items())
                    head = f"HTTP/1.1 {reply.status} OK\r\n{fields}"
                    head += f"Content-Length: {len(reply.body)}\r\nConnection: close\r\n\r\n"  # type: ignore[arg-type]
                    self.close_connection = True
                    for byte in head.encode():
                        self.wfile.write(bytes([byte]))
                        time.sleep(reply.drip)
                    hit.body_sent = True
                    self.wfile.write(reply.body)  # type: ignore[arg-type]
                    return
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if callable(reply.body):
                    # Streamed without a length: the end of the body is the end of the connection.
                    self.send_header("Connection", "close")
                    self.end_headers()
                    hit.body_sent = True
                    self.close_connection = True
                    for chunk in reply.body():
                        self.wfile.write(chunk)
                    return
                if "Content-Length" not in reply.headers:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                if reply.body:
                    hit.body_sent = True
                    self.wfile.write(reply.body)

        return Handler

    def _file(self, path: str, request: BaseHTTPRequestHandler) -> Reply:
        rel = path.lstrip("/")
        target = self.root / rel
        if path.endswith("/"):
            target = target / "index.html"
        try:
            target.resolve().relative_to(self.root.resolve())
        except ValueError:
            return Reply(404, body=b"not found")
        if not target.is_file():
            return Reply(404, {"Content-Type": "text/html"}, b"<html><body><h1>Not found</h1></body></html>")
        data = target.read_bytes()
        mtime = int(target.stat().st_mtime)
        media = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        headers = {"Content-Type": f"{media}; charset=utf-8" if media.startswith("text/") else media}
        tag = '"' + hashlib.sha1(data).hexdigest()[:16] + '"'
        if self.etag:
            headers["ETag"] = tag
        if self.last_modified:
            headers["Last-Modified"] = email.utils.formatdate(mtime, usegmt=True)
        if self.etag and request.headers.get("If-None-Match") == tag:
            return Reply(304, headers)
        since = request.headers.get("If-Modified-Since")
        if self.last_modified and since and not (self.etag and request.headers.get("If-None-Match")):
            when = email.utils.parsedate_to_datetime(since).timestamp()
            if mtime <= when:
                return Reply(304, headers)
        return Reply(200, headers, data)
