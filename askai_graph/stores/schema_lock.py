"""One process at a time creates the tables of a shared PostgreSQL database.

Several ``askai serve`` workers started on an empty database would otherwise run the
checkpointer's migrations and the run log's ``CREATE TABLE IF NOT EXISTS`` at the same
moment, and PostgreSQL fails all but one of them ("duplicate key value violates unique
constraint pg_type_typname_nsp_index"). The one that wins creates the schema; the others
wait for it, then find everything in place.

The lock is a session-level advisory lock taken by polling ``pg_try_advisory_lock``,
never by blocking in ``pg_advisory_lock``: a session blocked there holds a snapshot, the
checkpointer's migrations in the session holding the lock run ``CREATE INDEX
CONCURRENTLY``, which waits for every older snapshot to go, and PostgreSQL does not see
that as a deadlock. A poll is a statement of a millisecond, so no snapshot lingers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

SCHEMA_LOCK_KEY = 0x61736B6169  # "askai": one key for every table this package creates
POLL_SECONDS = 0.05
LOCK_TIMEOUT = 60.0
"""Seconds to wait for another process to finish creating the schema."""
_TRY_LOCK = "SELECT pg_try_advisory_lock(%s)"
_UNLOCK = "SELECT pg_advisory_unlock(%s)"


class SchemaLockTimeout(TimeoutError):
    """Another process held the schema lock for longer than the timeout."""


def _timeout_error(timeout: float) -> SchemaLockTimeout:
    return SchemaLockTimeout(f"another process kept the database schema locked for over {timeout:g} s")


@contextmanager
def schema_lock(connection: Any, timeout: float | None = None) -> Iterator[None]:
    """Hold the schema lock on ``connection`` (a psycopg connection in autocommit mode).

    Raises:
        SchemaLockTimeout: the lock stayed taken for ``timeout`` seconds (``LOCK_TIMEOUT`` by default).
    """
    from psycopg.rows import tuple_row

    timeout = LOCK_TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + timeout
    with connection.cursor(row_factory=tuple_row) as cursor:
        while not cursor.execute(_TRY_LOCK, (SCHEMA_LOCK_KEY,)).fetchone()[0]:
            if time.monotonic() > deadline:
                raise _timeout_error(timeout)
            time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        # A connection that broke has ended its session, and the lock with it.
        with contextlib.suppress(Exception), connection.cursor(row_factory=tuple_row) as cursor:
            cursor.execute(_UNLOCK, (SCHEMA_LOCK_KEY,))


@asynccontextmanager
async def async_schema_lock(connection: Any, timeout: float | None = None) -> AsyncIterator[None]:
    """Hold the schema lock on ``connection`` (a psycopg async connection in autocommit mode).

    Raises:
        SchemaLockTimeout: the lock stayed taken for ``timeout`` seconds (``LOCK_TIMEOUT`` by default).
    """
    from psycopg.rows import tuple_row

    timeout = LOCK_TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + timeout
    async with connection.cursor(row_factory=tuple_row) as cursor:
        while not (await (await cursor.execute(_TRY_LOCK, (SCHEMA_LOCK_KEY,))).fetchone())[0]:
            if time.monotonic() > deadline:
                raise _timeout_error(timeout)
            await asyncio.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            async with connection.cursor(row_factory=tuple_row) as cursor:
                await cursor.execute(_UNLOCK, (SCHEMA_LOCK_KEY,))
