"""Where run records and feedback live: one table in the threads database.

``open_run_log(url)`` opens ``sqlite:///path`` (the default, a file in the user's data
folder) or ``postgresql://...`` (the ``postgres`` extra; several server processes share
it). Both go through the same DB-API code: one ``askai_runs`` table, JSON lists as
text, times as ISO-8601 UTC text (so they sort and compare the same in both). Calls are
blocking; the server runs them in a worker thread.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from askai_graph.stores.runlog.record import Rating, RunRecord

_POSTGRES = ("postgresql://", "postgres://")
POSTGRES_HINT = "a PostgreSQL run log needs the postgres extra: pip install 'askai-graph[postgres]'"
_JSON_FIELDS = ("gates", "failure_codes", "gaps", "cited_urls", "retrieved_urls", "source_urls", "stage_ms")
_COLUMNS = (
    "run_id", "created_at", "question", "standalone_question", "thread_id", "outcome", "attempts", "cached",
    *_JSON_FIELDS, "latency_ms", "rating", "comment",
)  # fmt: skip
_SCHEMA = """
CREATE TABLE IF NOT EXISTS askai_runs (
    run_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    standalone_question TEXT NOT NULL,
    thread_id TEXT,
    outcome TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    cached INTEGER NOT NULL,
    gates TEXT NOT NULL,
    failure_codes TEXT NOT NULL,
    gaps TEXT NOT NULL,
    cited_urls TEXT NOT NULL,
    retrieved_urls TEXT NOT NULL,
    source_urls TEXT NOT NULL,
    stage_ms TEXT NOT NULL,
    latency_ms DOUBLE PRECISION NOT NULL,
    rating TEXT,
    comment TEXT,
    feedback_at TEXT
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS askai_runs_created_at ON askai_runs (created_at)"


class RunLogError(RuntimeError):
    """The run log cannot be opened or written (a bad URL, a missing driver, a refused connection)."""


class RunLog(Protocol):
    """A store of answered questions and the feedback on them."""

    def record(self, run: RunRecord) -> None:
        """Store one answer."""
        ...

    def add_feedback(self, run_id: str, rating: Rating, comment: str | None) -> bool:
        """Attach the reader's rating (the latest wins); ``False`` when ``run_id`` is unknown."""
        ...

    def runs(self, since: datetime | None = None) -> list[RunRecord]:
        """Return the answers recorded at or after ``since`` (all when ``None``), oldest first."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


class SqlRunLog:
    """The run log over a DB-API connection (sqlite3 or psycopg); see the module docstring."""

    def __init__(self, connection: Any, placeholder: str) -> None:
        """Use ``connection`` (autocommit) with its parameter ``placeholder`` (``?`` or ``%s``)."""
        self._connection = connection
        self._p = placeholder
        self._lock = threading.Lock()
        with self._cursor() as cursor:
            cursor.execute(_SCHEMA)
            cursor.execute(_INDEX)

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock:
            cursor = self._connection.cursor()
            try:
                yield cursor
            finally:
                cursor.close()

    def record(self, run: RunRecord) -> None:
        """Store one answer (a repeated run id replaces nothing: the first record stays)."""
        data = run.model_dump(mode="json")
        values = [json.dumps(data[c]) if c in _JSON_FIELDS else data[c] for c in _COLUMNS]
        values[_COLUMNS.index("cached")] = int(run.cached)
        placeholders = ", ".join([self._p] * len(_COLUMNS))
        sql = f"INSERT INTO askai_runs ({', '.join(_COLUMNS)}) VALUES ({placeholders}) ON CONFLICT (run_id) DO NOTHING"
        with self._cursor() as cursor:
            cursor.execute(sql, values)

    def add_feedback(self, run_id: str, rating: Rating, comment: str | None) -> bool:
        """Attach the reader's rating (the latest wins); ``False`` when ``run_id`` is unknown."""
        now = datetime.now(UTC).isoformat()
        p = self._p
        with self._cursor() as cursor:
            cursor.execute(
                f"UPDATE askai_runs SET rating = {p}, comment = {p}, feedback_at = {p} WHERE run_id = {p}",
                (rating, comment, now, run_id),
            )
            return bool(cursor.rowcount)

    def runs(self, since: datetime | None = None) -> list[RunRecord]:
        """Return the answers recorded at or after ``since`` (all when ``None``), oldest first."""
        sql = f"SELECT {', '.join(_COLUMNS)} FROM askai_runs"
        params: tuple[Any, ...] = ()
        if since is not None:
            sql += f" WHERE created_at >= {self._p}"
            params = (since.astimezone(UTC).isoformat(),)
        with self._cursor() as cursor:
            cursor.execute(sql + " ORDER BY created_at", params)
            rows = cursor.fetchall()
        records = []
        for row in rows:
            data = dict(zip(_COLUMNS, row, strict=True))
            for column in _JSON_FIELDS:
                data[column] = json.loads(data[column])
            data["cached"] = bool(data["cached"])
            records.append(RunRecord.model_validate(data))
        return records

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()


def open_run_log(url: str) -> SqlRunLog:
    """Open (and create if needed) the run log at ``sqlite:///path`` or ``postgresql://...``.

    Raises:
        RunLogError: an unknown URL form, a missing driver, or a database that refuses.
    """
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///")).expanduser()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit, one shared connection guarded by a lock; a 10 s busy timeout
            # lets it share the file with the threads checkpointer.
            connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
            connection.execute("PRAGMA journal_mode=WAL")
            return SqlRunLog(connection, "?")
        except (OSError, sqlite3.Error) as exc:
            raise RunLogError(f"cannot open the run log {path}: {exc}") from exc
    if url.startswith(_POSTGRES):
        try:
            import psycopg
        except ImportError as exc:
            raise RunLogError(POSTGRES_HINT) from exc
        from askai_graph.stores.schema_lock import SchemaLockTimeout, schema_lock

        try:
            pg_connection = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            raise _open_error(exc) from exc
        try:
            with schema_lock(pg_connection):
                return SqlRunLog(pg_connection, "%s")
        except (psycopg.Error, SchemaLockTimeout) as exc:
            pg_connection.close()
            raise _open_error(exc) from exc
    raise RunLogError(f"database URL must be sqlite:///path or postgresql://..., got {url!r}")


def _open_error(exc: Exception) -> RunLogError:
    return RunLogError(f"cannot open the run log: {' '.join(str(exc).split())}")
