"""Questions on one thread: each starts afresh, and the state round-trips through checkpoints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.event_hooks import register_serde_event_listener
from typing_extensions import get_type_hints

from askai_graph import AskState, Critique, ReviewFailure, SearchResult, Settings, Source, build_graph
from askai_graph.evidence.citations import Citation
from askai_graph.state import CONVERSATION_KEYS, STATE_KEYS, Turn, checkpoint_types, new_turn_state
from askai_graph.validation import ValidationIssue, ValidationReport
from tests.fakes import PASSING, cited_draft, replies, retriever, review, url

ROOT = Path(__file__).resolve().parents[1]
FAILING = review(confidence=0.2, gaps=["stale gap"])
SNIPPET = ["How does a semantic cache work?", "What is BM25?", "How do I bake sourdough bread?"]


def thread(name: str = "t1") -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def stale_state() -> dict[str, Any]:
    """A value for every per-question key that differs from a fresh question's."""
    result = SearchResult(title="Old", source_url=url(9), content="old evidence")
    return {
        "standalone_question": "an old question",
        "needs_context": True,
        "query": "an old query",
        "search_results": [result],
        "draft": "an old draft",
        "writer_error": "writer failed: old",
        "attempts": 3,
        "validation": ValidationReport(errors=[ValidationIssue(code="old", message="old")]),
        "citations": [Citation(url=url(9), sentence="An old claim.", quote="old evidence")],
        "critique": Critique(
            confidence=0.1, answer_relevance=0.1, intent_alignment=0.1, drift_detected=True, ungrounded_claims=["x"]
        ),
        "review_failures": [ReviewFailure(code="drift", message="old")],
        "gaps": ["stale gap"],
        "rejected_drafts": ["an old rejected draft"],
        "best_rejected": {
            "draft": "an old rejected draft",
            "confidence": 0.4,
            "retrieved": [url(9)],
            "validation": ValidationReport(),
            "citations": [Citation(url=url(9), sentence="An old claim.", quote="old evidence")],
        },
        "answer": "an old answer",
        "outcome": "degraded",
        "gates": {"retrieval": "passed", "validation": "failed", "critic": "failed"},
        "sources": [Source(title="Old", url=url(9))],
        "history_read": True,
    }


def test_every_state_key_is_either_conversation_or_reset_per_question() -> None:
    assert set(new_turn_state()) | CONVERSATION_KEYS == set(get_type_hints(AskState))
    assert not set(new_turn_state()) & CONVERSATION_KEYS


@pytest.mark.parametrize("key", sorted(set(new_turn_state()) - {"standalone_question"}))
def test_a_new_question_starts_with_a_fresh_value_of(key: str) -> None:
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1, 2), checkpointer=InMemorySaver()
    )
    graph.invoke({"question": "How does caching work?"}, thread())
    graph.update_state(thread(), stale_state(), as_node="source_gate")
    assert graph.get_state(thread()).values[key] == stale_state()[key], "precondition: the stale value is stored"
    question = {"question": "How does streaming work?"}
    stream = graph.stream(question, thread(), stream_mode="values", output_keys=STATE_KEYS)
    values = list(stream)
    after_condense = values[1]
    assert after_condense[key] == new_turn_state()[key]


def test_a_new_question_is_researched_as_itself_not_the_last_one() -> None:
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1, 2), checkpointer=InMemorySaver()
    )
    graph.invoke({"question": "How does caching work?"}, thread())
    graph.update_state(thread(), stale_state(), as_node="source_gate")
    final = graph.invoke({"question": "How does streaming work?"}, thread(), output_keys=STATE_KEYS)
    assert final["standalone_question"] == "How does streaming work?"


def test_three_questions_on_one_thread_each_get_the_full_attempt_budget() -> None:
    # The critic fails twice, then passes, for every question: each needs all 3 drafts.
    critic = replies(FAILING, FAILING, PASSING, FAILING, FAILING, PASSING)
    graph = build_graph(critic=critic, checkpointer=InMemorySaver(), settings=Settings())
    finals = [graph.invoke({"question": question}, thread(), output_keys=STATE_KEYS) for question in SNIPPET]
    assert [final["attempts"] for final in finals] == [3, 3, 0]
    assert [final["outcome"] for final in finals] == ["accepted", "accepted", "fallback"]
    assert finals[1]["sources"] and finals[1]["gates"]["critic"] == "passed"
    assert finals[2]["critique"] is None and finals[2]["gates"] == {
        "retrieval": "failed",
        "validation": "skipped",
        "critic": "skipped",
    }


def test_the_issue_snippet_prints_attempts_1_1_0(settings: Settings) -> None:
    graph = build_graph(checkpointer=InMemorySaver(), settings=settings)
    finals = [graph.invoke({"question": question}, thread(), output_keys=STATE_KEYS) for question in SNIPPET]
    assert [(final["outcome"], final["attempts"]) for final in finals] == [
        ("accepted", 1),
        ("accepted", 1),
        ("fallback", 0),
    ]


def test_thread_state_round_trips_with_its_types_and_no_unregistered_type_warning(settings: Settings) -> None:
    # LangGraph logs each unregistered type once per process; its event hook reports every load.
    events: list[dict[str, Any]] = []
    unregister = register_serde_event_listener(lambda event: events.append(dict(event)))
    try:
        graph = build_graph(checkpointer=InMemorySaver(), settings=settings)
        graph.invoke({"question": SNIPPET[0]}, thread())
        graph.invoke({"question": "How do I tune it?"}, thread())
        values = graph.get_state(thread()).values
    finally:
        unregister()
    assert not [event for event in events if event["kind"] in ("msgpack_unregistered_allowed", "msgpack_blocked")]
    assert isinstance(values["search_results"][0], SearchResult)
    assert isinstance(values["validation"], ValidationReport)
    assert isinstance(values["critique"], Critique)
    assert isinstance(values["sources"][0], Source)
    assert [type(turn) for turn in values["history"]] == [Turn, Turn]


def test_checkpoint_types_cover_every_model_in_the_state() -> None:
    names = {name for _, name in checkpoint_types()}
    assert {"SearchResult", "ImageRef", "ValidationReport", "ValidationIssue", "Critique"} <= names
    assert {"ReviewFailure", "Source", "Turn"} <= names


def test_strict_msgpack_round_trip_of_the_issue_snippet(tmp_path: Path, index_cache: Path) -> None:
    script = (
        "from langgraph.checkpoint.memory import InMemorySaver\n"
        "from askai_graph import build_graph\n"
        "g = build_graph(checkpointer=InMemorySaver())\n"
        "cfg = {'configurable': {'thread_id': 't1'}}\n"
        f"for q in {SNIPPET!r}:\n"
        "    s = g.invoke({'question': q}, cfg)\n"
        "    print(s['outcome'], s['attempts'])\n"
        "v = g.get_state(cfg).values\n"
        "print(type(v['history'][0]).__name__, type(v['critique']).__name__)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    env |= {"LANGGRAPH_STRICT_MSGPACK": "true", "ASKAI_INDEX_CACHE_DIR": str(index_cache)}
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n") == ["accepted 1", "accepted 1", "fallback 0", "Turn NoneType", ""]
    assert "unregistered" not in done.stderr and "blocked" not in done.stderr.lower()
