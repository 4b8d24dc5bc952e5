"""Leases on threads: which thread a ``POST /api/chat`` runs on, a new one or a live one nobody else is answering on.

A request without ``thread_id`` gets a new thread and its ``thread_token``. With one, the
checkpointer must hold it under that id and token (``stores.thread_tokens``) and it must
not have expired (else 404: ``thread_id`` is then meaningless to this server; a missing or
wrong token is refused exactly like an id nobody issued), and no other answer on it may
still be streaming (else 409: two runs on one thread would interleave their turns).

"Still streaming" is a *lease* on the thread, held from the request to the end of its
stream. Where threads live in PostgreSQL, leases live there too (``PostgresLeaseStore``,
a table next to the checkpoints), so several server processes sharing the database
refuse each other's concurrent requests; otherwise they are kept in process
(``InMemoryLeaseStore``). A lease is short (``thread_lease_renew_seconds``) and renewed
while the answer streams, up to ``thread_lease_seconds`` in all: a process that died
mid-answer frees its thread within one renewal, and a 409 says when to try again
(``Retry-After``).

In process, a lease's expiry and its renewals keep one time: the running event loop's
clock (``loop.time()``, monotonic), which times the renewals anyway. A test that runs
the leases on a loop whose clock is virtual sees minutes of holds pass in no time.
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from askai_graph.server.answers.thread_run import ThreadRun
from askai_graph.server.guards.request import BadRequest
from askai_graph.server.scaleout.outages import ThreadsUnreachable
from askai_graph.settings import Settings
from askai_graph.stores.thread_tokens import checkpoint_thread, new_thread_token
from askai_graph.stores.threads import new_run_id, new_thread_id, thread_status

logger = logging.getLogger(__name__)

STREAMING = (
    "an answer on this thread_id is still streaming, or the server answering it stopped mid-answer; "
    "retry in {seconds} s (the thread is free once that answer ends or its lease lapses)"
)
"""The 409's words: after a crash no ``done`` event will come, but the lease lapses within one renewal."""
CLAIM_SECONDS = 1.0
"""The longest a request waits for PostgreSQL threads to check and lease its thread.

Past it the database counts as away (a 503 with ``Retry-After``), however the wait was
spent: the pool's own bound (``checkpoints.OUTAGE_TIMEOUT``) is per connection, and the
PostgreSQL checkpointer runs one statement at a time, so requests queued behind each
other would otherwise add their waits up. A SQLite file cannot go away like a server:
a claim on it waits its turn (under load, a soak measured such waits past a second)."""


def utc_now() -> datetime:
    """Return the wall clock's time now, in UTC (a thread's age is measured on it)."""
    return datetime.now(UTC)


def _now() -> float:
    """Return the running event loop's clock, which times the renewals too (see the module docstring)."""
    return asyncio.get_running_loop().time()


class LeaseStore(Protocol):
    """Where leases on threads live."""

    async def acquire(self, thread_id: str, seconds: float) -> str | None:
        """Return a new lease token, or ``None`` while another unexpired lease holds the thread."""
        ...

    async def release(self, thread_id: str, token: str) -> None:
        """End the lease ``token`` (a no-op if it already ended or was taken over)."""
        ...

    async def renew(self, thread_id: str, token: str, seconds: float) -> None:
        """Extend the lease ``token`` holds to ``seconds`` from now (a no-op if it ended)."""
        ...


class InMemoryLeaseStore:
    """Leases of this process only."""

    def __init__(self) -> None:
        """Start with no leases."""
        self._leases: dict[str, tuple[str, float]] = {}

    async def acquire(self, thread_id: str, seconds: float) -> str | None:
        """Take the thread unless an unexpired lease holds it."""
        held = self._leases.get(thread_id)
        if held is not None and held[1] > _now():
            return None
        token = uuid.uuid4().hex
        self._leases[thread_id] = (token, _now() + seconds)
        return token

    async def release(self, thread_id: str, token: str) -> None:
        """Drop the lease if ``token`` still holds it."""
        if self._leases.get(thread_id, ("",))[0] == token:
            del self._leases[thread_id]

    async def renew(self, thread_id: str, token: str, seconds: float) -> None:
        """Extend the lease ``token`` holds to ``seconds`` from now."""
        if self._leases.get(thread_id, ("",))[0] == token:
            self._leases[thread_id] = (token, _now() + seconds)


class PostgresLeaseStore:
    """Leases in a PostgreSQL table, shared by every process on the database."""

    _SETUP = """CREATE TABLE IF NOT EXISTS askai_thread_leases (
        thread_id text PRIMARY KEY, lease text NOT NULL, expires_at timestamptz NOT NULL)"""
    # Insert, or take over an expired lease; a row comes back only when the lease is ours.
    _ACQUIRE = """INSERT INTO askai_thread_leases (thread_id, lease, expires_at)
        VALUES (%s, %s, now() + make_interval(secs => %s))
        ON CONFLICT (thread_id) DO UPDATE SET lease = EXCLUDED.lease, expires_at = EXCLUDED.expires_at
        WHERE askai_thread_leases.expires_at < now()
        RETURNING lease"""
    _RELEASE = "DELETE FROM askai_thread_leases WHERE thread_id = %s AND lease = %s"
    _RENEW = """UPDATE askai_thread_leases SET expires_at = now() + make_interval(secs => %s)
        WHERE thread_id = %s AND lease = %s"""

    def __init__(self, pool: Any) -> None:
        """Use connections of ``pool`` (a psycopg ``AsyncConnectionPool``)."""
        self.pool = pool
        self._ready = False

    async def acquire(self, thread_id: str, seconds: float) -> str | None:
        """Take the thread unless an unexpired lease holds it (in any process)."""
        from psycopg.errors import UndefinedTable

        token = uuid.uuid4().hex
        async with self.pool.connection() as connection:
            try:
                row = await self._acquire(connection, thread_id, token, seconds)
            except UndefinedTable:
                # The database was dropped and created again while this process ran: the
                # table is made anew, like the checkpointer's (``checkpoints.ensure_schema``).
                self._ready = False
                row = await self._acquire(connection, thread_id, token, seconds)
        return token if row is not None else None

    async def _acquire(self, connection: Any, thread_id: str, token: str, seconds: float) -> Any:
        if not self._ready:
            # Concurrent CREATE TABLE IF NOT EXISTS race (a duplicate-type error): the
            # first requests of every process take turns under a transaction lock.
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock(hashtext('askai_thread_leases'))")
                await connection.execute(self._SETUP)
            self._ready = True
        return await (await connection.execute(self._ACQUIRE, (thread_id, token, seconds))).fetchone()

    async def release(self, thread_id: str, token: str) -> None:
        """Drop the lease if ``token`` still holds it."""
        async with self.pool.connection() as connection:
            await connection.execute(self._RELEASE, (thread_id, token))

    async def renew(self, thread_id: str, token: str, seconds: float) -> None:
        """Extend the lease ``token`` holds to ``seconds`` from now."""
        async with self.pool.connection() as connection:
            await connection.execute(self._RENEW, (seconds, thread_id, token))


def lease_store_for(checkpointer: Any) -> LeaseStore:
    """Return a store shared like the checkpointer: PostgreSQL's own pool, else this process."""
    pool = getattr(checkpointer, "conn", None)
    if type(checkpointer).__name__ == "AsyncPostgresSaver" and hasattr(pool, "connection"):
        return PostgresLeaseStore(pool)
    return InMemoryLeaseStore()


class ThreadLeases:
    """Hand out threads for requests, at most one streaming answer per thread."""

    def __init__(self, settings: Settings, *, clock: Callable[[], datetime] = utc_now) -> None:
        """Use ``settings`` for the expiry, the lease length and the history bound.

        ``clock`` tells the time a thread's age is measured at (its last checkpoint's
        time is the wall clock's, so this one is too).
        """
        self.settings = settings
        self._clock = clock
        self._stores: dict[int, LeaseStore] = {}

    def store(self, graph: Any) -> LeaseStore:
        """Return the lease store for ``graph``'s checkpointer (made once per checkpointer)."""
        checkpointer = getattr(graph, "checkpointer", None)
        key = id(checkpointer)
        if key not in self._stores:
            self._stores[key] = lease_store_for(checkpointer)
        return self._stores[key]

    async def _renew(self, store: LeaseStore, thread_id: str, token: str, hold: float, deadline: float) -> None:
        """Renew the lease now and every half ``hold`` until released, up to ``deadline`` (``_now``)."""
        while (left := deadline - _now()) > 0:
            try:
                await store.renew(thread_id, token, min(hold, left))
            except Exception:
                logger.warning("could not renew the lease of thread %s", thread_id, exc_info=True)
            await asyncio.sleep(hold / 2)

    async def claim(
        self, graph: Any, thread_id: str | None, thread_token: str | None = None
    ) -> tuple[ThreadRun, Callable[[], Awaitable[None]]]:
        """Return the thread to run on and the coroutine function that releases it (idempotent).

        Raises:
            BadRequest: 404 for an unknown or expired thread (or the wrong token), 409 for a busy one.
            ThreadsUnreachable: PostgreSQL did not answer within ``CLAIM_SECONDS``.
        """
        bound = CLAIM_SECONDS if isinstance(self.store(graph), PostgresLeaseStore) else None
        try:
            async with asyncio.timeout(bound):
                return await self._claim(graph, thread_id, thread_token)
        except TimeoutError:
            # A lease taken just before the bound expires by itself within one renewal.
            raise ThreadsUnreachable(f"no answer from the threads database within {CLAIM_SECONDS:g}s") from None

    async def _claim(
        self, graph: Any, thread_id: str | None, thread_token: str | None
    ) -> tuple[ThreadRun, Callable[[], Awaitable[None]]]:
        fresh = thread_id is None
        if thread_id is None:
            thread_id, thread_token = new_thread_id(), new_thread_token()
        elif getattr(graph, "checkpointer", None) is not None:
            # Without its token the id names a key no thread has: the unknown thread's path and body.
            key = checkpoint_thread(thread_id, thread_token or "")
            status = await thread_status(graph, key, self.settings.thread_ttl_hours, self._clock())
            if status != "active":
                raise BadRequest(
                    404, f"thread_id is {status}; send the message without thread_id to start a new conversation"
                )
        store = self.store(graph)
        # A short lease, renewed while the answer streams: a process that dies holding it
        # (SIGKILL, OOM) frees the thread within one renewal, not after thread_lease_seconds.
        hold = min(self.settings.thread_lease_renew_seconds, self.settings.thread_lease_seconds)
        token = await store.acquire(thread_id, hold)
        if token is None:
            wait = max(1, math.ceil(hold / 2))
            raise BadRequest(409, STREAMING.format(seconds=wait), retry_after=wait)
        # Most answers end before their first renewal is due: a timer, not a task per request,
        # starts the renewals of one that lasts.
        renewing: list[asyncio.Task[None]] = []
        deadline = _now() + self.settings.thread_lease_seconds

        def renew() -> None:
            renewing.append(asyncio.create_task(self._renew(store, thread_id, token, hold, deadline)))

        due = asyncio.get_running_loop().call_later(hold / 2, renew)

        async def release() -> None:
            due.cancel()
            for task in renewing:
                task.cancel()
            try:
                await store.release(thread_id, token)
            except Exception:
                # The stream has ended; a lease the database cannot drop now (an outage)
                # expires by itself within one renewal.
                logger.warning("could not release the lease of thread %s", thread_id, exc_info=True)

        run = ThreadRun(
            thread_id, new_run_id(), self.settings.max_history_turns, token=thread_token or "", fresh=fresh
        )
        return run, release
