"""Checkpointers for threads, chosen by ``ASKAI_DATABASE_URL``.

- ``sqlite:///path`` (SQLAlchemy style: ``sqlite:////abs/threads.sqlite`` is absolute):
  ``langgraph-checkpoint-sqlite``; the default of ``askai serve`` and ``askai chat`` is a
  file in the user's data folder (``default_database_url()``).
- ``postgresql://...`` (or ``postgres://``): ``langgraph-checkpoint-postgres`` (the
  ``postgres`` extra), for several server processes sharing threads.

Every saver made here, and any checkpointer passed to ``build_graph``, gets the state's
model types registered with its serializer (``with_state_types``), so a thread's state
round-trips without LangGraph's "Deserializing unregistered type" warning and keeps
working when its strict msgpack mode (``LANGGRAPH_STRICT_MSGPACK=true``) is on.
"""

from __future__ import annotations

import copy
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.base import maybe_add_typed_methods
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from askai_graph.state import checkpoint_types
from askai_graph.stores.schema_lock import SchemaLockTimeout, async_schema_lock, schema_lock
from askai_graph.stores.sqlite_erasure import SECURE_DELETE

Backend = Literal["sqlite", "postgres"]
_POSTGRES_SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for PostgreSQL before giving up with a clear error."""
OUTAGE_TIMEOUT = 1.0
"""The longest a request waits for a connection to PostgreSQL threads: then it is an outage (a 503)."""
_POSTGRES_HINT = "PostgreSQL threads need the postgres extra: pip install 'askai-graph[postgres]'"


class DatabaseError(RuntimeError):
    """The threads database cannot be used (a bad URL, a missing driver, a refused connection)."""


class DatabaseURLError(DatabaseError, ValueError):
    """``ASKAI_DATABASE_URL`` names no backend this package can open."""


def default_database_url() -> str:
    """Return ``sqlite:///`` + a file in the user's data folder (``$XDG_DATA_HOME`` or ``~/.local/share``)."""
    root = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{root / 'askai-graph' / 'threads.sqlite'}"


def parse_database_url(url: str) -> tuple[Backend, str]:
    """Return the backend and what it connects to (a file path, or the PostgreSQL URL).

    Raises:
        DatabaseURLError: not ``sqlite:///path`` or ``postgresql://...``.
    """
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return "sqlite", url.removeprefix("sqlite:///")
    if url.startswith(_POSTGRES_SCHEMES):
        return "postgres", url
    raise DatabaseURLError(f"database URL must be sqlite:///path or postgresql://..., got {url!r}")


def state_serializer() -> JsonPlusSerializer:
    """Return LangGraph's serializer with exactly the state's model types allowed."""
    return JsonPlusSerializer(allowed_msgpack_modules=sorted(checkpoint_types()))


def with_state_types(checkpointer: BaseCheckpointSaver[Any] | None) -> BaseCheckpointSaver[Any] | None:
    """Return ``checkpointer`` (a shallow clone, sharing its storage) with the state's types registered.

    A default LangGraph serializer allows every type with a warning, and cannot extend
    an allowlist it does not have; it is replaced by one that allows the state's types
    (and LangGraph's safe built-ins). A serializer with an allowlist gets the types
    added; any other serializer is left as it is.
    """
    if checkpointer is None:
        return None
    serde = checkpointer.serde
    # LangGraph keeps "allow everything, with a warning" as ``True`` in a private field.
    if type(serde) is JsonPlusSerializer and getattr(serde, "_allowed_msgpack_modules", None) is True:
        clone = copy.copy(checkpointer)
        registered = JsonPlusSerializer(
            pickle_fallback=serde.pickle_fallback, allowed_msgpack_modules=sorted(checkpoint_types())
        )
        clone.serde = maybe_add_typed_methods(registered)
        return clone
    return checkpointer.with_allowlist(checkpoint_types())


@contextmanager
def open_checkpointer(url: str) -> Iterator[BaseCheckpointSaver[Any]]:
    """Open a synchronous saver for ``url`` (the CLI), create its tables, close it on exit."""
    backend, target = parse_database_url(url)
    if backend == "sqlite":
        import sqlite3

        from langgraph.checkpoint.sqlite import SqliteSaver

        try:
            connection = sqlite3.connect(_sqlite_file(target), check_same_thread=False)
            connection.execute(SECURE_DELETE)
            saver = SqliteSaver(connection, serde=state_serializer())
            saver.setup()
        except (OSError, sqlite3.Error) as exc:  # a folder that cannot be made, a file that is not SQLite
            raise DatabaseError(f"cannot open the threads database {target}: {exc}") from exc
        try:
            yield saver
        finally:
            connection.close()
        return
    psycopg, _ = _postgres_modules()
    from langgraph.checkpoint.postgres import PostgresSaver

    try:
        pg_connection = psycopg.connect(target, **_postgres_kwargs())
    except psycopg.Error as exc:
        raise _setup_error(exc) from exc
    with pg_connection:
        postgres = PostgresSaver(pg_connection, serde=state_serializer())
        try:
            with schema_lock(pg_connection):
                postgres.setup()
        except (psycopg.Error, SchemaLockTimeout) as exc:
            raise _setup_error(exc) from exc
        yield postgres


@asynccontextmanager
async def open_async_checkpointer(url: str) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """Open an asyncio saver for ``url`` (the HTTP server), create its tables, close it on exit."""
    backend, target = parse_database_url(url)
    if backend == "sqlite":
        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async with aiosqlite.connect(_sqlite_file(target)) as connection:
            await connection.execute(SECURE_DELETE)
            saver = AsyncSqliteSaver(connection, serde=state_serializer())
            await saver.setup()
            yield saver
        return
    psycopg, pool_module = _postgres_modules()
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    # A pool, not one connection: concurrent requests each get their own. Through an
    # outage (``_outage_pool_options``) every wait is bounded and the pool reconnects on demand.
    pool_class = pool_module.AsyncConnectionPool
    guard = SchemaGuard()
    options = _outage_pool_options(pool_class, guard)
    async with pool_class(target, kwargs=_postgres_kwargs() | _outage_kwargs(), open=False, **options) as pool:
        try:
            await pool.wait(timeout=CONNECT_TIMEOUT)
        except pool_module.PoolTimeout as exc:
            raise DatabaseError(f"cannot open the threads database within {CONNECT_TIMEOUT:g} s") from exc
        pool.reconnect_timeout = 0  # from now on a lost connection is made again on demand
        postgres = AsyncPostgresSaver(pool, serde=state_serializer())
        try:
            # The lock on a connection of its own: setup takes another from the pool.
            async with pool.connection() as lock_connection, async_schema_lock(lock_connection):
                await postgres.setup()
        except (psycopg.Error, SchemaLockTimeout) as exc:
            raise _setup_error(exc) from exc
        guard.armed = True
        yield postgres


class SchemaGuard:
    """The pool's ``configure``: once armed, every new connection makes sure the tables exist.

    Armed after start-up created them, so a start-up failure keeps its clear message.
    """

    def __init__(self) -> None:
        """Start unarmed."""
        self.armed = False

    async def __call__(self, connection: Any) -> None:
        """Check (and create) the tables through a new ``connection``."""
        if self.armed:
            await ensure_schema(connection)


def _outage_pool_options(pool_class: Any, guard: SchemaGuard) -> dict[str, Any]:
    """How the server's pool lives through an outage, and through a database dropped and created again.

    - ``timeout``: a request waits ``OUTAGE_TIMEOUT`` for a connection, then it is a 503
      (``PoolTimeout`` is a ``psycopg.OperationalError``), never the outage's length.
    - ``check``: a connection is tried before it is lent; one the outage broke is dropped.
    - ``reconnect_timeout`` 0 once open: a failed connection is not retried on a backoff
      of minutes; the next request that needs one connects again, so the database's
      return is seen at once.
    - ``configure``: every new connection first makes sure the tables exist
      (``ensure_schema``): a database created again, empty, under the same name works
      without a restart.
    """
    return {
        "min_size": 2,
        "max_size": 8,
        "timeout": OUTAGE_TIMEOUT,
        "check": pool_class.check_connection,
        # At start-up a failed connection is retried for CONNECT_TIMEOUT (then 0: see above).
        "reconnect_timeout": CONNECT_TIMEOUT,
        "configure": guard,
    }


def _outage_kwargs() -> dict[str, Any]:
    """Connection options that bound each wait on a server that went silent (no reset, no reply)."""
    bound = int(OUTAGE_TIMEOUT * 1000)
    return {"connect_timeout": 2, "tcp_user_timeout": bound, "keepalives_idle": 5, "keepalives_interval": 2,
            "keepalives_count": 2}  # fmt: skip


async def ensure_schema(connection: Any) -> None:
    """Create the checkpointer's tables through ``connection`` if its database has none (a new connection).

    One catalog lookup per new connection; the migrations run under the schema lock, so
    several processes reconnecting to an emptied database create the tables once.
    """
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    present = "SELECT to_regclass('checkpoint_migrations') IS NOT NULL AS present"
    if (await (await connection.execute(present)).fetchone())["present"]:
        return
    try:
        async with async_schema_lock(connection):
            await AsyncPostgresSaver(connection, serde=state_serializer()).setup()
    except SchemaLockTimeout as exc:  # the pool drops this connection and tries another
        raise DatabaseError(str(exc)) from exc


def _setup_error(exc: Exception) -> DatabaseError:
    return DatabaseError(f"cannot open the threads database: {' '.join(str(exc).split())}")


def _sqlite_file(path: str) -> str:
    Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
    return str(Path(path).expanduser())


def _postgres_kwargs() -> dict[str, Any]:
    from psycopg.rows import dict_row

    # What langgraph-checkpoint-postgres requires of its connections.
    return {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row, "connect_timeout": CONNECT_TIMEOUT}


def _postgres_modules() -> tuple[Any, Any]:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise DatabaseURLError(_POSTGRES_HINT) from exc
    return psycopg, psycopg_pool
