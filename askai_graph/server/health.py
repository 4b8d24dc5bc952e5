"""``GET /healthz``: the server is ready, and which index it serves."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from askai_graph.server.reload import live


def add_health_route(app: FastAPI) -> None:
    """Add ``GET /healthz`` to ``app``."""

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Say the index is loaded and the server is ready, and which index it serves (fingerprint, built at)."""
        return {"status": "ok", **live(app).info}
