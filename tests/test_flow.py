"""Each edge outcome through the whole compiled graph, with scripted models."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from askai_graph import Settings, build_graph
from askai_graph.models.prompts import DEGRADED_NOTICE, FALLBACK_ANSWER
from askai_graph.state import STATE_KEYS
from tests.fakes import (
    LOW_CONFIDENCE,
    PASSING,
    FakeRetriever,
    ScriptedChatModel,
    catalog_draft,
    cited_draft,
    post,
    replies,
    retriever,
    review,
    url,
)

QUESTION = "How does caching work?"
CATALOG = "What course articles do you have?"
UNKNOWN = "See [elsewhere](https://evil.example/x)."


def run(
    writer: ScriptedChatModel,
    critic: ScriptedChatModel,
    fake: FakeRetriever | None = None,
    question: str = QUESTION,
    **context: Any,
) -> dict[str, Any]:
    graph = build_graph(writer=writer, critic=critic, retriever=fake or retriever(1, 2, 3, 4, 5), settings=Settings())
    return graph.invoke({"question": question}, context=context or None, output_keys=STATE_KEYS)


def test_plain_acceptance_shows_only_the_cited_posts_as_cards() -> None:
    final = run(replies(cited_draft(3)), replies(PASSING))
    assert (final["outcome"], final["attempts"], final["answer"]) == ("accepted", 1, cited_draft(3))
    assert [s.url for s in final["sources"]] == [url(3)]  # posts 1, 2, 4, 5 were retrieved, never cited
    assert final["gates"] == {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def test_cards_equal_the_cited_posts_in_citation_order() -> None:
    final = run(replies(cited_draft(4, 2, 4, 5)), replies(PASSING))
    assert final["outcome"] == "accepted"
    assert [s.url for s in final["sources"]] == [url(4), url(2), url(5)]
    assert [s.url for s in final["sources"]] == final["validation"].cited_urls


def test_retry_below_the_limit_sends_the_critics_gaps_to_the_retriever() -> None:
    fake = retriever(1, 2)
    critic = replies(review(answer_relevance=0.1, gaps=["eviction policy", "TTL"]), PASSING)
    final = run(replies(cited_draft(1)), critic, fake)
    assert (final["outcome"], final["attempts"]) == ("accepted", 2)
    assert fake.queries == [QUESTION, f"{QUESTION} eviction policy TTL"]


def test_retry_tells_the_writer_why_the_last_draft_failed() -> None:
    writer = replies(UNKNOWN, cited_draft(1))
    final = run(writer, replies(PASSING))
    assert final["outcome"] == "accepted"
    assert "Unknown citation URL: https://evil.example/x" in writer.prompts[1]


def test_degradation_at_the_limit_returns_the_valid_draft_with_a_notice_and_no_sources() -> None:
    writer, critic = replies(cited_draft(1)), replies(review(answer_relevance=0.1))
    final = run(writer, critic)
    assert (final["outcome"], final["attempts"], final["sources"]) == ("degraded", 3, [])
    # The review never passed: the text stays, its link to the retrieved page does not.
    assert final["answer"] == "Retrieval and caching are covered in Page 1." + DEGRADED_NOTICE
    assert (writer.calls, critic.calls) == (3, 3)


def test_degradation_shows_the_rejected_draft_the_critic_was_most_confident_in() -> None:
    writer = replies(
        f"Caching is covered in [Page 1]({url(1)}).", cited_draft(2), f"Retrieval is in [Page 3]({url(3)})."
    )
    critic = replies(review(confidence=0.2), review(confidence=0.5), review(confidence=0.3))
    final = run(writer, critic)
    assert (final["outcome"], final["attempts"]) == ("degraded", 3)
    assert final["answer"] == "Retrieval and caching are covered in Page 2." + DEGRADED_NOTICE
    # The thread's turn (and the run log) say what the shown text cites, not what the last draft did.
    assert final["validation"].cited_urls == [url(2)]
    assert final["history"][-1].cited_urls == (url(2),)


def test_degradation_keeps_the_earlier_draft_on_equal_confidence() -> None:
    writer = replies(cited_draft(1), cited_draft(2))
    final = run(writer, replies(review(confidence=0.4)))
    assert final["answer"] == "Retrieval and caching are covered in Page 1." + DEGRADED_NOTICE


class ShiftingRetriever(FakeRetriever):
    """Returns ``documents`` for the first query and ``later`` for every retry."""

    later: list[Any] = []

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
        first = super()._get_relevant_documents(query, run_manager=run_manager)
        return first if len(self.queries) == 1 else list(self.later)


def test_degradation_unlinks_the_pages_retrieved_for_the_draft_it_shows() -> None:
    # The kept draft cites a page the last Research pass no longer returned: its link goes too.
    fake = ShiftingRetriever(documents=[post(1)], queries=[], later=[post(2)])
    writer = replies(cited_draft(1), cited_draft(2))
    final = run(writer, replies(review(confidence=0.5), review(confidence=0.1)), fake)
    assert final["answer"] == "Retrieval and caching are covered in Page 1." + DEGRADED_NOTICE


def test_fallback_at_the_limit_when_no_draft_passes_validation() -> None:
    writer, critic = replies(UNKNOWN), replies(PASSING)
    final = run(writer, critic)
    assert (final["outcome"], final["attempts"], final["answer"], final["sources"]) == (
        "fallback",
        3,
        FALLBACK_ANSWER,
        [],
    )
    assert critic.calls == 0, "an invalid draft is never sent to the Critic"
    assert final["gates"]["validation"] == "failed"


def test_fallback_when_the_last_draft_fails_validation_even_if_an_earlier_one_passed() -> None:
    final = run(replies(cited_draft(1), cited_draft(1), UNKNOWN), replies(review(answer_relevance=0.1)))
    assert (final["outcome"], final["attempts"]) == ("fallback", 3)


def test_fallback_on_empty_retrieval_without_drafting() -> None:
    writer = replies(cited_draft(1))
    final = run(writer, replies(PASSING), retriever())
    assert (final["outcome"], final["attempts"], final["sources"]) == ("fallback", 0, [])
    assert writer.calls == 0
    assert final["gates"] == {"retrieval": "failed", "validation": "skipped", "critic": "skipped"}


def test_fallback_when_the_retriever_fails() -> None:
    final = run(replies(cited_draft(1)), replies(PASSING), retriever(1, fail=True))
    assert (final["outcome"], final["sources"]) == ("fallback", [])


def test_catalog_early_acceptance_with_low_confidence_shows_no_sources() -> None:
    final = run(replies(catalog_draft(1, 2, 3, 4)), replies(LOW_CONFIDENCE), question=CATALOG)
    assert (final["outcome"], final["attempts"], final["sources"]) == ("accepted_early", 1, [])
    assert final["gates"]["critic"] == "failed"


@pytest.mark.parametrize(
    ("draft", "reply", "outcome"),
    [
        pytest.param(catalog_draft(1, 2, 3, 9), LOW_CONFIDENCE, "fallback", id="unknown-citation"),
        pytest.param(catalog_draft(1, 2, 3), LOW_CONFIDENCE, "degraded", id="fewer-than-4-sources"),
        pytest.param(catalog_draft(1, 2, 3, 4), review(confidence=0.1, drift_detected=True), "degraded", id="drift"),
        pytest.param(catalog_draft(1, 2, 3, 4), '{"confidence": 0.1}', "degraded", id="malformed-review"),
    ],
)
def test_catalog_early_acceptance_refusals_end_without_sources(draft: str, reply: str, outcome: str) -> None:
    final = run(replies(draft), replies(reply), question=CATALOG)
    assert (final["outcome"], final["attempts"], final["sources"]) == (outcome, 3, [])


def test_writer_provider_failure_is_a_gate_failure_not_a_crash() -> None:
    final = run(replies(TimeoutError("provider timed out")), replies(PASSING))
    assert (final["outcome"], final["sources"]) == ("fallback", [])
    assert final["validation"].errors[0].code == "empty_draft"


def test_critic_provider_failure_is_a_review_failure() -> None:
    final = run(replies(cited_draft(1)), replies(ConnectionError("refused")))
    assert (final["outcome"], final["sources"]) == ("degraded", [])
    assert [f.code for f in final["review_failures"]] == ["provider_error"]


def test_per_run_context_overrides_the_attempt_limit() -> None:
    final = run(replies(cited_draft(1)), replies(review(answer_relevance=0.1)), max_attempts=1)
    assert (final["outcome"], final["attempts"]) == ("degraded", 1)


def test_final_state_carries_the_contract_keys() -> None:
    final = run(replies(cited_draft(1)), replies(PASSING))
    assert {"answer", "outcome", "attempts", "sources", "search_results", "validation", "critique"} <= set(final)


def test_ainvoke_matches_invoke() -> None:
    graph = build_graph(writer=replies(cited_draft(2)), critic=replies(PASSING), retriever=retriever(1, 2))
    final = asyncio.run(graph.ainvoke({"question": QUESTION}, output_keys=STATE_KEYS))
    assert (final["outcome"], [s.url for s in final["sources"]]) == ("accepted", [url(2)])


def test_astream_yields_each_stage_in_order() -> None:
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1))

    async def nodes() -> list[str]:
        return [node async for update in graph.astream({"question": QUESTION}) for node in update]

    assert asyncio.run(nodes()) == ["condense", "research", "writer", "validation", "critic", "accept", "source_gate"]


def test_model_writer_prompt_carries_a_bounded_slice_of_every_post() -> None:
    long_post = " ".join(f"Sentence {i} explains caching in some detail here." for i in range(400))
    fake = FakeRetriever(documents=[post(n, long_post) for n in range(1, 13)], queries=[])
    writer = replies(cited_draft(1))
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=fake, settings=Settings(top_k=12))
    graph.invoke({"question": QUESTION}, context={"writer_evidence_chars": 2400})
    prompt = writer.prompts[0]
    assert len(long_post) * 12 > 200_000 and len(prompt) < 2400 + 6000
    assert all(url(n) in prompt for n in range(1, 13))
