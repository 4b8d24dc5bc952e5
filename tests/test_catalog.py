"""Catalog intent detection is deterministic and documented."""

from __future__ import annotations

import pytest

from askai_graph import is_catalog_question


@pytest.mark.parametrize(
    "question",
    [
        "What course articles do you have?",
        "what articles do you have",
        "Which posts are there?",
        "What lessons are available?",
        "List all posts",
        "Show me your articles.",
        "Give me a list of the course lessons",
        "What do you cover?",
        "What topics does the course cover?",
        "Table of contents",
        "List all the pages in the docs.",
        "What tutorials are there?",
        "What guides are there?",
        "What docs are there?",
        "What topics are there?",
        "Show me the table of contents",
        "What can you help me with?",
        "Which tutorials are on this site?",
        "Which topics does the course cover?",
    ],
)
def test_catalog_phrasings_are_detected(question: str) -> None:
    assert is_catalog_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is semantic caching?",
        "How do I bake sourdough bread?",
        "How should posts cite their sources?",
        "Which retrieval metric should I use?",
        "What does the article on BM25 say about saturation?",
        "What guides are there for deploying to a container?",
        "What articles do you have about caching?",
        "What can you tell me about BM25 saturation?",
    ],
)
def test_ordinary_questions_are_not_catalog_questions(question: str) -> None:
    assert not is_catalog_question(question)
