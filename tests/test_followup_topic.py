"""An offline follow-up carries the previous turn's topic: the words its accepted answer used, the entry it led with."""

from __future__ import annotations

from askai_graph.models.condensing import CondenseRequest
from askai_graph.models.offline.condenser import LexicalCondenser, rewrite
from askai_graph.state import Turn

IGNORE_ANSWER = "To exclude files from formatting, list them in a `.prettierignore` file ([Ignoring Code](https://p.example/ignore))."
WATCH_ANSWER = (
    "`--watch`: Watch files for changes and rerun tests related to changed files ([CLI](https://j.example/cli))."
)


def test_a_readers_word_the_accepted_answer_never_used_is_not_carried() -> None:
    standalone = rewrite(
        "And what about one block inside a Markdown file?", "How do I exclude whole files?", IGNORE_ANSWER
    )
    assert standalone == "And what about one block inside a Markdown file? (exclude)"


def test_the_entry_the_answer_led_with_is_carried_first() -> None:
    standalone = rewrite("How do I make it re-run tests when I save a file?", "What does the CLI offer?", WATCH_ANSWER)
    assert standalone == "How do I make it re-run tests when I save a file? (watch CLI)"


def test_an_answer_that_was_not_accepted_is_no_topic() -> None:
    turn = Turn(
        question="What does the CLI offer?",
        standalone_question="What does the CLI offer?",
        answer=WATCH_ANSWER,
        outcome="degraded",
    )
    request = CondenseRequest(question="How do I make it re-run tests when I save a file?", history=[turn])
    assert LexicalCondenser().condense(request) == "How do I make it re-run tests when I save a file? (CLI offer)"
