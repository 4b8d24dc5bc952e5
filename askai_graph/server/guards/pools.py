"""Two thread pools: one for blocking collaborators, one for the server's bookkeeping.

Why two: a collaborator's blocking call (a sync retriever, a sync chat model, an
embedding model, the offline roles' heavier work) runs in a worker thread, and one that
hangs holds its thread for as long as it hangs. When the run log's write, a rating or
the cache's embedding of a question waited for a thread of that same pool, eight hung
retriever calls kept every later answer's ``done`` (and the tokens buffered before it)
from leaving, long after its deadline had turned it into a fallback.

- **Collaborators** get the event loop's default executor, which ``collaborators``
  (a resource of the app's lifespan) replaces with a bounded pool of
  ``collaborator_threads`` threads named ``askai-collaborator``: ``asyncio.to_thread``
  and LangChain's ``run_in_executor(None, ...)`` (a sync retriever's or model's async
  path) land there, whoever wrote the collaborator. A question waiting for one of its
  threads is still bounded by its deadline (``run``).
- **Bookkeeping** (the run log's reads, feedback, the cache's own embedding,
  ``llms.txt``) runs through ``bookkeeping(...)`` in a separate pool of ``BOOKKEEPING_THREADS`` threads
  named ``askai-bookkeeping``, which no collaborator call ever enters. Between an
  answer's last gate and its ``done`` the server waits on it at most
  ``SETTLE_SECONDS`` (``settle``): past that, ``done`` leaves and the write finishes
  on its own. An answer's run-log record takes no thread: ``RunLog.record`` only
  queues it for the run log's own writer thread (``server.answers.recording``).

A store reached by host name (not an address) resolves it with ``loop.getaddrinfo``,
which uses the default executor: give such stores an address when collaborators may hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

BOOKKEEPING_THREADS = 8
"""Threads of the bookkeeping pool: its calls are short or bounded by their store (2 s)."""
SETTLE_SECONDS = 1.0
"""The longest an answer's ``done`` waits on bookkeeping before leaving without it."""

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _bookkeeping_pool() -> ThreadPoolExecutor:
    """The process' bookkeeping pool, made on first use (shared by every app in the process)."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(BOOKKEEPING_THREADS, thread_name_prefix="askai-bookkeeping")
        return _pool


async def bookkeeping(function: Callable[..., T], *args: Any) -> T:
    """Run the blocking ``function(*args)`` in the bookkeeping pool, never the collaborators'."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_bookkeeping_pool(), functools.partial(function, *args))


async def settle(work: Awaitable[Any], seconds: float = SETTLE_SECONDS, *, what: str) -> bool:
    """Wait at most ``seconds`` for ``work``; past that, let it finish on its own and return ``False``.

    Unlike ``asyncio.wait_for``, the work is not cancelled: a run-log write that is late
    is still written. Its failure is logged (``what`` names it), never raised.
    """
    task = asyncio.ensure_future(work)
    task.add_done_callback(functools.partial(_log_failure, what))
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        logger.warning("%s is taking over %gs; the answer is sent without waiting for it", what, seconds)
    return bool(done)


def _log_failure(what: str, task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("%s failed", what, exc_info=task.exception())


@contextlib.asynccontextmanager
async def collaborators(threads: int) -> AsyncIterator[ThreadPoolExecutor]:
    """Make a bounded pool of ``threads`` the running loop's default executor while the app runs.

    On exit, calls not yet started are dropped; a hung one keeps its thread until it returns.
    """
    executor = ThreadPoolExecutor(threads, thread_name_prefix="askai-collaborator")
    asyncio.get_running_loop().set_default_executor(executor)
    try:
        yield executor
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
