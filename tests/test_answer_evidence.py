"""The offline Critic accepts on evidence that a draft answers the asked thing, not on shared words."""

from __future__ import annotations

import json
from typing import Any

from askai_graph import LexicalCritic
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.nodes.research import to_search_results
from tests.fakes import post, url

OPTIONS = """# Configuring the runner

## `workerIdleMemoryLimit` [number]

Specifies the memory limit of each worker process before it is recycled, so that long runs keep a steady
footprint however many worker processes are spawned in parallel.

## `maxWorkers` [number]

Specifies the maximum number of worker processes the runner spawns to run tests in parallel.

## `clearMocks` [boolean]

Automatically clear mock calls and instances before every test.
"""


def critique(question: str, draft: str) -> dict[str, Any]:
    found = to_search_results([post(1, OPTIONS)], top_k=10)
    request = ReviewRequest(question=question, draft=draft, evidence=evidence_slice(question, draft, found, 6000))
    return dict(json.loads(LexicalCritic().review(request)))


WRONG_ENTRY = (
    "`workerIdleMemoryLimit` [number]: Specifies the memory limit of each worker process before it is recycled, "
    "so that long runs keep a steady footprint however many worker processes are spawned in parallel. "
    f"([Page 1]({url(1)}))"
)


def test_a_reference_entry_named_otherwise_that_only_shares_words_fails_with_the_topic_as_gaps() -> None:
    reply = critique("How do I cap how many worker processes are spawned in parallel?", WRONG_ENTRY)
    assert reply["intent_alignment"] < 0.5
    assert "parallel" in reply["gaps"]  # the topic words the entry's heading lacks steer the retry


def test_an_entry_whose_heading_names_the_topic_passes() -> None:
    draft = (
        "`maxWorkers` [number]: Specifies the maximum number of worker processes the runner spawns to run "
        f"tests in parallel. ([Page 1]({url(1)}))"
    )
    reply = critique("What sets the number of workers?", draft)
    assert reply["intent_alignment"] >= 0.5, reply


def test_an_entry_whose_name_is_spelled_from_the_question_passes() -> None:
    draft = (
        f"`clearMocks` [boolean]: Automatically clear mock calls and instances before every test. ([Page 1]({url(1)}))"
    )
    reply = critique("How do I clear mocks between tests?", draft)
    assert reply["intent_alignment"] >= 0.5, reply


def test_a_draft_carrying_the_identifier_the_question_writes_passes() -> None:
    reply = critique("What does workerIdleMemoryLimit do to a worker process?", WRONG_ENTRY)
    assert reply["intent_alignment"] >= 0.5, reply
