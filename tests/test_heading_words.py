"""A page's heading names what its section covers: the Critic counts it with the sentences quoted from that section."""

from __future__ import annotations

import json

from askai_graph import LexicalCritic
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.sections import heading_terms
from askai_graph.text.terms import stem
from tests.fakes import post, url

QUOTED = "An SSE response has the content type text/event-stream and stays open while the server writes events."
OTHER = "A client reconnects after the delay the retry field sets, in milliseconds."
# "wire" is on the page only in the heading over the quoted sentence.
PAGE = f"Intro to streaming.\n\n## The wire format\n\n{QUOTED}\n\n## Reconnecting\n\n{OTHER}\n"
# The same words, with the heading over the other section.
ELSEWHERE = f"Intro to streaming.\n\n## Event responses\n\n{QUOTED}\n\n## The wire format\n\n{OTHER}\n"
QUESTION = "What is the wire format of an event-stream response?"


# The Critic reads a slice of a long page: here the quoted sentence, not the other section's.
BUDGET = 150


def review(page: str) -> dict[str, object]:
    found = to_search_results([post(1, page)], top_k=10)
    draft = f"{QUOTED} ([Page 1]({url(1)}))"
    evidence = evidence_slice(QUESTION, draft, found, BUDGET)
    assert OTHER not in evidence[0].text
    request = ReviewRequest(question=QUESTION, draft=draft, evidence=evidence)
    verdict: dict[str, object] = json.loads(LexicalCritic().review(request))
    return verdict


def test_heading_terms_are_those_over_the_sections_the_quoted_sentences_come_from() -> None:
    terms = heading_terms("Streaming", PAGE, QUOTED)
    assert stem("wire") in terms and stem("format") in terms
    assert stem("reconnecting") not in terms


def test_a_question_word_only_the_quoted_sections_heading_has_is_no_gap() -> None:
    verdict = review(PAGE)
    assert "wire" not in verdict["gaps"]
    assert float(verdict["confidence"]) >= 0.6  # type: ignore[arg-type]


def test_a_question_word_only_another_sections_heading_has_is_still_a_gap() -> None:
    # The quoted section is not headed with the wire format: another one, not in the slice, is.
    verdict = review(ELSEWHERE)
    assert "wire" in verdict["gaps"]
    assert float(verdict["confidence"]) < float(review(PAGE)["confidence"])  # type: ignore[arg-type]
