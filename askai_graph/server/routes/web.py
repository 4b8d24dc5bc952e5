"""The reader-facing front end: ``GET /`` (a full-page Ask AI), ``GET /widget.js`` and CORS.

The widget is built from ``web/`` (``make web``) into ``server/static/`` (beside ``app``), so
``askai serve`` needs neither Node nor the network. ``/static/`` holds the lazily loaded
Mermaid chunks and the third-party licenses (and the build's copy of the page): each of
its files carries the page's Content-Security-Policy and ``nosniff`` too.

Cross-origin calls to ``/api/chat`` (a page on another site embedding the widget) are
refused by the browser unless that page's origin is in ``Settings.cors_origins``: the
preflight of the JSON ``POST`` gets no ``Access-Control-Allow-Origin`` for any other
origin, so the request is never sent. The same header lets an allowed page ``import()``
the Mermaid chunks (module scripts are fetched with CORS); ``widget.js`` itself is a
classic script, which any page may load. CORS is middleware of the whole app, so
``cors`` returns it for ``create_app`` to install; ``router`` has the routes.

A refused origin is invisible on the page (the browser reports a network failure), so
the server logs it: one warning per origin a preflight was refused for, naming the
origin and ``ASKAI_CORS_ORIGINS``.

``askai serve --site DIR`` serves a built site too (``site_pages``): its own pages at
``/`` (the full-page Ask AI gives way to the site's home page), mounted after every
route of the app, so ``/widget.js`` and ``/api/...`` stay the app's.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from askai_graph.settings import Settings

logger = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parents[1] / "static"  # askai_graph/server/static, one level up from routes/
"""The committed build of ``web/`` (``make web`` rewrites it)."""

# The widget script and the page are small and change with each release: revalidate
# (ETag) rather than cache blindly.
_REVALIDATE = {"Cache-Control": "no-cache"}


def security_headers(settings: Settings) -> dict[str, str]:
    """Return the headers of the page and the widget: what the browser may load, and who may frame it.

    Scripts come from this server only (the widget and its Mermaid chunks), as does every
    request; images may be any https URL (an answer's images are checked by Validation);
    styles include the inline ones the page and the shadow root carry. Framing is
    ``frame_ancestors`` ('self' unless the site owner lists the sites that embed it).
    """
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; "
        f"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        f"frame-ancestors {settings.frame_ancestors}"
    )
    return {**_REVALIDATE, "Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff"}


def router(settings: Settings, *, site: bool = False) -> APIRouter:
    """Return the routes of the page, the widget and its assets (``site``: no page, the site has ``/``)."""
    routes = APIRouter(include_in_schema=False)
    headers = security_headers(settings)

    if not site:

        @routes.get("/")
        async def page() -> FileResponse:
            """The full-page Ask AI for this site."""
            return FileResponse(STATIC_DIR / "index.html", media_type="text/html", headers=headers)

    @routes.get("/widget.js")
    async def widget() -> FileResponse:
        """The embeddable ``<askai-widget>`` web component."""
        return FileResponse(STATIC_DIR / "widget.js", media_type="text/javascript", headers=headers)

    # The same headers on every file of /static/: it holds a copy of the page (index.html) too.
    routes.mount("/static", _SecuredStatic(headers, directory=STATIC_DIR), name="static")
    return routes


_LOGGED_ORIGINS = 256
"""Refused origins remembered per process, so a busy page logs once, not on every reader's question."""


class RefusedOriginLog:
    """ASGI middleware: log the origin of a CORS preflight the configured origins refuse, once."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        """Wrap ``app``; ``allowed`` is ``Settings.cors_origins``."""
        self.app = app
        self.allowed = frozenset(allowed)
        self.logged: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Log a refused preflight's origin (the first time), then pass the request on unchanged."""
        if scope["type"] == "http" and scope["method"] == "OPTIONS" and "*" not in self.allowed:
            headers = dict(scope["headers"])
            origin = headers.get(b"origin", b"").decode("latin-1")
            preflight = b"access-control-request-method" in headers
            if preflight and origin and origin not in self.allowed and origin not in self.logged:
                if len(self.logged) < _LOGGED_ORIGINS:
                    self.logged.add(origin)
                logger.warning(
                    "refused a cross-origin request from %s to %s: a page there embeds the widget; "
                    "allow it with ASKAI_CORS_ORIGINS=%s",
                    printable_origin(origin),
                    scope["path"],
                    ",".join([*sorted(self.allowed), printable_origin(origin)]),
                )
        await self.app(scope, receive, send)


def printable_origin(origin: str) -> str:
    """Return ``origin`` (a request header, so anything) safe for one log line, and short."""
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in origin[:200])


def site_pages(site: Path) -> StaticFiles:
    """Return the app that serves the built site at ``site``: ``dir/`` is ``dir/index.html``, 404s its ``404.html``."""
    return StaticFiles(directory=site, html=True)


class _SecuredStatic(StaticFiles):
    """``StaticFiles`` whose every file is sent with the page's security headers."""

    def __init__(self, headers: dict[str, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._security = {name: value for name, value in headers.items() if name != "Cache-Control"}

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        """Return the file's response with the security headers added."""
        response = super().file_response(*args, **kwargs)
        response.headers.update(self._security)
        return response


def cors(settings: Settings) -> list[Middleware]:
    """Return the middleware that lets the configured other origins call the API (none: same origin only).

    Outermost, the log of refused origins (a refusal the page cannot explain to anyone).
    """
    refused = Middleware(RefusedOriginLog, allowed=tuple(settings.cors_origins))
    if not settings.cors_origins:
        return [refused]
    return [
        refused,
        Middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["POST"],
            allow_headers=["Content-Type"],
            max_age=600,
        )
    ]
