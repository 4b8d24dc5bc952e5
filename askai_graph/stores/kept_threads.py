"""The command line keeps the tokens of the threads it starts, as the widget does in the browser.

A thread is continued with its id and the secret issued with it (``thread_token``). The
widget keeps the token beside the id in its storage; ``askai ask`` and ``askai chat``
keep it in a file of the user's own, so ``askai ask --thread ID`` (the command scripts
call) continues a conversation this machine's CLI started without the token being typed
again. A thread started elsewhere (the HTTP API, another user) still needs
``--thread-token``: an id alone continues nothing.

The file sits beside a SQLite threads database (``threads.sqlite.tokens.json``), else in
the user's state folder (``$XDG_STATE_HOME/askai-graph``), readable by its owner only,
and keeps the most recent ``MAX_KEPT`` threads.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

MAX_KEPT = 1000


def tokens_file(database_url: str) -> Path:
    """Return the file that keeps the tokens of threads in ``database_url``."""
    if database_url.startswith("sqlite:///"):
        return Path(database_url.removeprefix("sqlite:///") + ".tokens.json")
    root = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return root / "askai-graph" / "thread-tokens.json"


def _read(path: Path) -> dict[str, str]:
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: the token is asked for, nothing is lost
    return {str(key): str(value) for key, value in kept.items()} if isinstance(kept, dict) else {}


def kept_token(database_url: str, thread_id: str) -> str | None:
    """Return the token kept for ``thread_id``, or ``None`` when this CLI did not start it."""
    return _read(tokens_file(database_url)).get(thread_id)


def keep_token(database_url: str, thread_id: str, token: str) -> None:
    """Keep ``token`` for ``thread_id`` (owner-only file, replaced atomically, the newest ``MAX_KEPT``)."""
    path = tokens_file(database_url)
    kept = _read(path)
    kept.pop(thread_id, None)
    kept[thread_id] = token
    _write(path, dict(list(kept.items())[-MAX_KEPT:]))


def forget_token(database_url: str, thread_id: str) -> bool:
    """Drop the token kept for ``thread_id`` (``askai forget``); return whether one was kept and is gone."""
    path = tokens_file(database_url)
    kept = _read(path)
    if kept.pop(thread_id, None) is None:
        return False
    return _write(path, kept)


def _write(path: Path, newest: dict[str, str]) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(dir=path.parent, prefix=".tokens-")  # created 0600
    except OSError:
        return False  # a read-only home: the follow-up hint still prints the token
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(newest, out)
        os.replace(staging, path)
    except OSError:
        Path(staging).unlink(missing_ok=True)
        return False
    return True
