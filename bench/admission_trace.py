"""The package's modules one uncached question passes through before its graph runs.

Builds the default app (the bundled site, offline models, threads in memory), opens its
lifespan, asks one question through ``POST /api/chat`` to warm every import and cache,
then asks another, never asked, under ``sys.setprofile`` on the event loop's thread:
from the request entering the app until the graph's ``astream`` is called. Each Python
function call whose code is in ``askai_graph`` is attributed to its module; a *visit*
is a run of consecutive calls in one module. Printed: the modules visited, and the
re-entries (visits to a module already visited: the path going back into it), then the
visits in order.

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/admission_trace.py``. Calls on worker threads
(the bookkeeping pool) are not counted: only the request's own path on the loop is.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PACKAGE = str(ROOT / "askai_graph")

import httpx  # noqa: E402

from askai_graph import Settings  # noqa: E402
from askai_graph.server import create_app  # noqa: E402

WARM = "What is semantic caching?"
TRACED = "How does BM25 score documents?"


def module_of(frame: FrameType) -> str | None:
    """Return the ``askai_graph`` module a frame's code belongs to, or ``None``."""
    filename = frame.f_code.co_filename
    if not filename.startswith(PACKAGE):
        return None
    relative = Path(filename).relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


async def main() -> None:
    """Warm the app with one question, then trace another until its graph runs."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("ASKAI_INDEX_CACHE_DIR", tmp)
        app = create_app(settings=Settings(rate_limit="", cache_enabled=True))
        visits: list[str] = []
        tracing = False

        def profile(frame: FrameType, event: str, _: Any) -> None:
            nonlocal tracing
            if event != "call" or not tracing:
                return
            code = frame.f_code
            if code.co_name == "astream" and code.co_filename.endswith(os.path.join("langgraph", "pregel", "main.py")):
                tracing = False  # the graph runs from here
                return
            module = module_of(frame)
            if module is not None and (not visits or visits[-1] != module):
                visits.append(module)

        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4321") as client:
                reply = await client.post("/api/chat", json={"message": WARM})
                assert reply.status_code == 200, reply.text
                sys.setprofile(profile)
                tracing = True
                try:
                    reply = await client.post("/api/chat", json={"message": TRACED})
                finally:
                    sys.setprofile(None)
                assert reply.status_code == 200 and '"cached": false' in reply.text, reply.text
        modules = list(dict.fromkeys(visits))
        print(f"before the graph runs: {len(modules)} modules, {len(visits) - len(modules)} re-entries")
        print(" -> ".join(visit.removeprefix("askai_graph.") for visit in visits))


if __name__ == "__main__":
    asyncio.run(main())
