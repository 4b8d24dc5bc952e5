"""A draft that leads with a page's opening summary is no evidence that it answers a question about one of its parts."""

from __future__ import annotations

import json
from typing import Any

from askai_graph import LexicalCritic
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.rules.answer_form import is_definition_question
from tests.fakes import post, url

FUSION = """Hybrid search runs a keyword retriever and a vector retriever for the same question and merges
their result lists. This article shows how to fuse the two rankings and how many results to take.

## How many candidates to fuse

Take the top 20 to 50 results from the keyword retriever and from the vector retriever before merging them.
"""
ONE_PART = """Hybrid search runs a keyword retriever and a vector retriever for the same question and merges
their result lists, and the top 20 to 50 results of each are merged.
"""


def critique(question: str, draft: str, *texts: str) -> dict[str, Any]:
    found = to_search_results([post(n, text) for n, text in enumerate(texts, start=1)], top_k=10)
    request = ReviewRequest(question=question, draft=draft, evidence=evidence_slice(question, draft, found, 6000))
    return dict(json.loads(LexicalCritic().review(request)))


INTRO = (
    "Hybrid search runs a keyword retriever and a vector retriever for the same question and merges "
    f"their result lists. ([Page 1]({url(1)}))"
)
QUESTION = "Which results should I merge from the keyword retriever and the vector retriever?"


def test_a_draft_leading_with_the_opening_summary_of_a_page_with_sections_fails_intent() -> None:
    reply = critique(QUESTION, INTRO, FUSION)
    assert reply["intent_alignment"] < 0.5
    assert reply["gaps"]


def test_the_same_sentence_from_a_page_without_sections_is_its_answer() -> None:
    draft = (
        "Hybrid search runs a keyword retriever and a vector retriever for the same question and merges "
        f"their result lists, and the top 20 to 50 results of each are merged. ([Page 1]({url(1)}))"
    )
    assert critique(QUESTION, draft, ONE_PART)["intent_alignment"] == 1.0


def test_a_question_asking_what_the_pages_subject_is_may_be_answered_by_its_summary() -> None:
    reply = critique("What is hybrid search?", INTRO, FUSION)
    assert reply["intent_alignment"] == 1.0


def test_a_definition_question_asks_what_something_is_not_how_to_tune_it() -> None:
    assert is_definition_question("What is hybrid search?")
    assert is_definition_question("what's a retriever")
    assert not is_definition_question("What is the default number of results?")
    assert not is_definition_question("How many results should I merge?")


MATCH_MEDIA = """# Manual mocks

## Methods not in the test environment

If a test uses a method the environment lacks, Jest returns `TypeError: window.matchMedia is not a function`
and doesn't properly execute the test. Mock it before the module under test is imported:

```js
Object.defineProperty(window, 'matchMedia', {writable: true, value: jest.fn()});
```
"""
CRASH = 'My component tests crash with "TypeError: window.matchMedia is not a function"'
SAYS_IT_FAILS = (
    "If a test uses a method the environment lacks, Jest returns `TypeError: window.matchMedia is not a function` "
    f"and doesn't properly execute the test. ([Page 1]({url(1)}))"
)


def test_a_draft_that_only_repeats_the_quoted_error_fails_intent() -> None:
    reply = critique(CRASH, SAYS_IT_FAILS, MATCH_MEDIA)
    assert reply["intent_alignment"] < 0.5


def test_the_quoted_error_followed_by_its_fix_is_an_answer() -> None:
    draft = (
        f"{SAYS_IT_FAILS}\n\n```js\nObject.defineProperty(window, 'matchMedia', "
        "{writable: true, value: jest.fn()});\n```"
    )
    assert critique(CRASH, draft, MATCH_MEDIA)["intent_alignment"] == 1.0


CLI = """# CLI options

## `--watch`

Watch files for changes and rerun tests related to changed files. In most CI environments, this is
automatically handled for you.

## `--passWithNoTests`

Allows the test suite to pass when no files are found.
"""
NO_TESTS = "CI fails on a new package because it has no test files yet. How do I let the CI run succeed?"


def test_a_remark_inside_an_entry_named_for_something_else_fails_intent() -> None:
    draft = f"`--watch`: In most CI environments, this is automatically handled for you. ([Page 1]({url(1)}))"
    assert critique(NO_TESTS, draft, CLI)["intent_alignment"] < 0.5


def test_the_opening_sentence_of_an_entry_may_answer_in_other_words() -> None:
    draft = f"`--passWithNoTests`: Allows the test suite to pass when no files are found. ([Page 1]({url(1)}))"
    assert critique(NO_TESTS, draft, CLI)["intent_alignment"] == 1.0


GUIDE = """# Handling errors

## Override the `HTTPException` handler

Install a custom exception handler. You could also return a `PlainTextResponse` from it instead of JSON.
"""


def test_a_guide_heading_with_code_in_it_is_no_reference_entry() -> None:
    question = "I want errors to come back as plain text instead of JSON. How?"
    draft = (
        "Override the `HTTPException` handler: You could also return a `PlainTextResponse` from it "
        f"instead of JSON. ([Page 1]({url(1)}))"
    )
    assert critique(question, draft, GUIDE)["intent_alignment"] == 1.0
