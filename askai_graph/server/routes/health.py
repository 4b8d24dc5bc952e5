"""``GET /healthz``: the server is ready, and which index it serves."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from askai_graph.server.answers.reload import live
from askai_graph.stores.pruning import PruneCounts


def router(pruned: PruneCounts | None = None) -> APIRouter:
    """Return the ``GET /healthz`` route (with the background pruning's counts, when it runs)."""
    routes = APIRouter()

    @routes.get("/healthz")
    async def healthz(request: Request) -> dict[str, Any]:
        """Say the index is loaded and the server is ready, and which index it serves (fingerprint, built at)."""
        body = {"status": "ok", **live(request.app).info}
        if pruned is not None and pruned.runs:
            body["threads_pruned"] = {"pruned": pruned.pruned, "passes": pruned.runs, "last_at": pruned.last_at}
        return body

    return routes
