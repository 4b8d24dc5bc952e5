"""The app's one lifespan: every resource opened in a stated order, closed in the reverse order.

``create_app`` lists what the app must open and close (the answer cache's store, the
remote graph, the threads database, the index watcher, the rate limits, the stream cap)
as ``Resource`` s, each a function returning an async context manager, and ``lifespan``
enters them one after the other in one ``contextlib.AsyncExitStack``. So the order in
which they close is the reverse of that list, and a resource that fails to open closes
everything opened before it, and opens nothing after it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

Resource = Callable[[], AbstractAsyncContextManager[Any]]
"""Opens one thing the app holds while it serves (entering the manager) and closes it (leaving it)."""

Lifespan = Callable[[Any], AbstractAsyncContextManager[None]]
"""What ``FastAPI(lifespan=...)`` takes."""


def lifespan(resources: Sequence[Resource], *, ready: Callable[[], None] | None = None) -> Lifespan:
    """Return an app lifespan that opens ``resources`` in order, then calls ``ready``, and closes them in reverse.

    Args:
        resources: What the app holds while it serves, in the order it is opened.
        ready: Called once everything is open, before the first request (warm-ups).
    """

    @contextlib.asynccontextmanager
    async def run(app: Any) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for resource in resources:
                await stack.enter_async_context(resource())
            if ready is not None:
                ready()
            yield

    return run


def closing(thing: object) -> Resource:
    """Return the resource of something already open that the app closes (its ``aclose``, if it has one)."""

    @contextlib.asynccontextmanager
    async def held() -> AsyncIterator[None]:
        try:
            yield
        finally:
            close = getattr(thing, "aclose", None)
            if close is not None:
                await close()

    return held

