"""Conversation threads as the HTTP API and the CLI hand them out: ids, expiry, run config.

A thread id is issued by askai-graph (a random UUID, lower-case, hyphenated), so a
well-formed id can be checked before anything runs; anything else is refused. A thread
expires ``thread_ttl_hours`` after its last checkpoint: it is then deleted from the
checkpointer on first sight and refused like an unknown one. A cached answer served on
a thread is recorded in its history like any other (``record_cached_turn``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig

from askai_graph.state import Source, Turn, new_turn_state

ThreadStatus = Literal["active", "unknown", "expired"]
DURABILITY: Literal["exit"] = "exit"
"""When runs on a thread write checkpoints: once, when the run ends. A question is
answered in one go and never resumed mid-way, so the intermediate checkpoints of the
default ("async") mode, one per stage, cost a database write each and buy nothing."""
_UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
_THREAD_ID = re.compile(rf"\A{_UUID4}\Z")
THREAD_ID_PATTERN = f"^{_UUID4}$"
"""The form of a thread id as a JSON Schema pattern (what ``/openapi.json`` says)."""
THREAD_ID_FORMAT = "a lower-case UUID4 such as 0b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d"


def new_thread_id() -> str:
    """Return a fresh thread id."""
    return str(uuid.uuid4())


def new_run_id() -> str:
    """Return a fresh run id (one per answer)."""
    return str(uuid.uuid4())


def is_thread_id(value: object) -> bool:
    """Whether ``value`` has the form of an id this package issues."""
    return isinstance(value, str) and bool(_THREAD_ID.match(value))


def run_config(thread_id: str, run_id: str | None = None) -> RunnableConfig:
    """Return the LangGraph config that runs on ``thread_id`` (and tags the run with ``run_id``)."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    if run_id is not None:
        config["run_id"] = uuid.UUID(run_id)
    return config


def status_of(created_at: str | None, ttl_hours: float, now: datetime | None = None) -> ThreadStatus:
    """Classify a thread by its latest checkpoint's timestamp (``None``: no checkpoint)."""
    if created_at is None:
        return "unknown"
    last = datetime.fromisoformat(created_at)
    if last.tzinfo is None:
        last = last.replace(tzinfo=UTC)
    expired = (now or datetime.now(UTC)) - last > timedelta(hours=ttl_hours)
    return "expired" if expired else "active"


async def thread_status(graph: Any, thread_id: str, ttl_hours: float, now: datetime | None = None) -> ThreadStatus:
    """Return whether ``thread_id`` can be continued (at ``now``, or the present); delete it if it has expired."""
    snapshot = await graph.aget_state(run_config(thread_id))
    status = status_of(snapshot.created_at, ttl_hours, now)
    if status == "expired":
        await graph.checkpointer.adelete_thread(thread_id)
    return status


def sync_thread_status(graph: Any, thread_id: str, ttl_hours: float) -> ThreadStatus:
    """Return whether ``thread_id`` can be continued; delete it if it has expired (sync)."""
    snapshot = graph.get_state(run_config(thread_id))
    status = status_of(snapshot.created_at, ttl_hours)
    if status == "expired":
        graph.checkpointer.delete_thread(thread_id)
    return status


async def record_cached_turn(
    graph: Any,
    thread_id: str,
    question: str,
    standalone: str,
    cached: Mapping[str, Any],
    max_turns: int,
    *,
    history: Sequence[Turn] | None = None,
    scope: Mapping[str, str] | None = None,
) -> None:
    """Write a cached answer into the thread as a finished turn, so follow-ups can lean on it.

    The thread's state then holds what the reader was shown: the answer, its verdict and
    its cards. ``history`` is the thread's turns when the caller has just read them
    (under the thread's lease); otherwise they are read here.
    """
    config = run_config(thread_id)
    if history is None:
        history = list((await graph.aget_state(config)).values.get("history") or [])
    where = scope or {}
    turn = Turn(
        question=question,
        standalone_question=standalone,
        answer=cached["answer"],
        outcome="accepted",
        version=where.get("version") or "",
        locale=where.get("locale") or "",
    )
    values = new_turn_state() | {
        "question": question,
        "standalone_question": standalone,
        "answer": cached["answer"],
        "outcome": "accepted",
        "gates": dict(cached["gates"]),
        "sources": [Source.model_validate(card) for card in cached.get("sources") or ()],
        "history": [*history, turn][-max_turns:],
    }
    await graph.aupdate_state(config, values, as_node="source_gate")
