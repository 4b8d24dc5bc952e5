"""A node body written once runs the same both ways: ``run`` with sync calls, ``arun`` with async ones."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from askai_graph.nodes.calls import Body, arun, blocking, both, run

SIDES: list[str] = []


def fetch(word: str) -> str:
    SIDES.append("sync")
    if word == "fail":
        raise RuntimeError("provider down")
    return word.upper()


async def afetch(word: str) -> str:
    SIDES.append("async")
    if word == "fail":
        raise RuntimeError("provider down")
    return word.upper()


def body(*words: str) -> Body[list[str]]:
    got = []
    for word in words:
        try:
            got.append((yield both(fetch, afetch, word)))
        except RuntimeError as exc:  # thrown in at the yield, as a plain call would raise it
            got.append(f"caught: {exc}")
    return got


@pytest.mark.parametrize("words", [(), ("a",), ("a", "fail", "b")])
def test_a_body_returns_the_same_whichever_way_it_runs(words: tuple[str, ...]) -> None:
    SIDES.clear()
    synced = run(body(*words))
    sides, SIDES[:] = list(SIDES), []
    assert synced == asyncio.run(arun(body(*words)))
    assert (sides, SIDES) == (["sync"] * len(words), ["async"] * len(words))


def test_an_exception_the_body_does_not_catch_leaves_the_run() -> None:
    def uncaught() -> Body[Any]:
        yield both(fetch, afetch, "fail")

    with pytest.raises(RuntimeError, match="provider down"):
        run(uncaught())
    with pytest.raises(RuntimeError, match="provider down"):
        asyncio.run(arun(uncaught()))


def test_a_blocking_call_runs_inline_when_sync_and_in_a_worker_thread_when_async() -> None:
    def where() -> Body[int | None]:
        return (yield blocking(threading.get_ident))

    assert run(where()) == threading.get_ident()

    async def main() -> bool:
        return await arun(where()) != threading.get_ident()

    assert asyncio.run(main())
