"""Processes starting at once on an empty PostgreSQL database all create the schema.

A database of the test's own on the local PostgreSQL server (dropped afterwards). The
openers run in threads, each on connections of its own, so PostgreSQL sees them as
separate sessions racing exactly as ``askai serve --workers N`` does at its first start.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from askai_graph.stores.checkpoints import DatabaseError, open_async_checkpointer, open_checkpointer
from askai_graph.stores.runlog import RunLogError, open_run_log
from askai_graph.stores.schema_lock import SCHEMA_LOCK_KEY, SchemaLockTimeout, schema_lock
from tests.test_server_threads import postgres_database

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

__all__ = ["postgres_database"]  # the fixture, shared with the threads tests

OPENERS = 4


def all_at_once(opener: Callable[[], None]) -> list[BaseException]:
    """Run ``opener`` in OPENERS threads released together; return what they raised."""
    barrier = threading.Barrier(OPENERS)
    errors: list[BaseException] = []

    def run() -> None:
        barrier.wait()
        try:
            opener()
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(OPENERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "an opener hung"
    return errors


def test_server_processes_starting_together_all_open_the_threads_and_the_run_log(postgres_database: str) -> None:
    async def open_threads() -> None:
        async with open_async_checkpointer(postgres_database):
            pass

    def start_server() -> None:  # what each worker's start-up opens, in this order
        asyncio.run(open_threads())
        open_run_log(postgres_database).close()

    assert all_at_once(start_server) == []


def test_cli_processes_starting_together_all_open_the_threads(postgres_database: str) -> None:
    def start_cli() -> None:
        with open_checkpointer(postgres_database):
            pass

    assert all_at_once(start_cli) == []


def test_run_logs_opening_together_all_create_their_table(postgres_database: str) -> None:
    assert all_at_once(lambda: open_run_log(postgres_database).close()) == []


@pytest.fixture
def connections(postgres_database: str) -> Iterator[tuple[object, object]]:
    import psycopg

    with (
        psycopg.connect(postgres_database, autocommit=True) as one,
        psycopg.connect(postgres_database, autocommit=True) as other,
    ):
        yield one, other


def test_the_lock_waits_for_its_holder_then_times_out(connections: tuple[object, object]) -> None:
    holder, waiter = connections
    with schema_lock(holder), pytest.raises(SchemaLockTimeout, match="locked for over 0.2 s"):
        with schema_lock(waiter, timeout=0.2):
            pass


def holds_schema_lock(connection: Any) -> bool:
    """Whether PostgreSQL counts the schema lock as held by ``connection``'s session."""
    # A bigint advisory key shows in pg_locks as its high and low 32 bits.
    row = connection.execute(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()"
        " AND classid = %s AND objid = %s",
        (SCHEMA_LOCK_KEY >> 32, SCHEMA_LOCK_KEY & 0xFFFFFFFF),
    ).fetchone()
    return bool(row[0])


def test_the_lock_is_free_again_once_its_holder_is_done(connections: tuple[Any, Any]) -> None:
    holder, waiter = connections
    with schema_lock(holder):
        assert holds_schema_lock(holder)
    assert not holds_schema_lock(holder)
    with schema_lock(waiter, timeout=0.2):
        assert holds_schema_lock(waiter)


def test_the_lock_is_free_again_when_its_holder_fails(connections: tuple[Any, Any]) -> None:
    holder, waiter = connections
    with pytest.raises(RuntimeError), schema_lock(holder):
        raise RuntimeError("the migration failed")
    assert not holds_schema_lock(holder)
    with schema_lock(waiter, timeout=0.2):
        assert holds_schema_lock(waiter)


@pytest.fixture
def short_lock_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    import askai_graph.stores.schema_lock

    monkeypatch.setattr(askai_graph.stores.schema_lock, "LOCK_TIMEOUT", 0.2)


@pytest.mark.usefixtures("short_lock_timeout")
def test_a_schema_held_too_long_is_a_clear_error_for_the_cli(
    postgres_database: str, connections: tuple[object, object]
) -> None:
    with schema_lock(connections[0]), pytest.raises(DatabaseError, match="threads database: another process"):
        with open_checkpointer(postgres_database):
            pass


@pytest.mark.usefixtures("short_lock_timeout")
def test_a_schema_held_too_long_is_a_clear_error_for_the_server(
    postgres_database: str, connections: tuple[object, object]
) -> None:
    async def open_threads() -> None:
        async with open_async_checkpointer(postgres_database):
            pass

    with schema_lock(connections[0]), pytest.raises(DatabaseError, match="threads database: another process"):
        asyncio.run(open_threads())


@pytest.mark.usefixtures("short_lock_timeout")
def test_a_schema_held_too_long_is_a_clear_error_for_the_run_log(
    postgres_database: str, connections: tuple[object, object]
) -> None:
    with schema_lock(connections[0]), pytest.raises(RunLogError, match="run log: another process"):
        open_run_log(postgres_database)
