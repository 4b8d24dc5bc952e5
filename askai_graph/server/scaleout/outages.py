"""Which failures mean "the threads database is unreachable", answered with a 503 rather than a 500.

A request that needs a thread (all of them: a new question starts one) cannot be
answered while PostgreSQL (or the SQLite file) cannot be reached; the client gets
``503`` with ``{"detail"}`` and ``Retry-After`` and may try again, and the server logs
the cause. Connections come back by themselves when the database does (the pool
reconnects). With ``--graph-url`` the threads live on the LangGraph Server, whose
outage is answered the same way.
"""

from __future__ import annotations

import logging
import sqlite3

import httpx

logger = logging.getLogger(__name__)

THREADS_UNREACHABLE = "the threads database is unreachable; retry shortly"
"""The ``detail`` of the 503."""


class ThreadsUnreachable(RuntimeError):
    """The threads database did not answer within a request's bound (``leases.CLAIM_SECONDS``)."""


def database_outage(exc: BaseException) -> bool:
    """Say whether ``exc`` is the threads database being unreachable (logged when it is)."""
    outage = isinstance(exc, sqlite3.OperationalError | ThreadsUnreachable)
    try:
        import psycopg
    except ImportError:  # the postgres extra is not installed: only SQLite can fail
        pass
    else:
        # OperationalError covers a refused or dropped connection and the pool's timeout.
        outage = outage or isinstance(exc, psycopg.OperationalError)
    # Threads on a LangGraph Server (``--graph-url``): a refused connection, a timeout or a 5xx.
    outage = outage or isinstance(exc, httpx.TransportError)
    outage = outage or (isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code >= 500)
    if outage:
        logger.warning("threads database unreachable: %s", exc)
    return outage
