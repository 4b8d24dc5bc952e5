"""Where run records, feedback and searches live: tables in the threads database.

``open_run_log(url)`` opens ``sqlite:///path`` (the default, a file in the user's data
folder) or ``postgresql://...`` (the ``postgres`` extra; several server processes share
it). Both go through the same DB-API code: one ``askai_runs`` table, JSON lists as
text, times as ISO-8601 UTC text (so they sort and compare the same in both). Calls are
blocking (the server runs them in a worker thread), except ``record`` and
``record_search``, which only queue.

Outages lose nothing. PostgreSQL is reached through a connection pool that checks a
connection before lending it and reconnects in the background, and every wait is
bounded (``STORE_TIMEOUT_SECONDS``). ``record`` only queues: a writer thread stores the
answers in order (those queued together in one transaction) and, while the database is
away, keeps them in a bounded queue in memory and retries with backoff, so an answer
never waits on the database. A call that needs the database now (``add_feedback``,
``runs``) raises ``RunLogUnavailable`` within that bound, which the server answers with
a 503.

Nothing a reader typed is stored as typed: ``_insert`` masks the question, the standalone
question and the gaps (``masking.mask``), ``add_feedback`` the comment. Searches
(``askai_searches``, ``searches``) go through the same writer queue, their query masked. Retention
(``prune``) and erasure (``forget_run``, ``forget_thread``) delete in batches of at most
``DELETE_BATCH`` rows, each its own statement, so neither holds a long lock on a busy table.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from askai_graph.stores.runlog import rollups, searches
from askai_graph.stores.runlog.overview import Overview, RunQuery
from askai_graph.stores.runlog.record import Rating, RunRecord
from askai_graph.stores.runlog.searches import SearchRecord
from askai_graph.stores.sqlite_erasure import SECURE_DELETE
from askai_graph.text.masking import mask

if TYPE_CHECKING:
    # Imported on use: the grouping loads numpy and the stemmer, which opening a log does not need.
    from askai_graph.stores.runlog.coverage import PageUse

logger = logging.getLogger(__name__)

_POSTGRES = ("postgresql://", "postgres://")
POSTGRES_HINT = "a PostgreSQL run log needs the postgres extra: pip install 'askai-graph[postgres]'"
STORE_TIMEOUT_SECONDS = 2.0
"""The longest a run-log call waits for its database before calling it unavailable."""
_FIRST_RETRY_SECONDS, _LAST_RETRY_SECONDS = 0.5, 5.0
PENDING_LIMIT = 10_000
"""Answers kept in memory while the database is away (beyond it, the oldest is dropped)."""
WRITE_BATCH = 64
"""Queued answers written in one transaction at most."""
_JSON_FIELDS = ("gates", "failure_codes", "gaps", "cited_urls", "retrieved_urls", "source_urls", "stage_ms")
_COLUMNS = (
    "run_id", "created_at", "question", "standalone_question", "thread_id", "reader", "outcome", "attempts", "cached",
    *_JSON_FIELDS, "latency_ms", "rating", "comment", "search_id",
)  # fmt: skip
DELETE_BATCH = 1000
"""Rows one retention or erasure statement deletes at most."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS askai_runs (
    run_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    standalone_question TEXT NOT NULL,
    thread_id TEXT,
    reader TEXT,
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
    feedback_at TEXT,
    search_id TEXT
)
"""
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS askai_runs_created_at ON askai_runs (created_at)",
    "CREATE INDEX IF NOT EXISTS askai_runs_thread_id ON askai_runs (thread_id)",
    # Covers every column the dashboard's overview reads: its scans never touch the wide rows.
    "CREATE INDEX IF NOT EXISTS askai_runs_overview"
    " ON askai_runs (created_at, outcome, cached, rating, reader, latency_ms)",
    # The overview's exact percentiles read one latency bucket of the runs (``rollups``).
    "CREATE INDEX IF NOT EXISTS askai_runs_latency ON askai_runs (latency_ms, created_at)",
)
_ADDED_COLUMNS = {"reader": "TEXT", "search_id": "TEXT"}
"""Columns added since the table's first release: an older table gets them when opened."""


class RunLogError(RuntimeError):
    """The run log cannot be opened or written (a bad URL, a missing driver, a refused connection)."""


class RunLogUnavailable(RunLogError):
    """The run log's database is away for now (an outage, a restart): try again shortly."""

    retry_after_seconds = 5
    """What a client is told to wait (``Retry-After``)."""


class RunLog(Protocol):
    """A store of answered questions and the feedback on them."""

    def record(self, run: RunRecord) -> None:
        """Queue one answer for writing; return at once, never waiting on the database (the server calls it inline)."""
        ...

    def add_feedback(self, run_id: str, rating: Rating, comment: str | None) -> bool:
        """Attach the reader's rating (the latest wins); ``False`` when ``run_id`` is unknown."""
        ...

    def runs(self, since: datetime | None = None) -> list[RunRecord]:
        """Return the answers recorded at or after ``since`` (all when ``None``), oldest first."""
        ...

    def prune(self, before: datetime) -> int:
        """Delete the runs (and their feedback) recorded before ``before``; return how many."""
        ...

    def record_search(self, search: SearchRecord) -> None:
        """Store one search, or the result a reader opened (``searches``)."""
        ...

    def unfound_searches(self, since: datetime, limit: int) -> list[tuple[str, int]]:
        """Return ``(query, times)`` of the searches since ``since`` that found nothing, most frequent first."""
        ...

    def searches(self, since: datetime | None = None) -> list[SearchRecord]:
        """Return the searches (and clicks) logged at or after ``since`` (all when ``None``), oldest first."""
        ...

    def searched_then_fallback(self, since: datetime, limit: int) -> list[tuple[str, int]]:
        """Return ``(question, pages its search found)`` of the newest questions asked from a search, then fallback."""
        ...

    def prune_searches(self, before: datetime) -> int:
        """Delete the searches made before ``before``; return how many."""
        ...

    def overview(self, since: datetime) -> Overview:
        """Return the dashboard's overview of the runs recorded at or after ``since``."""
        ...

    def find(self, since: datetime, query: RunQuery) -> list[RunRecord]:
        """Return the newest runs since ``since`` that match ``query``, newest first."""
        ...

    def run(self, run_id: str) -> RunRecord | None:
        """Return one run, or ``None`` when unknown."""
        ...

    def unanswered(self, since: datetime, limit: int) -> list[RunRecord]:
        """Return the newest ``limit`` degraded or fallback runs since ``since``, oldest first."""
        ...

    def page_use(self, since: datetime, limit: int) -> PageUse:
        """Return how the newest ``limit`` answers since ``since`` cited and retrieved pages."""
        ...

    def forget_run(self, run_id: str) -> int:
        """Delete one run and its feedback; return how many rows went (0 or 1)."""
        ...

    def forget_thread(self, thread_id: str) -> int:
        """Delete every run of one conversation and its feedback; return how many."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


Connections = Callable[[], AbstractContextManager[Any]]
"""Lends one DB-API connection (autocommit) for the length of a ``with``."""


class SqlRunLog:
    """The run log over DB-API connections (sqlite3 or psycopg); see the module docstring."""

    def __init__(
        self,
        connections: Connections,
        placeholder: str,
        *,
        unavailable: tuple[type[BaseException], ...],
        close: Callable[[], None],
    ) -> None:
        """Borrow connections from ``connections``; ``placeholder`` is their parameter mark (``?``/``%s``).

        ``unavailable`` are the errors that mean "the database is away" rather than "this
        statement is wrong"; ``close`` releases every connection. The table must exist
        (``create_schema``).
        """
        self._connections = connections
        self._p = placeholder
        self._unavailable = unavailable
        self._close = close
        self._pending: deque[RunRecord | SearchRecord] = deque(maxlen=PENDING_LIMIT)
        self._queued = threading.Condition()  # guards _pending and _closing, wakes the writer
        self._writing = threading.Lock()  # one flush at a time, in order
        self._closing = False
        self._writer: threading.Thread | None = None

    @property
    def pending(self) -> int:
        """Answers waiting in memory to be written."""
        return len(self._pending)

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        try:
            with self._connections() as connection:
                # A peer that went silent without closing (a half-dead proxy, a partition the
                # kernel still ACKs) would hold the statement forever: its socket is shut down
                # after twice the bound, which the driver reports as a lost connection.
                with _watched(connection):
                    cursor = connection.cursor()
                    try:
                        yield cursor
                    finally:
                        cursor.close()
        except self._unavailable as exc:
            raise RunLogUnavailable(f"the run log's database is unavailable: {' '.join(str(exc).split())}") from exc

    @contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[Any]:
        """Lend a cursor inside one transaction: committed when the block ends, rolled back if it raises.

        SQLite's ``BEGIN IMMEDIATE`` takes the write lock at once (another process's writer
        waits its busy timeout); a PostgreSQL read sees one snapshot (``REPEATABLE READ``).
        """
        if self._p == "?":
            begin = "BEGIN IMMEDIATE" if write else "BEGIN"
        else:
            begin = "BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        with self._cursor() as cursor:
            cursor.execute(begin)
            try:
                yield cursor
            except BaseException:
                with contextlib.suppress(Exception):
                    cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")

    def record(self, run: RunRecord) -> None:
        """Queue one answer for writing (a repeated run id replaces nothing: the first stays).

        Returns at once: a writer thread stores it, and through an outage it waits in
        memory until the database is back, so no answer ever waits on the database.
        """
        self._queue(run)

    def record_search(self, search: SearchRecord) -> None:
        """Queue one search (or click) for writing, behind the answers: like ``record``, never waits."""
        self._queue(search)

    def _queue(self, run: RunRecord | SearchRecord) -> None:
        with self._queued:
            if len(self._pending) == self._pending.maxlen:
                logger.error("run log: %d answers wait for the database; the oldest is dropped", len(self._pending))
            self._pending.append(run)
            self._queued.notify()
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_pending, name="askai-run-log", daemon=True)
                self._writer.start()

    def flush(self, *, wait: float = STORE_TIMEOUT_SECONDS) -> int:
        """Write the queued answers, oldest first; return how many were written.

        Another flush in progress is waited for at most ``wait`` seconds (``-1``: as long
        as it takes, the writer's own choice): a reader's call must not queue its thread
        behind a write that is itself waiting on the database.

        Raises:
            RunLogUnavailable: the database is away, or another flush held on past ``wait``
                (what is left stays queued).
        """
        if not self._writing.acquire(timeout=wait):
            raise RunLogUnavailable(f"the run log's writer has waited on its database for over {wait:g}s")
        written = 0
        try:
            while True:
                with self._queued:
                    if not self._pending:
                        return written
                    batch = _leading_runs(self._pending) or [self._pending[0]]
                self._write(batch)
                with self._queued:
                    for _ in batch:
                        self._pending.popleft()
                written += len(batch)
        finally:
            self._writing.release()

    def _write(self, batch: list[RunRecord | SearchRecord]) -> None:
        """Write ``batch`` (answers together, in one transaction; or one search); a refused record is dropped.

        Under load the answers that queued while the last commit ran leave together: one
        commit for them all, not one each. If the database refuses the batch for one of
        its records (not for being away), each is tried alone so only that one is lost.

        Raises:
            RunLogUnavailable: the database is away (the batch stays queued).
        """
        try:
            if isinstance(batch[0], SearchRecord):
                with self._transaction() as cursor:
                    searches.insert(cursor, self._p, batch[0])
            else:
                self._insert(cast(list[RunRecord], batch))
            return
        except RunLogUnavailable:
            raise
        except Exception:
            if len(batch) == 1:
                # Refused for itself, not for the database being away: kept, it would hold
                # every later record behind it, and end the writer thread.
                logger.exception("run log: a record the database refused is dropped")
                return
        for run in batch:
            self._write([run])

    def _write_pending(self) -> None:
        backoff, outage = _FIRST_RETRY_SECONDS, False
        while True:
            with self._queued:
                while not self._pending and not self._closing:
                    self._queued.wait()
                if self._closing:
                    return  # close() writes what is left
            try:
                written = self.flush(wait=-1)
            except RunLogUnavailable as exc:
                if not outage:
                    logger.warning("%s; answers wait in memory until it is back", exc)
                outage = True
                with self._queued:
                    self._queued.wait(backoff)
                backoff = min(backoff * 2, _LAST_RETRY_SECONDS)
                continue
            if outage:
                logger.info("run log: the database is back; %d waiting answers written", written)
            backoff, outage = _FIRST_RETRY_SECONDS, False

    def _insert(self, runs: list[RunRecord]) -> None:
        """Insert ``runs`` and count them into the rollups, in one transaction (a repeated run id: the first stays)."""
        rows, counted = [], []
        for run in runs:
            data = run.model_dump(mode="json")
            data["question"] = mask(run.question)
            data["standalone_question"] = mask(run.standalone_question)
            data["gaps"] = [mask(gap) for gap in run.gaps]
            values = [json.dumps(data[c]) if c in _JSON_FIELDS else data[c] for c in _COLUMNS]
            values[_COLUMNS.index("cached")] = int(run.cached)
            rows.append((values, tuple(data[column] for column in rollups.ROW.split(", "))))
        placeholders = ", ".join([self._p] * len(_COLUMNS))
        sql = f"INSERT INTO askai_runs ({', '.join(_COLUMNS)}) VALUES ({placeholders}) ON CONFLICT (run_id) DO NOTHING"
        with self._transaction() as cursor:
            for values, row in rows:
                cursor.execute(sql, values)
                if cursor.rowcount == 1:
                    counted.append(row)
            if counted:
                rollups.counted(counted).write(cursor, self._p)

    def add_feedback(self, run_id: str, rating: Rating, comment: str | None) -> bool:
        """Attach the reader's rating (the latest wins); ``False`` when ``run_id`` is unknown.

        Raises:
            RunLogUnavailable: the database is away.
        """
        with self._queued:
            queued = any(isinstance(run, RunRecord) and run.run_id == run_id for run in self._pending)
        if queued:
            self.flush()  # its answer is still on its way (or waited out an outage)
        now = datetime.now(UTC).isoformat()
        p = self._p
        locked = "" if p == "?" else " FOR UPDATE"  # SQLite's BEGIN IMMEDIATE holds the whole file
        with self._transaction() as cursor:
            cursor.execute(f"SELECT created_at, outcome, rating FROM askai_runs WHERE run_id = {p}{locked}", (run_id,))
            found = cursor.fetchone()
            if found is None:
                return False
            cursor.execute(
                f"UPDATE askai_runs SET rating = {p}, comment = {p}, feedback_at = {p} WHERE run_id = {p}",
                (rating, None if comment is None else mask(comment), now, run_id),
            )
            changes = rollups.Rollups()
            changes.rate(found[0], found[1], found[2], rating)
            changes.write(cursor, p)
            return True

    def runs(self, since: datetime | None = None) -> list[RunRecord]:
        """Return the answers recorded at or after ``since`` (all when ``None``), oldest first."""
        sql = f"SELECT {', '.join(_COLUMNS)} FROM askai_runs"
        params: tuple[Any, ...] = ()
        if since is not None:
            sql += f" WHERE created_at >= {self._p}"
            params = (since.astimezone(UTC).isoformat(),)
        self.flush()
        with self._cursor() as cursor:
            cursor.execute(sql + " ORDER BY created_at", params)
            rows = cursor.fetchall()
        return [_record(row) for row in rows]

    def overview(self, since: datetime) -> Overview:
        """Return the dashboard's overview of the runs recorded at or after ``since`` (``runlog.overview``).

        Raises:
            RunLogUnavailable: the database is away.
        """
        self.flush()
        with self._transaction(write=False) as cursor:
            return rollups.overview(cursor, self._p, since)

    def find(self, since: datetime, query: RunQuery) -> list[RunRecord]:
        """Return at most ``query.limit`` runs since ``since`` matching ``query``, newest first.

        Raises:
            RunLogUnavailable: the database is away.
        """
        p = self._p
        where, params = [f"created_at >= {p}"], [since.astimezone(UTC).isoformat()]
        if query.outcome:
            where.append(f"outcome = {p}")
            params.append(query.outcome)
        if query.rating == "none":
            where.append("rating IS NULL")
        elif query.rating:
            where.append(f"rating = {p}")
            params.append(query.rating)
        if query.text:
            # The stored text is masked: a search for a pasted value finds nothing, by design.
            escaped = query.text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where.append(f"LOWER(question) LIKE {p} ESCAPE '\\'")
            params.append(f"%{escaped}%")
        sql = f"SELECT {', '.join(_COLUMNS)} FROM askai_runs WHERE {' AND '.join(where)}"
        sql += f" ORDER BY created_at DESC LIMIT {int(query.limit)}"
        self.flush()
        with self._cursor() as cursor:
            cursor.execute(sql, params)
            return [_record(row) for row in cursor.fetchall()]

    def run(self, run_id: str) -> RunRecord | None:
        """Return one run (``None`` when unknown).

        Raises:
            RunLogUnavailable: the database is away.
        """
        self.flush()
        with self._cursor() as cursor:
            cursor.execute(f"SELECT {', '.join(_COLUMNS)} FROM askai_runs WHERE run_id = {self._p}", (run_id,))
            row = cursor.fetchone()
        return None if row is None else _record(row)

    def unanswered(self, since: datetime, limit: int) -> list[RunRecord]:
        """Return the newest ``limit`` degraded or fallback runs since ``since``, oldest first (``coverage``).

        Raises:
            RunLogUnavailable: the database is away.
        """
        from askai_graph.stores.runlog.coverage import UNANSWERED

        p = self._p
        sql = (
            f"SELECT {', '.join(_COLUMNS)} FROM askai_runs WHERE created_at >= {p} AND outcome IN ({p}, {p})"
            f" ORDER BY created_at DESC LIMIT {int(limit)}"
        )
        self.flush()
        with self._cursor() as cursor:
            cursor.execute(sql, (since.astimezone(UTC).isoformat(), *UNANSWERED))
            rows = cursor.fetchall()
        return [_record(row) for row in reversed(rows)]

    def page_use(self, since: datetime, limit: int) -> PageUse:
        """Return how the newest ``limit`` answers since ``since`` cited and retrieved pages (``coverage``).

        Two columns of each run are read and parsed here: measured faster than unnesting
        the JSON lists in the database with a URL counted once an answer (``COUNT(DISTINCT)``
        took 4.2 s for 100k runs in SQLite, against 3.4 s parsed here), so the read is
        bounded by ``limit`` instead.

        Raises:
            RunLogUnavailable: the database is away.
        """
        from askai_graph.stores.runlog.coverage import page_use

        self.flush()
        with self._cursor() as cursor:
            cursor.execute(
                f"SELECT cited_urls, retrieved_urls FROM askai_runs WHERE created_at >= {self._p}"
                f" ORDER BY created_at DESC LIMIT {int(limit)}",
                (since.astimezone(UTC).isoformat(),),
            )
            rows = cursor.fetchall()
        return page_use((json.loads(cited), json.loads(retrieved)) for cited, retrieved in rows)

    def prune(self, before: datetime) -> int:
        """Delete the runs (and their feedback) recorded before ``before``, in batches; return how many.

        Raises:
            RunLogUnavailable: the database is away (what was deleted stays deleted).
        """
        self.flush()  # a queued answer is as old as any other
        return self._delete("created_at < " + self._p, before.astimezone(UTC).isoformat())

    def prune_searches(self, before: datetime) -> int:
        """Delete the searches made before ``before``, in batches of ``DELETE_BATCH``; return how many.

        Raises:
            RunLogUnavailable: the database is away (what was deleted stays deleted).
        """
        self.flush()
        sql, deleted = searches.delete_batch(self._p, DELETE_BATCH), 0
        while True:
            with self._transaction() as cursor:
                cursor.execute(sql, (before.astimezone(UTC).isoformat(),))
                count = int(cursor.rowcount)
            deleted += count
            if count < DELETE_BATCH:
                return deleted

    def searches(self, since: datetime | None = None) -> list[SearchRecord]:
        """Return the searches (and clicks) logged at or after ``since`` (all when ``None``), oldest first.

        Raises:
            RunLogUnavailable: the database is away.
        """
        self.flush()
        with self._cursor() as cursor:
            return searches.logged(cursor, self._p, since)

    def unfound_searches(self, since: datetime, limit: int) -> list[tuple[str, int]]:
        """Return ``(query, times)`` of the searches since ``since`` that found nothing, most frequent first.

        Raises:
            RunLogUnavailable: the database is away.
        """
        self.flush()
        with self._cursor() as cursor:
            return searches.unfound(cursor, self._p, since, limit)

    def searched_then_fallback(self, since: datetime, limit: int) -> list[tuple[str, int]]:
        """Return ``(question, pages its search found)`` of the newest questions since ``since`` asked from a search.

        Only those that ended in fallback.

        Raises:
            RunLogUnavailable: the database is away.
        """
        self.flush()
        with self._cursor() as cursor:
            return searches.asked_after(cursor, self._p, since, limit)

    def forget_run(self, run_id: str) -> int:
        """Delete one run and its feedback (one still queued is written first); return how many rows went."""
        self.flush()
        return self._delete("run_id = " + self._p, run_id)

    def forget_thread(self, thread_id: str) -> int:
        """Delete every run of conversation ``thread_id`` with its feedback (queued ones too); return how many."""
        self.flush()
        return self._delete("thread_id = " + self._p, thread_id)

    def _delete(self, condition: str, value: str) -> int:
        # ``IN (SELECT ... LIMIT n)``: SQLite and PostgreSQL both bound a DELETE this way.
        # What it returns is what the rollups uncount, in the same transaction, and the
        # searches the runs were asked from, which go with them (the reader's words too).
        sql = (
            f"DELETE FROM askai_runs WHERE run_id IN "
            f"(SELECT run_id FROM askai_runs WHERE {condition} LIMIT {DELETE_BATCH}) RETURNING {rollups.ROW}, search_id"
        )
        deleted = 0
        while True:
            with self._transaction() as cursor:
                cursor.execute(sql, (value,))
                rows = cursor.fetchall()
                rollups.counted([row[:-1] for row in rows], sign=-1).write(cursor, self._p)
                asked_from = [row[-1] for row in rows if row[-1] is not None]
                if asked_from:
                    marks = ", ".join([self._p] * len(asked_from))
                    cursor.execute(f"DELETE FROM askai_searches WHERE search_id IN ({marks})", asked_from)
            count = len(rows)
            deleted += count
            if count < DELETE_BATCH:
                return deleted

    def close(self) -> None:
        """Write what still waits if the database is there, then close every connection."""
        with self._queued:
            self._closing = True
            self._queued.notify_all()
        if self._writer is not None:
            self._writer.join(timeout=STORE_TIMEOUT_SECONDS * 2)
        try:
            self.flush()
        except RunLogUnavailable as exc:
            logger.error("%s; %d answers kept in memory are lost", exc, self.pending)
        self._close()


def _record(row: Any) -> RunRecord:
    """Return the record of one ``_COLUMNS`` row."""
    data = dict(zip(_COLUMNS, row, strict=True))
    for column in _JSON_FIELDS:
        data[column] = json.loads(data[column])
    data["cached"] = bool(data["cached"])
    return RunRecord.model_validate(data)


def _watchdog(connection: Any, seconds: float = STORE_TIMEOUT_SECONDS * 2) -> threading.Timer | None:
    """Start the timer that abandons ``connection``'s statement after ``seconds``; ``None`` for SQLite.

    SQLite has no socket to go silent, and its busy timeout bounds it already.
    """
    descriptor = getattr(getattr(connection, "pgconn", None), "socket", None)
    if not isinstance(descriptor, int) or descriptor < 0:
        return None
    timer = threading.Timer(seconds, _shut_down, (descriptor, seconds))
    timer.daemon = True
    timer.start()
    return timer


@contextmanager
def _watched(connection: Any, seconds: float = STORE_TIMEOUT_SECONDS * 2) -> Iterator[None]:
    """Abandon ``connection`` if what runs inside takes over ``seconds`` (see ``_watchdog``)."""
    watchdog = _watchdog(connection, seconds)
    try:
        yield
    finally:
        if watchdog is not None:
            watchdog.cancel()


def _shut_down(descriptor: int, seconds: float) -> None:
    """Shut down a PostgreSQL connection's socket from another thread (its statement then fails)."""
    logger.warning("run log: a statement outlived %gs; abandoning its connection", seconds)
    with contextlib.suppress(OSError):
        duplicate = socket.socket(fileno=os.dup(descriptor))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()


def create_schema(connection: Any) -> None:
    """Create the tables and indexes on ``connection`` if they do not exist; add what an older log lacks.

    One transaction: a run log from before the rollups gets them counted from its runs,
    once, even when several processes open it at the same time (SQLite's write lock;
    PostgreSQL callers hold the schema lock too).
    """
    sqlite = isinstance(connection, sqlite3.Connection)
    cursor = connection.cursor()
    try:
        cursor.execute("BEGIN IMMEDIATE" if sqlite else "BEGIN")
        cursor.execute(_SCHEMA)
        cursor.execute("SELECT * FROM askai_runs WHERE 1 = 0")
        present = {column[0] for column in cursor.description}
        for column, kind in _ADDED_COLUMNS.items():
            if column not in present:
                cursor.execute(f"ALTER TABLE askai_runs ADD COLUMN {column} {kind}")
        for index in _INDEXES:
            cursor.execute(index)
        cursor.execute(searches.SCHEMA)
        for index in searches.INDEXES:
            cursor.execute(index)
        if sqlite:
            cursor.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (rollups.NEWEST,))
        else:
            cursor.execute("SELECT CASE WHEN to_regclass(%s) IS NULL THEN 0 ELSE 1 END", (rollups.NEWEST,))
        counted = bool(cursor.fetchone()[0])
        for table in rollups.TABLES:
            cursor.execute(table)
        if not counted:
            rollups.rebuild(cursor, "?" if sqlite else "%s")
        cursor.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            cursor.execute("ROLLBACK")
        raise
    finally:
        cursor.close()


def open_run_log(url: str) -> SqlRunLog:
    """Open (and create if needed) the run log at ``sqlite:///path`` or ``postgresql://...``.

    Raises:
        RunLogError: an unknown URL form, a missing driver, or a database that refuses.
    """
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return _open_sqlite(Path(url.removeprefix("sqlite:///")).expanduser())
    if url.startswith(_POSTGRES):
        return _open_postgres(url)
    raise RunLogError(f"database URL must be sqlite:///path or postgresql://..., got {url!r}")


def _open_sqlite(path: Path) -> SqlRunLog:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit, one shared connection guarded by a lock; the busy timeout lets it
        # share the file with the threads checkpointer.
        shared = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        shared.execute("PRAGMA journal_mode=WAL")
        shared.execute(SECURE_DELETE)
        create_schema(shared)
    except (OSError, sqlite3.Error) as exc:
        raise RunLogError(f"cannot open the run log {path}: {exc}") from exc
    lock = threading.Lock()

    @contextmanager
    def connection() -> Iterator[sqlite3.Connection]:
        with lock:
            yield shared

    def close() -> None:
        # Under the lock: closing the connection while a read still runs on it crashes SQLite.
        with lock:
            shared.close()

    return SqlRunLog(connection, "?", unavailable=(sqlite3.OperationalError,), close=close)


def _open_postgres(url: str) -> SqlRunLog:
    try:
        import psycopg
        from psycopg_pool import ConnectionPool, PoolTimeout
    except ImportError as exc:
        raise RunLogError(POSTGRES_HINT) from exc
    from askai_graph.stores.schema_lock import SchemaLockTimeout, schema_lock

    armed = False
    timeout = STORE_TIMEOUT_SECONDS
    # Each connection is checked before it is lent (a restarted server leaves dead ones
    # behind); a lost server is reconnected to in the background for as long as it takes.
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=4,
        kwargs={
            "autocommit": True,
            "connect_timeout": max(1, round(timeout)),
            # A statement the server holds (a lock, a failover) and a peer that went silent
            # both end within the bound, instead of hanging the writer for the outage.
            "options": f"-c statement_timeout={int(timeout * 1000)} -c lock_timeout={int(timeout * 1000)}",
            "tcp_user_timeout": int(timeout * 1000),
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 2,
        },
        check=_check,
        # A database dropped and created again while the server runs gets its table back
        # (checked once start-up has created it, so that start-up reports its own errors).
        configure=lambda connection: _ensure_table(connection) if armed else None,
        timeout=timeout,
        reconnect_timeout=0,
        open=False,
    )
    try:
        pool.open(wait=True, timeout=timeout * 5)
        with pool.connection() as connection, schema_lock(connection):
            create_schema(connection)
    except (psycopg.Error, PoolTimeout, SchemaLockTimeout) as exc:
        pool.close()
        raise _open_error(exc) from exc
    armed = True
    return SqlRunLog(pool.connection, "%s", unavailable=(psycopg.OperationalError, PoolTimeout), close=pool.close)


def _check(connection: Any) -> None:
    """The pool's check of a connection before lending it, abandoned after the bound.

    The pool's own check waits on the peer as long as it takes: a connection whose peer
    went silent would hold the run log's writer, and every reader's call queued behind it.
    """
    from psycopg_pool import ConnectionPool

    with _watched(connection, STORE_TIMEOUT_SECONDS):
        ConnectionPool.check_connection(connection)


def _ensure_table(connection: Any) -> None:
    """Create the table through a new ``connection`` if its database has none (one catalog lookup)."""
    from askai_graph.stores.schema_lock import LOCK_TIMEOUT, schema_lock

    with _watched(connection):
        cursor = connection.cursor()
        try:
            tables = "to_regclass('askai_runs') IS NOT NULL AND to_regclass('askai_searches') IS NOT NULL"
            present = cursor.execute(f"SELECT {tables}").fetchone()[0]
        finally:
            cursor.close()
    if not present:
        # The lock may be another process' for a while; what runs under it is bounded.
        with _watched(connection, LOCK_TIMEOUT + STORE_TIMEOUT_SECONDS * 2), schema_lock(connection):
            create_schema(connection)


def _open_error(exc: Exception) -> RunLogError:
    return RunLogError(f"cannot open the run log: {' '.join(str(exc).split())}")


def _leading_runs(pending: deque[RunRecord | SearchRecord]) -> list[RunRecord | SearchRecord]:
    """Return the answers at the head of ``pending`` (up to ``WRITE_BATCH``), stopping at the first search."""
    batch: list[RunRecord | SearchRecord] = []
    for record in pending:
        if not isinstance(record, RunRecord) or len(batch) == WRITE_BATCH:
            break
        batch.append(record)
    return batch
