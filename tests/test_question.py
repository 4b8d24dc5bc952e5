"""The question rule shared by the CLI and the HTTP API."""

from __future__ import annotations

import pytest

from askai_graph import Settings
from askai_graph.rules.question import QuestionError, checked_question


def test_a_question_is_stripped() -> None:
    assert checked_question("  What is BM25?\n", Settings()) == "What is BM25?"


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_question_is_refused(text: str) -> None:
    with pytest.raises(QuestionError, match="is empty"):
        checked_question(text, Settings())


def test_a_question_over_the_limit_is_refused_after_stripping() -> None:
    assert checked_question(" " + "x" * 10 + " ", Settings(max_question_chars=10)) == "x" * 10
    with pytest.raises(QuestionError, match="is 11 characters; the limit is 10"):
        checked_question("x" * 11, Settings(max_question_chars=10))
