"""Labelled questions for ``askai eval``: one JSON object per line, checked line by line.

A line is ``{"question", "expected_urls"?: [...], "kind"?: "answer"|"catalog"|"offtopic",
"must_mention"?: [...]}``, or a follow-up pair ``{"question", "follow_up", "expected_urls",
"must_mention"?}``: ``question`` is asked first, then ``follow_up`` on the same thread, and
the labels are the follow-up's (its ``kind`` is ``followup``). Blank lines and lines
starting with ``#`` are skipped. Any other line that is not such an object stops the load
with its line number, so a typo in a hand-written set is found at once instead of silently shrinking the evaluation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from askai_graph.settings.answer import LOCALE_PATTERN, VERSION_PATTERN

Kind = Literal["answer", "catalog", "offtopic", "followup"]


class DatasetError(ValueError):
    """The questions file cannot be read, or one of its lines is not a valid question."""


class EvalQuestion(BaseModel):
    """One labelled question."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    question: str = Field(min_length=1)
    """What a reader asks, exactly as they would type it."""
    expected_urls: tuple[str, ...] = ()
    """Pages that answer it (relevant documents for the retrieval and citation metrics)."""
    kind: Kind = "answer"
    """``answer`` (a topical question), ``catalog`` (asks what content exists) or
    ``offtopic`` (the site cannot answer it: it must end without source cards) or
    ``followup`` (a pair: ``question``, then ``follow_up`` on its thread; set by ``follow_up``)."""
    follow_up: str | None = Field(None, min_length=1)
    """A follow-up pair's second question, asked on the first one's thread; the labels are its."""
    must_mention: tuple[str, ...] = ()
    """Terms a shown answer must contain (case-insensitive)."""
    version: str | None = Field(None, pattern=VERSION_PATTERN)
    """The docs version the reader reads (the run's ``version``); absent: the site's default."""
    locale: str | None = Field(None, pattern=LOCALE_PATTERN)
    """The reader's language (the run's ``locale``); absent: the site's default."""
    line: int = 0
    """Line number in the file (set by ``load_questions``)."""

    @field_validator("expected_urls", "must_mention", mode="before")
    @classmethod
    def _list_of_strings(cls, value: object) -> object:
        # strict mode refuses a JSON list for a tuple; accept a list of non-empty strings.
        if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
            return tuple(value)
        raise ValueError("must be a list of non-empty strings")

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value


def parse_line(text: str, line: int) -> EvalQuestion:
    """Parse one line of the questions file.

    Raises:
        DatasetError: ``line N: <why>`` when the line is not valid JSON or not a valid question.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"line {line}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise DatasetError(f"line {line}: expected a JSON object, got {type(data).__name__}")
    if "line" in data:
        raise DatasetError(f"line {line}: unknown field 'line'")
    if "follow_up" in data:
        data = {"kind": "followup", **data}
    try:
        question = EvalQuestion.model_validate({**data, "line": line})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "question"
        raise DatasetError(f"line {line}: {where}: {error['msg']}") from exc
    if question.kind == "offtopic" and question.expected_urls:
        raise DatasetError(f"line {line}: an offtopic question cannot have expected_urls")
    if (question.kind == "followup") != (question.follow_up is not None):
        raise DatasetError(f"line {line}: a follow-up pair needs both kind followup and follow_up")
    if question.follow_up is not None and not (question.follow_up.strip() and question.expected_urls):
        raise DatasetError(f"line {line}: a follow-up pair needs a follow_up and its expected_urls")
    return question


def load_questions(path: Path, *, pairs_only: bool = False) -> list[EvalQuestion]:
    """Read every question of a JSONL file (``pairs_only``: every line must be a follow-up pair).

    Raises:
        DatasetError: the file is missing or unreadable, empty, or has a bad line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from exc
    questions = [
        parse_line(raw, number)
        for number, raw in enumerate(text.splitlines(), start=1)
        if raw.strip() and not raw.lstrip().startswith("#")
    ]
    if not questions:
        raise DatasetError(f"{path} has no questions")
    if pairs_only and (single := next((q for q in questions if q.follow_up is None), None)):
        raise DatasetError(f"line {single.line}: not a follow-up pair (no follow_up)")
    return questions
