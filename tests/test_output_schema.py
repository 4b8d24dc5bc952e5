"""The graph's public output: the answer and the gates' decision, never the retrieved candidates.

``invoke``, ``ainvoke`` and ``stream``/``astream`` values return ``OutputState``'s keys only;
the internals stay in the state, reachable the documented ways: ``output_keys=STATE_KEYS``,
the ``updates`` stream and the checkpoint.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, get_type_hints

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import build_graph
from askai_graph.state import STATE_KEYS, OutputState
from tests.fakes import LOW_CONFIDENCE, PASSING, cited_draft, replies, retriever, url

PUBLIC = set(get_type_hints(OutputState))
INTERNAL = {"search_results", "draft", "critique", "validation", "query", "history", "review_failures", "gaps"}
QUESTION = "How does caching work?"
RETRIEVED = (1, 2, 3, 4, 5)

# (writer, critic) scripts and the outcome each ends in, over posts 1-5 of which post 2 is cited.
RUNS = {
    "accepted": (cited_draft(2), PASSING),
    "degraded": (cited_draft(2), LOW_CONFIDENCE),
    "fallback": ("See [elsewhere](https://evil.example/x).", PASSING),
}


def graph(outcome: str, **kwargs: Any) -> Any:
    writer, critic = RUNS[outcome]
    return build_graph(writer=replies(writer), critic=replies(critic), retriever=retriever(*RETRIEVED), **kwargs)


@pytest.mark.parametrize("outcome", RUNS)
def test_invoke_returns_only_the_public_keys(outcome: str) -> None:
    final = graph(outcome).invoke({"question": QUESTION})
    assert final["outcome"] == outcome
    assert set(final) == PUBLIC


@pytest.mark.parametrize("outcome", RUNS)
def test_ainvoke_returns_only_the_public_keys(outcome: str) -> None:
    final = asyncio.run(graph(outcome).ainvoke({"question": QUESTION}))
    assert final["outcome"] == outcome and set(final) == PUBLIC


@pytest.mark.parametrize("modes", ["values", ["updates", "values"]])
def test_stream_values_carry_only_the_public_keys(modes: Any) -> None:
    parts = list(graph("degraded").stream({"question": QUESTION}, stream_mode=modes))
    values = parts if modes == "values" else [chunk for mode, chunk in parts if mode == "values"]
    assert values and all(set(chunk) <= PUBLIC for chunk in values)
    assert values[-1]["outcome"] == "degraded"


def test_astream_values_carry_only_the_public_keys() -> None:
    async def values() -> list[dict[str, Any]]:
        stream = graph("degraded").astream({"question": QUESTION}, stream_mode=["updates", "values"])
        return [chunk async for mode, chunk in stream if mode == "values"]

    assert all(set(chunk) <= PUBLIC for chunk in asyncio.run(values()))


@pytest.mark.parametrize("outcome", ["degraded", "fallback"])
def test_no_uncited_retrieved_url_reaches_the_public_output(outcome: str) -> None:
    shown = json.dumps(graph(outcome).invoke({"question": QUESTION}), default=str)
    for n in RETRIEVED:
        if n != 2 or outcome == "fallback":  # post 2 is cited by the degraded answer's own text
            assert url(n) not in shown
    assert "evil.example" not in shown


def test_the_updates_stream_keeps_every_stage_and_its_internal_keys() -> None:
    updates = [chunk for chunk in graph("accepted").stream({"question": QUESTION}, stream_mode="updates")]
    nodes = [node for chunk in updates for node in chunk]
    assert {"research", "writer", "validation", "critic", "source_gate"} <= set(nodes)
    research = next(chunk["research"] for chunk in updates if "research" in chunk)
    assert [result.source_url for result in research["search_results"]] == [url(n) for n in RETRIEVED]


def test_output_keys_state_keys_returns_the_whole_state() -> None:
    final = graph("degraded").invoke({"question": QUESTION}, output_keys=STATE_KEYS)
    assert INTERNAL <= set(final) and PUBLIC <= set(final)
    assert final["critique"] is not None and final["validation"].ok


def test_the_checkpoint_keeps_the_internals() -> None:
    config = {"configurable": {"thread_id": "t1"}}
    checkpointed = graph("accepted", checkpointer=InMemorySaver())
    assert set(checkpointed.invoke({"question": QUESTION}, config)) == PUBLIC
    state = checkpointed.get_state(config).values
    assert INTERNAL <= set(state)
    assert [turn.question for turn in state["history"]] == [QUESTION]
