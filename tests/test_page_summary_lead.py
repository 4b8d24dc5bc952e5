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
