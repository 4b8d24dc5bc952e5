"""The server deletes run-log rows older than ``runlog_retention_days``, in the background.

One resource of the app's lifespan: a task that, at start and every
``RETENTION_EVERY_SECONDS`` after, calls the run log's ``prune`` and ``prune_searches``
(bounded batches) in the bookkeeping pool, cancelled when the app stops. A failing pass
(a database outage) is logged and tried again at the next one. ``runlog_retention_days = 0`` keeps runs forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

from askai_graph.server.guards.pools import bookkeeping
from askai_graph.server.housekeeping.background import background
from askai_graph.stores.runlog import RunLog

logger = logging.getLogger(__name__)

RETENTION_EVERY_SECONDS = 3600.0
"""How often expired runs are looked for (a day's retention is never overshot by more than this)."""


async def expire_once(run_log: RunLog, days: float, now: datetime | None = None) -> int:
    """Delete the runs older than ``days`` (and their feedback) and the searches; return how many runs."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
    deleted = await bookkeeping(run_log.prune, cutoff)
    searches = await bookkeeping(run_log.prune_searches, cutoff)
    if searches:
        logger.info("run log: %d searches older than %g days deleted", searches, days)
    return deleted


async def expire_forever(run_log: RunLog, days: float, every: float = RETENTION_EVERY_SECONDS) -> None:
    """Run ``expire_once`` now and every ``every`` seconds until cancelled."""
    while True:
        try:
            deleted = await expire_once(run_log, days)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("run-log retention failed; trying again in %gs", every)
        else:
            if deleted:
                logger.info("run log: %d runs older than %g days deleted", deleted, days)
        await asyncio.sleep(every)


@contextlib.asynccontextmanager
async def retention(run_log: RunLog | None, days: float) -> AsyncIterator[None]:
    """Expire ``run_log``'s old runs while the app runs (nothing when there is no log or ``days`` is 0)."""
    if run_log is None or not days:
        yield
        return
    async with background(expire_forever(run_log, days), "askai-runlog-retention"):
        yield
