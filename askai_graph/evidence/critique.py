"""The Critic's five signals, its failure codes, and the strict parser for a model's review reply."""

from __future__ import annotations

import json
import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Critique(BaseModel):
    """A review of one draft, exactly as the Critic model returned it.

    Parsed strictly: ``"false"`` is not ``False``, ``"0.9"`` is not ``0.9``. Unknown keys
    are ignored; a missing key, a wrong type or an out-of-range number is malformed.
    """

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    confidence: float = Field(ge=0, le=1)
    """How sure the reviewer is that the draft answers correctly from the evidence."""
    answer_relevance: float = Field(ge=0, le=1)
    """How much of the question the draft addresses."""
    intent_alignment: float = Field(ge=0, le=1)
    """Whether the draft's form matches what was asked (a list, an explanation...)."""
    drift_detected: bool
    """The draft wanders away from the question."""
    ungrounded_claims: list[str]
    """Claims the evidence does not support; any one is a failure."""
    gaps: list[str] = Field(default_factory=list)
    """What the evidence lacks; fed into the next Research query."""


class ReviewCode(StrEnum):
    """Why a draft failed the Critic gate; each member's value is the string in state and SSE.

    Like Validation's ``Code``, the values are a public contract (``step`` events carry
    them as ``failures``): never renamed or reused for another rule.
    """

    LOW_CONFIDENCE = "low_confidence"
    """``confidence`` below ``min_confidence`` (the one failure catalog early acceptance tolerates)."""
    LOW_RELEVANCE = "low_relevance"
    """``answer_relevance`` below ``min_answer_relevance``."""
    INTENT_MISMATCH = "intent_mismatch"
    """``intent_alignment`` below ``min_intent_alignment``."""
    DRIFT = "drift"
    """The reviewer found the draft drifting away from the question."""
    UNGROUNDED_CLAIMS = "ungrounded_claims"
    """At least one claim the evidence does not support."""
    MALFORMED_REVIEW = "malformed_review"
    """The reviewer's reply is not exactly one valid Critique (never partially trusted)."""
    PROVIDER_ERROR = "provider_error"
    """The reviewer failed (timeout, HTTP error...): a gate failure, never a crash."""


class MalformedReview(ValueError):
    """The Critic's reply is not a valid Critique; never partially trusted."""


_FENCED_JSON = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL)


def parse_critique(reply: str) -> Critique:
    """Parse a Critic reply: one JSON object, optionally in a single ```json fence.

    Raises:
        MalformedReview: the reply is not exactly one valid Critique object.
    """
    text = reply.strip()
    fenced = _FENCED_JSON.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedReview(f"review is not a JSON object: {exc.msg}") from None
    if not isinstance(data, dict):
        raise MalformedReview("review is not a JSON object")
    try:
        # Strict mode accepts ints for floats (JSON has one number type) but no strings.
        return Critique.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "review"
        raise MalformedReview(f"{where}: {first['msg']}") from None
