"""How the graph runs its nodes: settings resolved once per run, cheap nodes inline in async runs."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import askai_graph.nodes.validation as validation_node
from askai_graph import Settings, build_graph
from askai_graph.settings import RunOptions
from askai_graph.state import AskState
from tests.fakes import PASSING, cited_draft, replies, retriever

QUESTION = "How does caching work?"


def test_a_run_resolves_its_settings_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[RunOptions | dict[str, Any] | None] = []
    resolve = Settings.with_overrides

    def counting(self: Settings, overrides: RunOptions | dict[str, Any] | None) -> Settings:
        calls.append(overrides)
        return resolve(self, overrides)

    monkeypatch.setattr(Settings, "with_overrides", counting)
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1))
    final = graph.invoke({"question": QUESTION}, context={"top_k": 1})
    assert final["outcome"] == "accepted" and len(calls) == 1


def test_per_run_settings_reach_routers_and_nodes_in_async_runs() -> None:
    unknown_link = replies("See [elsewhere](https://evil.example/x).")
    graph = build_graph(writer=unknown_link, critic=replies(PASSING), retriever=retriever(1))
    final = asyncio.run(graph.ainvoke({"question": QUESTION}, context={"max_attempts": 1}))
    assert (final["outcome"], final["attempts"]) == ("fallback", 1)


def test_cheap_nodes_run_on_the_event_loop_in_async_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[int] = []
    validate = validation_node.validate

    def recording(state: AskState, settings: Settings, meaning: Any = None) -> dict[str, Any]:
        threads.append(threading.get_ident())
        return validate(state, settings, meaning)

    # The Validation node (without an embedding model: no model call) runs it inline.
    monkeypatch.setattr(validation_node, "validate", recording)
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1))

    async def run() -> int:
        await graph.ainvoke({"question": QUESTION})
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert threads == [loop_thread]


def test_sync_invoke_runs_the_same_nodes() -> None:
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1))
    assert graph.invoke({"question": QUESTION})["outcome"] == "accepted"
