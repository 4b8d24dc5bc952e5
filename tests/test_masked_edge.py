"""The graph masks a question at its first stage: no model, query, gap or state key sees what a reader pasted."""

from __future__ import annotations

from typing import Any

from askai_graph import Settings, build_graph
from askai_graph.state import STATE_KEYS
from askai_graph.text.masking import LABELS
from askai_graph.text.terms import words
from tests.fakes import LOW_CONFIDENCE, PASSING, cited_draft, replies, retriever, review

KEY_BODY = "abcdefghijklmnopqrstuvwxyzABCD"  # no digit: the shape that once skipped the masker
ASKED = f"My key sk-{KEY_BODY} and jane@example.org fail: how does BM25 rank pages?"


def _texts(state: dict[str, Any]) -> str:
    """Every text the final state holds (questions, query, gaps, drafts, critique, turns), as one string."""
    return repr({key: state.get(key) for key in STATE_KEYS})


def _leaks(text: str) -> list[str]:
    lowered = text.lower()
    return [part for part in (KEY_BODY.lower(), "jane", "example.org") if part in lowered]


def test_no_model_and_no_query_receives_what_the_reader_pasted(settings: Settings) -> None:
    writer, critic, search = replies(cited_draft(1)), replies(LOW_CONFIDENCE, PASSING), retriever(1)
    graph = build_graph(writer=writer, critic=critic, retriever=search, settings=settings)
    state = graph.invoke({"question": ASKED}, output_keys=STATE_KEYS)
    assert state["attempts"] == 2  # a retry: the query carried the first review's gaps
    assert [_leaks(text) for text in [*writer.prompts, *critic.prompts, *search.queries]] == [[]] * (
        len(writer.prompts) + len(critic.prompts) + len(search.queries)
    )
    assert _leaks(_texts(state)) == []
    assert "how does BM25 rank pages?" in search.queries[0]


def test_the_offline_critics_gaps_and_queries_hold_no_part_of_a_pasted_secret(settings: Settings) -> None:
    state = build_graph(settings=settings).invoke({"question": ASKED}, output_keys=STATE_KEYS)
    assert _leaks(_texts(state)) == []
    derived = [state["query"], *state["gaps"]]
    assert not {word for text in derived for word in words(text)} & ({"sk", "jane", "org"} | LABELS)


def test_a_models_gaps_lose_labels_and_secrets_before_they_steer_research(settings: Settings) -> None:
    gaps = ["[secret]", "[email] address", "rotation of sk-" + KEY_BODY, "ranking"]
    search = retriever(1)
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(review(confidence=0.2, gaps=gaps), PASSING),
        retriever=search, settings=settings,
    )
    graph.invoke({"question": "How does BM25 rank pages?"}, output_keys=STATE_KEYS)
    retry = search.queries[1]
    assert retry == "How does BM25 rank pages? address rotation of ranking"


def test_the_state_keeps_the_question_masked_from_the_first_stage(settings: Settings) -> None:
    writer, critic = replies(cited_draft(1)), replies(PASSING)
    graph = build_graph(writer=writer, critic=critic, retriever=retriever(1), settings=settings)
    out = graph.invoke({"question": ASKED})
    assert out["question"] == "My key [secret] and [email] fail: how does BM25 rank pages?"
    assert out["standalone_question"] == out["question"]
