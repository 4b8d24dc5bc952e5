"""The secret that owns a conversation: issued with its thread, never stored, needed to continue it.

A ``thread_id`` travels far (log lines, the run log, analytics exports, a shared link),
so it must not be enough to continue the conversation: whoever did could steer its
owner's next follow-up and learn its topic through the rewrites. Each thread therefore
comes with a ``thread_token`` (32 random bytes), handed only to the client that started
it (the ``done`` event, ``askai ask``, ``ask_docs``).

The token is not kept anywhere: the checkpointer stores the thread under
``checkpoint_thread(thread_id, token)``, a SHA-256 of both. A request with the id and a
wrong (or no) token names a key no thread has, so it follows the very path of an unknown
thread (one index lookup that finds nothing): the same 404, the same body, no timing to
tell the two apart, and no comparison of secret bytes in Python at all. A plain hash is
enough: the token has 256 bits of entropy, nothing a dictionary attack could guess.
"""

from __future__ import annotations

import hashlib
import re
import secrets

TOKEN_BYTES = 32
_TOKEN = re.compile(r"\A[A-Za-z0-9_-]{43}\Z")
THREAD_TOKEN_PATTERN = "^[A-Za-z0-9_-]{43}$"
"""The form of a thread token as a JSON Schema pattern (what ``/openapi.json`` says)."""
THREAD_TOKEN_FORMAT = "the 43-character thread_token issued with the thread"


def new_thread_token() -> str:
    """Return a fresh token: 32 random bytes, URL-safe base64 without padding (43 characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_thread_token(value: object) -> bool:
    """Whether ``value`` has the form of a token this package issues."""
    return isinstance(value, str) and bool(_TOKEN.match(value))


def checkpoint_thread(thread_id: str, token: str) -> str:
    """Return the checkpointer's thread for conversation ``thread_id`` owned by ``token``.

    Deterministic, so every worker and every front end (server, CLI, MCP) finds the same
    thread; one-way, so the stored key reveals neither the token nor, without it, the id.
    """
    return hashlib.sha256(f"askai-thread\0{thread_id}\0{token}".encode()).hexdigest()
