"""The Critic's reply contract: strict JSON, never partially trusted."""

from __future__ import annotations

import json

import pytest

from askai_graph import Critique, MalformedReview, ReviewCode, Settings, parse_critique
from askai_graph.rules.gates import review_failures
from tests.fakes import PASSING, review

VALID = json.loads(PASSING)


def without(key: str) -> str:
    return json.dumps({k: v for k, v in VALID.items() if k != key})


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("looks good to me", id="not-json"),
        pytest.param("", id="empty"),
        pytest.param("[1, 2]", id="json-array"),
        pytest.param('{"confidence": 0.9', id="truncated"),
        pytest.param(without("confidence"), id="missing-confidence"),
        pytest.param(without("answer_relevance"), id="missing-answer-relevance"),
        pytest.param(without("intent_alignment"), id="missing-intent-alignment"),
        pytest.param(without("drift_detected"), id="missing-drift"),
        pytest.param(without("ungrounded_claims"), id="missing-ungrounded-claims"),
        pytest.param(review(drift_detected="false"), id="string-false-for-bool"),
        pytest.param(review(drift_detected=0), id="int-for-bool"),
        pytest.param(review(confidence="0.9"), id="string-for-number"),
        pytest.param(review(confidence=True), id="bool-for-number"),
        pytest.param(review(ungrounded_claims="none"), id="string-for-list"),
        pytest.param(review(ungrounded_claims=[1]), id="non-string-claim"),
        pytest.param(review(gaps=None), id="null-gaps"),
        pytest.param(review(confidence=1.5), id="score-above-1"),
        pytest.param(review(answer_relevance=-0.1), id="score-below-0"),
        pytest.param(
            '{"confidence": NaN, "answer_relevance": 1, "intent_alignment": 1, '
            '"drift_detected": false, "ungrounded_claims": []}',
            id="nan-score",
        ),
        pytest.param("Here is my review: " + PASSING, id="prose-before-json"),
        pytest.param(PASSING + "\nHope this helps!", id="prose-after-json"),
        pytest.param(f"```json\n{PASSING}\n```\n```json\n{PASSING}\n```", id="two-fences"),
    ],
)
def test_malformed_reply_is_rejected_whole(reply: str) -> None:
    with pytest.raises(MalformedReview):
        parse_critique(reply)


def test_valid_reply_parses() -> None:
    assert parse_critique(PASSING) == Critique(**VALID)


def test_reply_in_a_single_json_fence_is_accepted() -> None:
    assert parse_critique(f"```json\n{PASSING}\n```") == parse_critique(PASSING)


def test_unknown_extra_keys_are_ignored() -> None:
    assert parse_critique(review(verdict="pass")) == parse_critique(PASSING)


def test_omitted_gaps_mean_none() -> None:
    assert parse_critique(without("gaps")).gaps == []


def test_integer_scores_are_numbers() -> None:
    assert parse_critique(review(confidence=1)).confidence == 1.0


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"confidence": 0.59}, "low_confidence"),
        ({"answer_relevance": 0.49}, "low_relevance"),
        ({"intent_alignment": 0.49}, "intent_mismatch"),
        ({"drift_detected": True}, "drift"),
        ({"ungrounded_claims": ["Caches never expire."]}, "ungrounded_claims"),
    ],
)
def test_each_signal_below_its_threshold_is_a_failure(overrides: dict[str, object], code: str) -> None:
    assert [f.code for f in review_failures(parse_critique(review(**overrides)), Settings())] == [code]


def test_thresholds_are_settings() -> None:
    assert review_failures(parse_critique(review(confidence=0.59)), Settings(min_confidence=0.5)) == []


def test_critic_node_records_a_malformed_reply_as_its_own_failure() -> None:
    from askai_graph.nodes.critic import judged

    update = judged("definitely fine", Settings())
    assert update["critique"] is None
    assert [f.code for f in update["review_failures"]] == ["malformed_review"]


def test_critic_node_treats_a_non_text_reply_as_malformed() -> None:
    from askai_graph.nodes.critic import judged

    assert [f.code for f in judged(None, Settings())["review_failures"]] == ["malformed_review"]


def test_review_codes_keep_the_strings_events_carry() -> None:
    assert {code.value for code in ReviewCode} == {
        "low_confidence",
        "low_relevance",
        "intent_mismatch",
        "drift",
        "ungrounded_claims",
        "malformed_review",
        "provider_error",
    }


def test_every_threshold_failure_has_a_review_code() -> None:
    failing = review(
        confidence=0.1, answer_relevance=0.1, intent_alignment=0.1, drift_detected=True, ungrounded_claims=["x"]
    )
    critique = parse_critique(failing)
    codes = [failure.code for failure in review_failures(critique, Settings())]
    assert codes == [code.value for code in ReviewCode][:5]
