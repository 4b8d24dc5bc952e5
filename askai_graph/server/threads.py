"""Which thread a ``POST /api/chat`` runs on: a new one, or a live one nobody else is answering on.

A request without ``thread_id`` gets a new thread. With one, the checkpointer must hold
it and it must not have expired (else 404: ``thread_id`` is then meaningless to this
server), and no other answer on it may still be streaming (else 409: two runs on one
thread would interleave their turns). The 409 guard is per process: several processes
sharing a PostgreSQL database each guard their own requests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from askai_graph.server.request import BadRequest
from askai_graph.server.run import ThreadRun
from askai_graph.settings import Settings
from askai_graph.threads import new_run_id, new_thread_id, thread_status

STREAMING = "an answer on this thread_id is still streaming; wait for its done event"


class ThreadLeases:
    """Hand out threads for requests, at most one streaming answer per thread."""

    def __init__(self, settings: Settings) -> None:
        """Use ``settings`` for the expiry and the history bound."""
        self.settings = settings
        # Each thread with an answer streaming, with the lease of the request holding it.
        self._running: dict[str, object] = {}

    async def claim(self, graph: Any, thread_id: str | None) -> tuple[ThreadRun, Callable[[], None]]:
        """Return the thread to run on and the function that releases it (idempotent).

        Raises:
            BadRequest: 404 for an unknown or expired thread, 409 for a busy one.
        """
        if thread_id is None:
            thread_id = new_thread_id()
        else:
            self._check_idle(thread_id)
            if getattr(graph, "checkpointer", None) is not None:
                status = await thread_status(graph, thread_id, self.settings.thread_ttl_hours)
                if status != "active":
                    raise BadRequest(
                        404, f"thread_id is {status}; send the message without thread_id to start a new conversation"
                    )
            self._check_idle(thread_id)  # another request may have claimed it meanwhile
        lease = self._running[thread_id] = object()

        def release() -> None:
            # Only the holder's lease: a late release must not free the next request's.
            if self._running.get(thread_id) is lease:
                del self._running[thread_id]

        return ThreadRun(thread_id, new_run_id(), self.settings.max_history_turns), release

    def _check_idle(self, thread_id: str) -> None:
        if thread_id in self._running:
            raise BadRequest(409, STREAMING)
