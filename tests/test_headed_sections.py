"""A section whose heading names the question answers it, though its sentences never repeat the question's words."""

from __future__ import annotations

import json

from askai_graph import LexicalCritic
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.offline.writer import NOTHING_FOUND, ExtractiveWriter
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.models.writing import DraftRequest
from askai_graph.nodes.research import to_search_results
from tests.fakes import post, url

PAGE = """# Agents

## Bounding the loop

Every cycle in the graph needs a limit. Count attempts in the state and route to a fallback
node when the limit is reached. Treat hitting the recursion limit as a bug in your routing.
"""
QUESTION = "How do you bound the loop?"


def draft_for(question: str) -> str:
    found = to_search_results([post(1, PAGE)], top_k=10)
    return ExtractiveWriter().write(DraftRequest(question=question, search_results=found))


def test_the_writer_quotes_the_opening_of_the_section_its_heading_names_under_that_heading() -> None:
    assert draft_for(QUESTION) == (
        "Bounding the loop: Every cycle in the graph needs a limit. Count attempts in the state and route to a "
        f"fallback node when the limit is reached. ([Page 1]({url(1)}))"
    )


def test_a_heading_sharing_one_of_the_questions_words_is_no_answer() -> None:
    assert draft_for("How do you bound the retries?") == NOTHING_FOUND


def test_the_critic_accepts_the_headed_answer() -> None:
    draft = draft_for(QUESTION)
    found = to_search_results([post(1, PAGE)], top_k=10)
    request = ReviewRequest(question=QUESTION, draft=draft, evidence=evidence_slice(QUESTION, draft, found, 6000))
    verdict = json.loads(LexicalCritic().review(request))
    assert verdict["drift_detected"] is False and verdict["confidence"] >= 0.6 and verdict["gaps"] == []
