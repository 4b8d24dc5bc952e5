"""Background work while the app serves: a task started with the app and cancelled when it stops.

Both background jobs (``pruning``, ``retention``) are one resource of the app's lifespan
each, built with ``background``. It lives here, with them, rather than beside
``lifespan``, so that no role of the server imports the root that wires it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


@contextlib.asynccontextmanager
async def background(work: Coroutine[Any, Any, None], name: str) -> AsyncIterator[None]:
    """Run ``work`` as a task while the app serves; cancel it, and wait for it, when the app stops."""
    task = asyncio.create_task(work, name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
