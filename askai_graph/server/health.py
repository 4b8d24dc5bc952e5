"""``GET /healthz``: the server is ready, and which index it serves."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from askai_graph.server.reload import live


def router() -> APIRouter:
    """Return the ``GET /healthz`` route."""
    routes = APIRouter()

    @routes.get("/healthz")
    async def healthz(request: Request) -> dict[str, Any]:
        """Say the index is loaded and the server is ready, and which index it serves (fingerprint, built at)."""
        return {"status": "ok", **live(request.app).info}

    return routes
