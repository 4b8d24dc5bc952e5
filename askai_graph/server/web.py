"""The reader-facing front end: ``GET /`` (a full-page Ask AI), ``GET /widget.js`` and CORS.

The widget is built from ``web/`` (``make web``) into ``static/`` inside this package, so
``askai serve`` needs neither Node nor the network. ``/static/`` holds the lazily loaded
Mermaid chunks and the third-party licenses.

Cross-origin calls to ``/api/chat`` (a page on another site embedding the widget) are
refused by the browser unless that page's origin is in ``Settings.cors_origins``: the
preflight of the JSON ``POST`` gets no ``Access-Control-Allow-Origin`` for any other
origin, so the request is never sent. The same header lets an allowed page ``import()``
the Mermaid chunks (module scripts are fetched with CORS); ``widget.js`` itself is a
classic script, which any page may load. CORS is middleware of the whole app, so
``cors`` returns it for ``create_app`` to install; ``router`` has the routes.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles

from askai_graph.settings import Settings

STATIC_DIR = Path(__file__).parent / "static"
"""The committed build of ``web/`` (``make web`` rewrites it)."""

# The widget script and the page are small and change with each release: revalidate
# (ETag) rather than cache blindly.
_REVALIDATE = {"Cache-Control": "no-cache"}


def router() -> APIRouter:
    """Return the routes of the page, the widget and its assets."""
    routes = APIRouter(include_in_schema=False)

    @routes.get("/")
    async def page() -> FileResponse:
        """The full-page Ask AI for this site."""
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html", headers=_REVALIDATE)

    @routes.get("/widget.js")
    async def widget() -> FileResponse:
        """The embeddable ``<askai-widget>`` web component."""
        return FileResponse(STATIC_DIR / "widget.js", media_type="text/javascript", headers=_REVALIDATE)

    routes.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return routes


def cors(settings: Settings) -> list[Middleware]:
    """Return the middleware that lets the configured other origins call the API (none: same origin only)."""
    if not settings.cors_origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["POST"],
            allow_headers=["Content-Type"],
            max_age=600,
        )
    ]
