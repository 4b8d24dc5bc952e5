"""A thread's follow-ups lean only on the turns asked in the same version and language (issue #39)."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import Settings, build_graph
from askai_graph.models.condensing import recent_turns
from askai_graph.models.prompts import CLARIFY_ANSWER
from askai_graph.state import STATE_KEYS, Turn

FOLLOW_UP = "How do I tune its parameters?"


def ask(graph: Any, question: str, **scope: str) -> dict[str, Any]:
    """Ask ``question`` on thread t1 in ``scope`` (the run's version and locale)."""
    return dict(graph.invoke({"question": question}, {"configurable": {"thread_id": "t1"}}, context=scope,
                             output_keys=STATE_KEYS))  # fmt: skip


def turn(question: str, **scope: str) -> Turn:
    return Turn(question=question, standalone_question=question, answer="A.", outcome="accepted", **scope)


def test_recent_turns_keep_only_the_runs_version_and_locale() -> None:
    history = [turn("one", locale="es"), turn("two"), turn("three", locale="es", version="1.0"), turn("four")]
    assert [t.question for t in recent_turns(history, 5, None, "es")] == ["one"]
    assert [t.question for t in recent_turns(history, 5, "1.0", "es")] == ["three"]
    assert [t.question for t in recent_turns(history, 5)] == ["two", "four"]
    assert [t.question for t in recent_turns(history, 1, "", "")] == ["four"]


def test_a_turn_records_the_scope_it_was_asked_in(settings: Settings) -> None:
    graph = build_graph(checkpointer=InMemorySaver(), settings=settings)
    ask(graph, "What is BM25?", version="2.0", locale="es")
    [first] = graph.get_state({"configurable": {"thread_id": "t1"}}).values["history"]
    assert (first.version, first.locale) == ("2.0", "es")


def test_a_follow_up_in_the_same_scope_leans_on_the_earlier_turn(settings: Settings) -> None:
    graph = build_graph(checkpointer=InMemorySaver(), settings=settings)
    ask(graph, "What is BM25?", locale="es")
    final = ask(graph, FOLLOW_UP, locale="es")
    assert "BM25" in final["standalone_question"]


def test_a_follow_up_in_another_locale_never_leans_on_the_earlier_turn(settings: Settings) -> None:
    graph = build_graph(checkpointer=InMemorySaver(), settings=settings)
    ask(graph, "What is BM25?", locale="es")
    final = ask(graph, FOLLOW_UP, locale="en")
    assert "BM25" not in final["standalone_question"]
    assert final["answer"] == CLARIFY_ANSWER  # nothing in this language to refer to: ask for the full question


def test_a_follow_up_in_another_version_never_leans_on_the_earlier_turn(settings: Settings) -> None:
    graph = build_graph(checkpointer=InMemorySaver(), settings=settings)
    ask(graph, "What is BM25?", version="1.0")
    final = ask(graph, FOLLOW_UP, version="2.0")
    assert "BM25" not in final["standalone_question"]


def test_the_servers_condensation_before_a_run_reads_the_runs_scope(settings: Settings) -> None:
    graph = build_graph(settings=settings)
    history = [turn("What is BM25?", locale="es")]
    assert graph.condense_first is not None
    same = asyncio.run(graph.condense_first(FOLLOW_UP, history, {"locale": "es"}))
    other = asyncio.run(graph.condense_first(FOLLOW_UP, history, {"locale": "en"}))
    assert "BM25" in same["standalone_question"]
    assert "BM25" not in other["standalone_question"] and other["needs_context"] is True
