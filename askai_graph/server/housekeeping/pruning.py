"""The server prunes expired threads in the background, for as long as it runs.

One resource of the app's lifespan (``stores.pruning.prune_forever`` as a task over the
threads store the reloader's graphs are built on, cancelled when the app stops); its
counts are on ``/healthz`` as ``threads_pruned``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from askai_graph.server.housekeeping.background import background
from askai_graph.settings import Settings
from askai_graph.stores.pruning import PruneCounts, prune_forever


@contextlib.asynccontextmanager
async def pruning(reloader: Any, settings: Settings, counts: PruneCounts) -> AsyncIterator[None]:
    """Prune ``reloader``'s threads store every ``thread_prune_seconds`` while the app runs."""
    if not settings.thread_prune_seconds or reloader.checkpointer is None:
        yield
        return
    work = prune_forever(reloader.checkpointer, settings.thread_ttl_hours, settings.thread_prune_seconds, counts)
    async with background(work, "askai-thread-pruning"):
        yield
