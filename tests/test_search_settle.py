"""Which searches the search log keeps (``answers.search_settle``): the query a reader settled on, not each key's."""

from __future__ import annotations

import asyncio

from askai_graph.server.answers.search_settle import SearchSettler
from askai_graph.stores.runlog.searches import SearchRecord


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def settler(clock: Clock, seconds: float = 30) -> tuple[SearchSettler, list[str]]:
    written: list[str] = []
    return SearchSettler(lambda record: written.append(record.query), seconds, clock), written


def typed(query: str, reader: str | None = "reader-a") -> SearchRecord:
    return SearchRecord(query=query, result_count=1, reader=reader)


def test_a_search_the_reader_types_on_from_is_replaced() -> None:
    settle, written = settler(Clock())
    for query in ("co", "conf", "configuration", "configuration fi"):
        settle.search(typed(query))
    asyncio.run(settle.aclose())
    assert written == ["configuration fi"]


def test_deleting_back_to_retype_replaces_the_search_too() -> None:
    settle, written = settler(Clock())
    for query in ("configurt", "configur", "configuration"):
        settle.search(typed(query))
    asyncio.run(settle.aclose())
    assert written == ["configuration"]


def test_a_search_the_reader_moves_on_from_is_written_at_once() -> None:
    settle, written = settler(Clock())
    settle.search(typed("helm chart"))
    settle.search(typed("kubernetes"))
    assert written == ["helm chart"]


def test_a_search_left_for_the_window_is_written() -> None:
    clock = Clock()
    settle, written = settler(clock)
    settle.search(typed("helm"))
    clock.now += 29
    settle.expire()
    assert written == []
    clock.now += 1
    settle.expire()
    assert written == ["helm"]


def test_readers_are_held_apart() -> None:
    settle, written = settler(Clock())
    settle.search(typed("con", reader="reader-a"))
    settle.search(typed("configuration", reader="reader-b"))  # another reader's query extends it: no matter
    settle.settle("reader-a")
    assert written == ["con"]


def test_opening_a_result_or_asking_settles_only_that_readers_search() -> None:
    settle, written = settler(Clock())
    settle.search(typed("pydantic", reader="reader-a"))
    settle.search(typed("helm", reader="reader-b"))
    settle.settle("reader-a")
    settle.settle("reader-a")  # nothing held any more: nothing written twice
    assert written == ["pydantic"]


def test_no_window_or_no_reader_writes_every_search() -> None:
    settle, written = settler(Clock(), seconds=0)
    settle.search(typed("co"))
    settle.search(typed("con"))
    anonymous, also = settler(Clock())
    anonymous.search(typed("co", reader=None))
    anonymous.search(typed("con", reader=None))
    assert written == ["co", "con"] and also == ["co", "con"]
