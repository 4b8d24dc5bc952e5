"""The one rule a question must meet before any run, shared by the CLI and the HTTP API.

Each interface words the error its own way (a usage line, a 422 about ``message``);
the rule itself, and its limit (``max_question_chars``), live here only.
"""

from __future__ import annotations

from askai_graph.settings import Settings


class QuestionError(ValueError):
    """The question cannot be asked; ``str(error)`` completes "the question ..."."""


def checked_question(text: str, settings: Settings) -> str:
    """Return the question stripped of surrounding whitespace.

    Raises:
        QuestionError: it is empty (or whitespace only), or longer than
            ``max_question_chars`` characters once stripped.
    """
    question = text.strip()
    if not question:
        raise QuestionError("is empty")
    if len(question) > settings.max_question_chars:
        raise QuestionError(f"is {len(question)} characters; the limit is {settings.max_question_chars}")
    return question
