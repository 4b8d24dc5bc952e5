"""The app's one lifespan: resources open in the order listed and close in the reverse order."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI

from askai_graph.server.lifespan import Resource, closing, lifespan


def recorded(name: str, log: list[str], *, fails: bool = False) -> Resource:
    """A resource that logs its opening and closing, or fails to open."""

    @contextlib.asynccontextmanager
    async def resource() -> AsyncIterator[None]:
        if fails:
            log.append(f"failed {name}")
            raise OSError(f"{name} is unreachable")
        log.append(f"open {name}")
        try:
            yield
        finally:
            log.append(f"close {name}")

    return resource


def run(resources: list[Resource], log: list[str]) -> None:
    async def serve() -> None:
        async with lifespan(resources, ready=lambda: log.append("ready"))(FastAPI()):
            log.append("serving")

    asyncio.run(serve())


def test_resources_open_in_order_and_close_in_reverse_order() -> None:
    log: list[str] = []
    run([recorded("store", log), recorded("threads", log), recorded("slots", log)], log)
    assert log == [
        "open store", "open threads", "open slots", "ready", "serving", "close slots", "close threads", "close store"
    ]  # fmt: skip


def test_a_resource_failing_to_open_closes_those_already_open_and_opens_no_other() -> None:
    log: list[str] = []
    resources = [recorded("store", log), recorded("threads", log), recorded("database", log, fails=True),
                 recorded("slots", log)]  # fmt: skip
    with pytest.raises(OSError, match="database is unreachable"):
        run(resources, log)
    assert log == ["open store", "open threads", "failed database", "close threads", "close store"]


def test_closing_closes_what_has_aclose_and_ignores_what_has_not() -> None:
    class Pool:
        closed = False

        async def aclose(self) -> None:
            self.closed = True

    pool, log = Pool(), list[str]()
    run([closing(pool), closing(object()), closing(None)], log)
    assert pool.closed and log == ["ready", "serving"]


def test_the_app_stops_serving_a_graph_once_its_threads_database_closes(settings: Any, tmp_path: Any) -> None:
    from askai_graph.server import create_app
    from askai_graph.server.answers.reload import live

    app = create_app(settings=settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 'threads.sqlite'}"}))

    async def serve() -> tuple[bool, bool, bool]:
        before = live(app).graph is None
        async with app.router.lifespan_context(app):
            during = live(app).graph is not None
        return before, during, live(app).graph is None

    assert asyncio.run(serve()) == (True, True, True)
