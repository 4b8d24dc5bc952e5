"""Ctrl-C in a test: a command started as a terminal's foreground job, ended whatever the test's outcome.

A shell that starts a job in the background without job control (``make test &`` in a
script, as a CI runner may) starts it with SIGINT *ignored*; every process below it
inherits that, and a Python started so installs no ``KeyboardInterrupt`` handler. A
test's SIGINT would then be no Ctrl-C at all: ``askai index`` crawled on to exit 0 and
``askai local-model serve`` kept serving, which is how two tests went red on a clean
CI run. ``interruptible`` starts the command with SIGINT at its default, as a terminal
gives it to the job in the foreground, so the signal means what the test says it means.

It also starts the command in a process group of its own and, when the block ends,
kills what is left of that group and reaps the command: a test that fails half-way
leaves no ``askai`` process (nor the server that one started) running, and no
``Popen`` whose pipes the garbage collector reports in some later test as a
``ResourceWarning``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["interruptible"]


@contextlib.contextmanager
def interruptible(command: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """Run ``command`` (``subprocess.Popen``'s ``popen`` options) for the block, SIGINT reaching it as Ctrl-C."""
    # A handler set in this process is reset to the default in the child by exec; "ignored" would be inherited.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(command, process_group=0, **popen)
    finally:
        signal.signal(signal.SIGINT, previous)
    with process:  # closes its pipes and waits for it
        try:
            yield process
        finally:
            # The group outlives its leader while a child of it runs (a server the command started).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
