"""``askai serve --workers N``: N server processes accepting on one listening socket.

The parent binds the socket (so a port conflict is reported once, at once) and forks N
workers; each loads the corpus, builds the app and runs uvicorn on the inherited socket,
and the kernel spreads connections among them. State the workers must share lives in
the engines configured for it: threads in PostgreSQL (``ASKAI_DATABASE_URL``), the
answer cache, the per-client rate limit and the stream cap in Redis (``ASKAI_CACHE_URL``). Without
them each worker keeps its own (a SQLite threads file is shared, with SQLite's
single-writer locking).

The parent restarts a worker that dies, and stops them all on SIGINT or SIGTERM (each
finishes its streams within uvicorn's graceful-shutdown window). SIGHUP to the parent
is passed on to every worker, each of which then serves the index anew (``reload``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from types import FrameType

logger = logging.getLogger(__name__)

RESTART_PAUSE_SECONDS = 1.0
"""Pause before replacing a worker that died, so a worker failing at startup does not spin."""


def supervise(sock: socket.socket, workers: int, run_worker: Callable[[socket.socket], None]) -> int:
    """Run ``run_worker(sock)`` in ``workers`` forked processes until SIGINT or SIGTERM.

    Args:
        sock: The bound, listening socket every worker accepts on.
        workers: How many processes (at least 1).
        run_worker: What a worker runs; it returns when the worker should stop.

    Returns:
        0 once every worker has stopped after a signal.
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    # Fork, not spawn: the workers inherit the bound socket and the settings as they are.
    context = multiprocessing.get_context("fork")
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    processes: list[BaseProcess] = []

    def hangup(signum: int, frame: FrameType | None) -> None:
        for process in processes:
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGHUP)

    previous_hangup = signal.signal(signal.SIGHUP, hangup)

    def start() -> BaseProcess:
        process = context.Process(target=_worker, args=(sock, run_worker, previous), daemon=False)
        process.start()
        return process

    try:
        processes = [start() for _ in range(workers)]
        while not stopping:
            time.sleep(0.2)
            for index, process in enumerate(processes):
                if not stopping and not process.is_alive():
                    pid, code = process.pid, process.exitcode
                    logger.warning("askai serve: worker %s exited with %s; starting another", pid, code)
                    time.sleep(RESTART_PAUSE_SECONDS)
                    processes[index] = start()
    finally:
        for process in processes:
            if process.is_alive() and process.pid is not None:
                process.terminate()  # SIGTERM: uvicorn shuts down gracefully
        for process in processes:
            process.join(15)
            if process.is_alive():
                process.kill()
                process.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        signal.signal(signal.SIGHUP, previous_hangup)
    return 0


def _worker(sock: socket.socket, run_worker: Callable[[socket.socket], None], handlers: dict[int, object]) -> None:
    # The parent's "stop the loop" handlers are not the worker's: uvicorn installs its own.
    for sig, handler in handlers.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]
    # Until the app listens for SIGHUP (once its index is open), one must not kill the worker.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    run_worker(sock)
