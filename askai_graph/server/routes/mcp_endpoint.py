"""``/mcp`` on the HTTP app, with the MCP face (and its SDK) loaded by the first request that asks for it.

Importing the SDK and declaring the tools (``askai_graph.mcp.server.DocsMCP``) costs
about half a second of CPU at start-up, and memory, that a server nobody asks over MCP
never needs back. ``create_app`` mounts this stand-in instead. The first request to
``/mcp`` imports the MCP face by its name (``FACE_MODULE``) and the SDK with it (in the
bookkeeping pool, so the streams already running never wait on the import), builds the
server, and starts its session manager in a task of the app's lifespan (``running``),
which stops it when the app stops; that request and every later one go to the SDK.
Nothing about ``/mcp`` changes for a client but the first call's latency.

Before the SDK sees a request, ``/mcp`` takes the first two steps of the desk's admission
(``desk``), as ``/api/chat`` does: a server not ready yet is a ``503``, a full
stream cap a ``503`` with ``Retry-After``, at once; and a body is read here, bounded
by ``max_body_bytes`` (``413``) and ``body_timeout_seconds`` (``408``), then handed to
the SDK whole. A client dripping its body a byte at a time is refused at the deadline
instead of holding a connection (and the SDK) for as long as it likes; one that leaves
mid-body is one log line. A JSON body is decoded strictly first: ``NaN``, or a request
id that is not a string or an integer (an object, a fraction), is a JSON-RPC error.
Each tool call then counts against the client's rate limit
(``tools``).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator
from typing import Any, Protocol

import anyio
from anyio.abc import TaskGroup, TaskStatus
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from askai_graph.server.answers.desk import Desk, Refused
from askai_graph.server.guards.pools import bookkeeping
from askai_graph.server.guards.request import BadRequest, ClientGone, decode_json, json_type, read_body, refused

FACE_MODULE = "askai_graph.mcp.server"
"""The MCP face: the module that imports the SDK and declares the tools over the desk.

Named, not imported: the HTTP app and the MCP face never import each other (both import
the desk, ``tests/test_import_graph.py``); the app loads this face by name, on first use.
"""


class DocsMCP(Protocol):
    """What ``/mcp`` and ``askai mcp`` use of the MCP face's ``DocsMCP``, built over the desk."""

    @property
    def server(self) -> Any:
        """The SDK's server: its session manager (streamable HTTP) and ``run_stdio_async``."""
        ...


class MCPEndpoint:
    """The ASGI app of ``/mcp``: the SDK's streamable-HTTP transport, loaded on first use."""

    def __init__(self, desk: Desk) -> None:
        """Keep the desk the tools share with ``/api/chat``; nothing of the SDK is imported yet."""
        self.desk = desk
        self.settings = desk.settings
        self._app: FastAPI | None = None
        self._docs: DocsMCP | None = None
        # Made by ``running``: anyio's primitives belong to the loop the app runs in.
        self._group: TaskGroup | None = None
        self._stop: anyio.Event | None = None
        self._starting: anyio.Lock | None = None
        self._serving = False

    def mount(self, app: FastAPI) -> None:
        """Add ``/mcp`` to ``app``; the tools answer from what ``app`` serves."""
        self._app = app
        app.state.mcp = self
        # An instance, not a function: Starlette hands it the raw ASGI call, as it did the SDK's own route.
        app.router.routes.append(Route("/mcp", endpoint=self))

    def load(self) -> DocsMCP:
        """Return the SDK's server with the app's tools, imported and built on first use (``askai mcp`` too)."""
        if self._docs is None:
            if self._app is None:
                raise RuntimeError("mount the MCP endpoint on an app before loading it")
            docs: DocsMCP = importlib.import_module(FACE_MODULE).DocsMCP(self.desk)
            self._docs = docs
        return self._docs

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Hold, for the app's lifetime, the task group the SDK's session manager will run in (a resource)."""
        stop = self._stop = anyio.Event()
        self._starting = anyio.Lock()
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                stop.set()  # a started session manager leaves its run; the group waits for it

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Admit one ``/mcp`` request and read its body, then answer it with the SDK (started on first use)."""
        request = Request(scope, receive)
        try:
            receive = await self._admit(request)
        except ClientGone:
            return  # logged by ``read_body``; nobody is left to answer
        except InvalidRequest as exc:
            # A JSON-RPC error, as the protocol words it: the request's id is unusable, so none.
            error = {"code": exc.code, "message": exc.message}
            await JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, 400)(scope, request.receive, send)
            return
        except BadRequest as exc:
            response = await refused(request, exc)
            await response(scope, request.receive, send)
            return
        docs = self._docs if self._serving and self._docs is not None else await self._start()
        await docs.server.session_manager.handle_request(scope, receive, send)

    async def _admit(self, request: Request) -> Receive:
        """Refuse a request before the server is ready or when the stream cap is full; read its body in bounds.

        Returns the SDK's ``receive``.
        """
        try:
            await self.desk.opened()
        except Refused as refusal:
            raise BadRequest(refusal.status, refusal.message, retry_after=refusal.retry_after) from None
        headers = request.headers
        if headers.get("content-length", "0").strip() in ("", "0") and "transfer-encoding" not in headers:
            return request.receive  # no body to wait for (GET, DELETE, an empty POST)
        body = await read_body(request, self.settings.max_body_bytes, self.settings.body_timeout_seconds)
        if (headers.get("content-type") or "").split(";")[0].strip().lower() == "application/json":
            _check_ids(body)
        return _replay(body, request.receive)

    async def _start(self) -> DocsMCP:
        """Import and build the server, then run its session manager in the lifespan's task group."""
        group, starting, stop = self._group, self._starting, self._stop
        if group is None or starting is None or stop is None:
            raise RuntimeError("the MCP endpoint serves only while the app's lifespan runs")
        async with starting:  # the first requests may arrive together: one import, one start
            if self._serving and self._docs is not None:
                return self._docs
            await bookkeeping(importlib.import_module, FACE_MODULE)
            docs = self.load()
            await group.start(self._serve, docs, stop)
            self._serving = True
            return docs

    @staticmethod
    async def _serve(docs: DocsMCP, stop: anyio.Event, *, task_status: TaskStatus[None]) -> None:
        """Run the session manager until ``stop`` (entered and left in this one task, as anyio requires)."""
        async with docs.server.session_manager.run():
            task_status.started()
            await stop.wait()


class InvalidRequest(BadRequest):
    """A JSON-RPC message the SDK would take although the protocol forbids it; ``code`` is its JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        """Refuse with JSON-RPC error ``code`` (-32700 not JSON, -32600 not a valid request)."""
        super().__init__(400, message)
        self.code = code


def _check_ids(body: bytes) -> None:
    """Refuse a body that is not strict JSON (NaN, Infinity...) or whose message ids are not strings or integers.

    JSON-RPC ids are strings or numbers, and MCP narrows them to strings and integers
    (never ``null``): an object, a list, a boolean or a fraction cannot be answered by id.
    """
    try:
        payload = decode_json(body)
    except BadRequest as exc:
        raise InvalidRequest(-32700, exc.message) from None
    for message in payload if isinstance(payload, list) else [payload]:
        if not isinstance(message, dict) or "id" not in message:
            continue  # a notification, or a shape the SDK refuses itself
        found = message["id"]
        if isinstance(found, bool) or not isinstance(found, str | int):
            raise InvalidRequest(-32600, f"a request id must be a string or an integer, not {json_type(found)}")


def _replay(body: bytes, receive: Receive) -> Receive:
    """Return a ``receive`` that hands over ``body`` whole, then what ``receive`` says (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
