"""One body for a node's sync and async variants: its steps as a generator yielding the calls it needs.

Every node runs both ways (``graph.invoke`` and ``ainvoke``/``astream``), and the two
ways differ only where the node calls a collaborator: ``retriever.invoke`` or
``await retriever.ainvoke``, CPU work inline or in a worker thread. So a node's body is
written once, as a generator: where it needs a collaborator it yields a ``Call`` holding
both sides, and is sent the result back, or has the collaborator's exception thrown in
at that very point (its ``try``/``except`` read as in plain code). ``run`` drives a body
with each call's sync side; ``arun`` awaits each call's async side on the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Call:
    """One call a node body needs, in its sync and its async form (the same call, the same result)."""

    sync: Callable[[], Any]
    """Makes the call in a sync run."""
    asynchronous: Callable[[], Awaitable[Any]]
    """Makes the call in an async run, without blocking the event loop."""


Body = Generator[Call, Any, R]
"""A node's steps: yields the ``Call``s it needs, is sent their results, returns the node's update."""


def both(sync: Callable[..., Any], asynchronous: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Call:
    """Return the call of ``sync`` (or, in an async run, of ``asynchronous``) with these arguments."""
    return Call(partial(sync, *args, **kwargs), partial(asynchronous, *args, **kwargs))


def blocking(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Call:
    """Return the call of ``function``: inline in a sync run, in a worker thread in an async one."""
    return Call(partial(function, *args, **kwargs), partial(asyncio.to_thread, function, *args, **kwargs))


def run(body: Body[R]) -> R:
    """Run ``body`` with each call's sync side; return what it returns."""
    try:
        call = next(body)
        while True:
            try:
                result = call.sync()
            except Exception as exc:
                call = body.throw(exc)
            else:
                call = body.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


async def arun(body: Body[R]) -> R:
    """Run ``body`` awaiting each call's async side; return what it returns."""
    try:
        call = next(body)
        while True:
            try:
                result = await call.asynchronous()
            except Exception as exc:
                call = body.throw(exc)
            else:
                call = body.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
