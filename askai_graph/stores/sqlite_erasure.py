"""What it takes for a row SQLite deletes to leave the database's files.

A deleted row's text stays on disk twice over: in the main file's free space (SQLite
marks the space free without clearing it) and in the write-ahead log, whose frames
keep every page as it was written until a checkpoint copies them back and the log is
reset. The log outlives a command's connections whenever another process (a running
``askai serve``) holds the database open. So every connection that may delete a
reader's rows runs ``SECURE_DELETE`` (SQLite then zeroes what it deletes), and an
erasure ends with ``truncate_wal``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SECURE_DELETE = "PRAGMA secure_delete = ON"
"""Run on each SQLite connection that deletes readers' rows (the run log's, the threads')."""


def truncate_wal(path: Path) -> bool:
    """Copy the write-ahead log of the database at ``path`` into it and empty the log; return whether it could.

    ``False`` when a reader of another process still reads an older snapshot: its frames
    stay until that reader is done (the next checkpoint takes them).
    """
    connection = sqlite3.connect(path)
    try:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        connection.close()
    return not busy
