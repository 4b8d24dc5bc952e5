"""The thread a request runs on and the id of its answer, as the server's stages share them."""

from __future__ import annotations

from dataclasses import dataclass, field

from askai_graph.stores.thread_tokens import checkpoint_thread


@dataclass(frozen=True)
class ThreadRun:
    """The thread a request runs on and the id of this answer."""

    thread_id: str
    """The conversation (issued by the server)."""
    run_id: str
    """This answer's id."""
    max_history_turns: int = 10
    """How many turns the thread keeps (a cached answer is recorded with the same bound)."""
    token: str = field(default="", repr=False)
    """The conversation's secret (``stores.thread_tokens``); never logged, so out of ``repr``."""

    @property
    def key(self) -> str:
        """The checkpointer's thread: the hash of the id and the token, never the bare id."""
        return checkpoint_thread(self.thread_id, self.token)
    fresh: bool = False
    """The thread was made for this request: it has no earlier turn to read."""

    def ids(self) -> dict[str, str]:
        """Return the ids the ``done`` event carries (the token too: only its owner sent or got it)."""
        ids = {"thread_id": self.thread_id, "run_id": self.run_id}
        return ids | ({"thread_token": self.token} if self.token else {})
