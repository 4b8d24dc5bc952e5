"""Expired threads leave the database: found in one query, deleted in the background.

A thread expires ``thread_ttl_hours`` after its last checkpoint (``threads.status_of``).
Deleting it only when someone continues it would keep every reader's questions forever,
about 20 KB a question, beyond the time the README promises. ``prune_expired`` finds
the expired threads of a checkpointer and deletes each with the checkpointer's own
``adelete_thread`` (checkpoints, writes and blobs alike); ``prune_forever`` runs it
every ``interval`` seconds for the life of a server.

The age of a thread is read from its newest checkpoint id: LangGraph issues them as
UUID version 6, whose first 60 bits are the creation time and which sort by it, so one
``GROUP BY`` over the checkpoints table (the same in SQLite and PostgreSQL) gives every
thread's last activity without loading a checkpoint.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

logger = logging.getLogger(__name__)

_LATEST = "SELECT thread_id, MAX(checkpoint_id) AS latest FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id"
_GREGORIAN_TO_UNIX_SECONDS = 12_219_292_800


@dataclass
class PruneCounts:
    """What pruning has done since the server started (shown on ``/healthz``)."""

    pruned: int = 0
    """Expired threads deleted."""
    runs: int = 0
    """Passes made."""
    last_at: str | None = None
    """When the last pass ended (ISO-8601 UTC)."""


def checkpoint_time(checkpoint_id: str) -> datetime | None:
    """Return when a LangGraph checkpoint id (a UUID version 6) was made; ``None`` for other ids."""
    try:
        value = uuid.UUID(checkpoint_id)
    except ValueError:
        return None
    if value.version != 6:
        return None
    bits = value.int
    ticks = ((bits >> 96) << 28) | (((bits >> 80) & 0xFFFF) << 12) | ((bits >> 64) & 0x0FFF)
    return datetime.fromtimestamp(ticks / 10_000_000 - _GREGORIAN_TO_UNIX_SECONDS, UTC)


async def prune_expired(checkpointer: Any, ttl_hours: float, now: datetime | None = None) -> int:
    """Delete every thread of ``checkpointer`` idle for more than ``ttl_hours``; return how many."""
    cutoff = (now or datetime.now(UTC)) - timedelta(hours=ttl_hours)
    expired = [thread for thread, last in await _latest_activity(checkpointer) if last is not None and last < cutoff]
    for thread_id in expired:
        await checkpointer.adelete_thread(thread_id)
    return len(expired)


async def prune_forever(checkpointer: Any, ttl_hours: float, interval: float, counts: PruneCounts) -> None:
    """Prune every ``interval`` seconds until cancelled; a failing pass is logged and retried."""
    while True:
        try:
            pruned = await prune_expired(checkpointer, ttl_hours)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("thread pruning failed; trying again in %gs", interval)
        else:
            counts.pruned += pruned
            counts.runs += 1
            counts.last_at = datetime.now(UTC).isoformat()
            if pruned:
                logger.info("pruned %d expired threads", pruned)
        await asyncio.sleep(interval)


async def _latest_activity(checkpointer: Any) -> list[tuple[str, datetime | None]]:
    """Every thread of ``checkpointer`` with the time of its newest checkpoint."""
    module = type(checkpointer).__module__
    if module.startswith("langgraph.checkpoint.sqlite"):
        async with checkpointer.lock, checkpointer.conn.execute(_LATEST) as cursor:
            rows = [(thread, latest) for thread, latest in await cursor.fetchall()]
    elif module.startswith("langgraph.checkpoint.postgres"):
        async with checkpointer._cursor() as cursor:  # the saver's own connection or pool
            await cursor.execute(_LATEST)
            rows = [(row["thread_id"], row["latest"]) for row in await cursor.fetchall()]
    else:  # an in-memory saver: small by nature, listed through the public API
        newest: dict[str, str] = {}
        async for item in checkpointer.alist(None):
            thread = item.config["configurable"]["thread_id"]
            checkpoint_id = item.config["configurable"]["checkpoint_id"]
            newest[thread] = max(newest.get(thread, ""), checkpoint_id)
        rows = list(newest.items())
    return [(str(thread), checkpoint_time(str(latest))) for thread, latest in rows]
