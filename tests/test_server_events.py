"""Translating graph progress into SSE payloads (pure functions, no server)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sse_starlette import ServerSentEvent

from askai_graph.evidence.critique import Critique
from askai_graph.server.answers.events import answer_events, step, token_chunks
from askai_graph.server.guards.limits import StreamSlots
from askai_graph.server.routes.chat import _framed
from askai_graph.state import ReviewFailure, Source
from askai_graph.validation import ValidationIssue, ValidationReport


@given(st.text(), st.integers(min_value=1, max_value=80))
def test_token_chunks_join_to_the_text_exactly(text: str, size: int) -> None:
    assert "".join(token_chunks(text, size)) == text


def test_token_chunks_split_long_answers_at_word_boundaries() -> None:
    text = "Semantic caching stores accepted answers keyed by the question's embedding. " * 4
    chunks = list(token_chunks(text, 24))
    assert len(chunks) > 8
    assert all(chunk.endswith((" ", ".")) for chunk in chunks)


def test_token_chunks_keep_a_long_word_whole() -> None:
    assert list(token_chunks("see https://example.com/a/very/long/path ok", 8)) == [
        "see https://example.com/a/very/long/path ",
        "ok",
    ]


def test_research_step_reports_the_upcoming_draft_and_a_count_only() -> None:
    update: dict[str, Any] = {"search_results": ["a", "b"], "query": "q gap", "attempts": 0}
    assert step("research", update, {"attempts": 0, **update}) == (
        "step",
        {"node": "research", "attempt": 1, "results": 2, "rewritten": False},
    )
    assert step("research", update, {**update, "attempts": 2})[1]["attempt"] == 3


def test_research_step_says_whether_a_follow_up_was_rewritten() -> None:
    state = {"question": "And its parameters?", "standalone_question": "And its parameters? (BM25)"}
    assert step("research", {"search_results": []}, state)[1]["rewritten"] is True
    same = {"question": "What is BM25?", "standalone_question": "What is BM25?"}
    assert step("research", {"search_results": []}, same)[1]["rewritten"] is False


def test_validation_step_reports_codes_not_messages() -> None:
    issue = ValidationIssue(code="unknown_citation_url", message="Unknown citation URL: https://x.example")
    update = {"validation": ValidationReport(errors=[issue, issue])}
    data = step("validation", update, {"attempts": 1, **update})[1]
    assert data == {"node": "validation", "attempt": 1, "passed": False, "errors": ["unknown_citation_url"]}


def test_critic_step_reports_pass_and_failure_codes_not_scores() -> None:
    critique = Critique(
        confidence=0.2, answer_relevance=0.9, intent_alignment=0.9, drift_detected=False, ungrounded_claims=[]
    )
    failure = ReviewFailure(code="low_confidence", message="confidence 0.20 < 0.60")
    update = {"critique": critique, "review_failures": [failure], "gaps": ["x"]}
    data = step("critic", update, {"attempts": 2, "validation": ValidationReport(errors=[]), **update})[1]
    assert data == {"node": "critic", "attempt": 2, "passed": False, "failures": ["low_confidence"]}


@pytest.mark.parametrize("node", ["accept", "accept_early", "degrade", "fallback"])
def test_end_steps_report_the_outcome(node: str) -> None:
    assert step(node, {"outcome": "x", "answer": "secret"}, {"attempts": 3})[1] == {
        "node": node,
        "attempt": 3,
        "outcome": "x",
    }


def test_unknown_nodes_report_only_node_and_attempt() -> None:
    assert step("rerank", {"ranked": ["a"]}, {}) == ("step", {"node": "rerank", "attempt": 0})


def test_answer_events_send_sources_only_when_the_gate_passed() -> None:
    final = {
        "answer": "Short answer.",
        "outcome": "accepted",
        "attempts": 1,
        "gates": {"retrieval": "passed", "validation": "passed", "critic": "passed"},
        "sources": [Source(title="T", url="https://u.example")],
    }
    events = list(answer_events(final, cached=False, token_chars=24))
    assert [name for name, _ in events] == ["token", "sources", "done"]
    # The contract's keys, and the evidence keys added by issue 26 (a card without evidence links to its page).
    card = {"title": "T", "url": "https://u.example", "section": "", "anchor_url": "https://u.example", "quote": ""}
    assert events[1][1] == [card]
    assert [name for name, _ in answer_events({**final, "sources": []}, cached=False, token_chars=24)] == [
        "token",
        "done",
    ]


def test_cached_answer_events_carry_the_stored_cards_and_zero_attempts() -> None:
    final = {
        "answer": "A.",
        "outcome": "accepted",
        "attempts": 2,
        "gates": {"critic": "passed"},
        "sources": [Source(title="T", url="https://u.example").model_dump()],  # as the cache hands them back
    }
    events = list(answer_events(final, cached=True, token_chars=24))
    card = {"title": "T", "url": "https://u.example", "section": "", "anchor_url": "https://u.example", "quote": ""}
    assert events == [
        ("token", {"text": "A."}),
        ("sources", [card]),
        ("done", {"outcome": "accepted", "attempts": 0, "cached": True, "gates": {"critic": "passed"}}),
    ]


def writes(batches: list[list[Any]]) -> list[bytes]:
    """What ``_framed`` hands sse-starlette for ``batches``: one item per write."""

    async def run() -> AsyncGenerator[Any, None]:
        for batch in batches:
            yield batch

    async def release() -> None:
        pass

    async def frames() -> list[bytes]:
        slot = await StreamSlots(1).try_acquire()
        return [frame async for frame in _framed(run(), release, slot)]  # type: ignore[arg-type]

    return asyncio.run(frames())


def test_each_batch_of_events_ready_together_leaves_in_one_write() -> None:
    steps = [("step", {"node": "writer"})]
    answer = [("token", {"text": "An "}), ("token", {"text": "answer."}), ("done", {"outcome": "accepted"})]
    assert writes([steps, answer]) == [
        b'id: 1\nevent: step\ndata: {"node": "writer"}\n\n',
        b'id: 2\nevent: token\ndata: {"text": "An "}\n\nid: 3\nevent: token\ndata: {"text": "answer."}\n\n'
        b'id: 4\nevent: done\ndata: {"outcome": "accepted"}\n\n',
    ]


EVENT = st.tuples(
    st.sampled_from(["step", "token", "sources", "done", "error"]),
    st.dictionaries(st.sampled_from(["text", "node", "title", "url"]), st.text() | st.integers() | st.booleans()),
)


@given(st.lists(st.lists(EVENT, min_size=1, max_size=5), max_size=6))
def test_the_bytes_on_the_wire_are_sse_starlettes_one_event_per_write_however_batched(batches: list[list[Any]]) -> None:
    # What the stream sent before coalescing: each event framed by sse-starlette on its own.
    events = [event for batch in batches for event in batch]
    one_by_one = b"".join(
        ServerSentEvent(event=name, data=json.dumps(data, ensure_ascii=False), id=str(number), sep="\n").encode()
        for number, (name, data) in enumerate(events, start=1)
    )
    sent = writes(batches)
    assert len(sent) == len(batches) and b"".join(sent) == one_by_one
