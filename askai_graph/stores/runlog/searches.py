"""The search log: one row per search ``GET /api/search`` answered, and the result a reader opened.

Kept beside the runs in the run log's database (``askai_searches``) and written by the
same writer thread (``store``): a search never waits on the database. The query is
stored masked (``masking.mask``), the reader only as the keyed hash the runs keep. A
click (``POST /api/search/click``) marks the reader's newest unclicked search of the same
query; with none logged (pruned, or answered from the browser's cache) it is a row of
its own with no result count.

A question asked from the launcher names the search it was asked from (its text, as
typed): that row is the question's, not a search the reader settled on, so the views
count it as a question (``unfound`` leaves it out) and show it once (``asked_after``).

The SQL here is the same for SQLite and PostgreSQL; ``p`` is the driver's parameter mark.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from askai_graph.text.masking import mask

SCHEMA = """
CREATE TABLE IF NOT EXISTS askai_searches (
    search_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    query TEXT NOT NULL,
    result_count INTEGER,
    clicked_url TEXT,
    reader TEXT
)
"""
INDEXES = (
    "CREATE INDEX IF NOT EXISTS askai_searches_created_at ON askai_searches (created_at)",
    "CREATE INDEX IF NOT EXISTS askai_searches_reader_query ON askai_searches (reader, query, created_at)",
)


class SearchRecord(BaseModel):
    """One search a reader made, or one result a reader opened (``clicked_url``)."""

    model_config = ConfigDict(frozen=True)

    query: str
    """What the reader typed (masked once stored)."""
    result_count: int | None = None
    """Pages the search returned; ``None`` on a click."""
    clicked_url: str | None = None
    """The result the reader opened; ``None`` on a search."""
    reader: str | None = None
    """The keyed hash of the reader's client address (``stores.readers``)."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When it happened (UTC)."""
    search_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    """The row's key."""


def stored_query(query: str) -> str:
    """Return ``query`` as it is stored and compared: masked, spaces collapsed."""
    return mask(" ".join(query.split()))


def insert(cursor: Any, p: str, search: SearchRecord) -> None:
    """Store one search, or attach one click to the reader's newest unclicked search of the same query."""
    query, at = stored_query(search.query), search.created_at.astimezone(UTC).isoformat()
    # The opened URL is the site's, but its fragment is the reader's: a ``#:~:text=`` carries what they quoted.
    clicked = None if search.clicked_url is None else mask(search.clicked_url)
    if clicked is not None:
        reader = "reader IS NULL" if search.reader is None else f"reader = {p}"
        cursor.execute(
            f"UPDATE askai_searches SET clicked_url = {p} WHERE search_id IN (SELECT search_id FROM askai_searches"
            f" WHERE {reader} AND query = {p} AND clicked_url IS NULL AND result_count IS NOT NULL"
            " ORDER BY created_at DESC LIMIT 1)",
            (clicked, *([] if search.reader is None else [search.reader]), query),
        )
        if cursor.rowcount == 1:
            return
    cursor.execute(
        "INSERT INTO askai_searches (search_id, created_at, query, result_count, clicked_url, reader)"
        f" VALUES ({p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (search_id) DO NOTHING",
        (search.search_id, at, query, search.result_count, clicked, search.reader),
    )


def unfound(cursor: Any, p: str, since: datetime, limit: int) -> list[tuple[str, int]]:
    """Return ``(query, times)`` of the searches since ``since`` that found nothing, most frequent first.

    A search a question was asked from is that question (its text): not counted here.
    """
    cursor.execute(
        f"SELECT query, COUNT(*) FROM askai_searches s WHERE created_at >= {p} AND result_count = 0"
        " AND NOT EXISTS (SELECT 1 FROM askai_runs r WHERE r.search_id = s.search_id)"
        f" GROUP BY query ORDER BY COUNT(*) DESC, query LIMIT {int(limit)}",
        (since.astimezone(UTC).isoformat(),),
    )
    return [(str(query), int(count)) for query, count in cursor.fetchall()]


def asked_after(cursor: Any, p: str, since: datetime, limit: int) -> list[tuple[str, int]]:
    """Return ``(question, pages found)`` of the newest questions since ``since`` asked from a search, then fallback.

    A question asked from the launcher names its search (``RunRecord.search_id``): the
    reader typed it, saw the pages the search found (maybe none), asked, and got no
    answer either. The search's text is the question's, so only its page count is shown.
    """
    cursor.execute(
        "SELECT r.question, s.result_count FROM askai_runs r JOIN askai_searches s ON s.search_id = r.search_id"
        f" WHERE r.created_at >= {p} AND r.outcome = 'fallback' ORDER BY r.created_at DESC LIMIT {int(limit)}",
        (since.astimezone(UTC).isoformat(),),
    )
    return [(str(question), int(found or 0)) for question, found in cursor.fetchall()]


def logged(cursor: Any, p: str, since: datetime | None) -> list[SearchRecord]:
    """Return the searches logged at or after ``since`` (all when ``None``), oldest first."""
    sql = "SELECT search_id, created_at, query, result_count, clicked_url, reader FROM askai_searches"
    params: tuple[str, ...] = ()
    if since is not None:
        sql, params = sql + f" WHERE created_at >= {p}", (since.astimezone(UTC).isoformat(),)
    cursor.execute(sql + " ORDER BY created_at", params)
    columns = ("search_id", "created_at", "query", "result_count", "clicked_url", "reader")
    return [SearchRecord.model_validate(dict(zip(columns, row, strict=True))) for row in cursor.fetchall()]


def delete_batch(p: str, batch: int) -> str:
    """Return the statement deleting at most ``batch`` searches made before its one parameter."""
    return (
        "DELETE FROM askai_searches WHERE search_id IN "
        f"(SELECT search_id FROM askai_searches WHERE created_at < {p} LIMIT {int(batch)})"
    )
