"""A list that a sentence announces is the answer: quoted under that sentence, read with it as one claim."""

from __future__ import annotations

import json
from typing import Any

from askai_graph import LexicalCritic
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.offline.writer import ExtractiveWriter, plain_text, quoted_in
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.models.writing import DraftRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.sections import IntroducedList, introduced_lists, page_sections
from tests.fakes import post, url

# The items name nothing the question says; the sentence announcing them does.
CHUNKS = """# Chunking

## Why chunk

Smaller chunks produce sharper matches because each passage is about one thing.

## Metadata on every chunk

Each chunk should carry the identifiers needed to cite and filter it later:

- the document ID and the canonical page URL,
- the heading path, for example "Deployment > Timeouts",
- a content hash, so you can detect changes.

Prepending the title to the chunk text before embedding it is a cheap trick.
"""
QUESTION = "What identifiers should every chunk carry?"
ITEMS = ("the document ID and the canonical page URL,", 'the heading path, for example "Deployment > Timeouts",')


def found(*texts: str) -> list[Any]:
    return to_search_results([post(n, text) for n, text in enumerate(texts, start=1)], top_k=10)


def draft_for(question: str, *texts: str, rejected: tuple[str, ...] = ()) -> str:
    request = DraftRequest(question=question, search_results=found(*texts), rejected=list(rejected))
    return ExtractiveWriter().write(request)


def review(question: str, draft: str, *texts: str) -> dict[str, Any]:
    evidence = evidence_slice(question, draft, found(*texts), 6000)
    request = ReviewRequest(question=question, draft=draft, evidence=evidence)
    verdict: dict[str, Any] = json.loads(LexicalCritic().review(request))
    return verdict


def test_a_list_under_a_sentence_ending_with_a_colon_is_found_with_that_sentence() -> None:
    (listed,) = introduced_lists(CHUNKS)
    assert listed == IntroducedList(
        "Each chunk should carry the identifiers needed to cite and filter it later:",
        (*ITEMS, "a content hash, so you can detect changes."),
        ordered=False,
    )


def test_numbered_steps_keep_their_order_and_an_items_further_lines() -> None:
    steps = "To install it:\n\n1. Run the installer\n   for your system.\n2. Restart the shell.\n"
    assert introduced_lists(steps) == (
        IntroducedList("To install it:", ("Run the installer for your system.", "Restart the shell."), ordered=True),
    )


def test_nested_items_are_left_out() -> None:
    text = "It takes two options:\n\n- first\n    - a detail of the first\n- second\n"
    assert introduced_lists(text)[0].items == ("first", "second")


def test_a_list_no_sentence_announces_is_none() -> None:
    assert introduced_lists("Chunks are small.\n\n- one\n- two\n") == ()


def test_a_list_in_a_code_block_is_none() -> None:
    assert introduced_lists("```yaml\nkeys:\n- one\n- two\n```\n") == ()


def test_the_writer_answers_with_the_announced_list_under_its_heading_and_citation() -> None:
    draft = draft_for(QUESTION, CHUNKS)
    opening = draft.split("\n\n")[0]
    assert opening.startswith(
        f"Metadata on every chunk: Each chunk should carry the identifiers needed to cite and filter it later "
        f"([Page 1]({url(1)})):\n- {ITEMS[0]}\n- {ITEMS[1]}"
    )


def test_the_writer_quotes_the_best_sentence_when_the_lead_in_names_one_question_word() -> None:
    # "chunk" alone: the announcing sentence is a passing mention of this question.
    draft = draft_for("Why do smaller chunks produce sharper matches?", CHUNKS)
    assert "identifiers" not in draft and "sharper matches" in draft


def test_a_list_of_one_item_is_not_the_answer() -> None:
    page = CHUNKS.replace('- the heading path, for example "Deployment > Timeouts",\n', "").replace(
        "- a content hash, so you can detect changes.\n", ""
    )
    assert "\n- " not in draft_for(QUESTION, page)


def test_a_retry_after_a_refused_list_answers_from_another_section() -> None:
    first = draft_for(QUESTION, CHUNKS)
    assert "identifiers needed" not in draft_for(QUESTION, CHUNKS, rejected=(first,))


def test_a_draft_opening_with_the_lead_in_alone_did_not_quote_the_list() -> None:
    # "For example" opens many sentences: without the list's first item after it, no list was quoted.
    page = "## Caching\n\nFor example:\n\n- a cache keyed by question\n- a cache keyed by embedding\n"
    (section,) = [s for s in page_sections(found(page)) if s.heading == "Caching"]
    assert not quoted_in(section, [f"For example (a cache helps) ([Page 1]({url(1)}))."])
    listed = f"Caching: For example ([Page 1]({url(1)})):\n- a cache keyed by question\n- a cache keyed by embedding"
    assert quoted_in(section, [listed])


def test_the_critic_reads_the_items_with_the_sentence_that_announces_them() -> None:
    verdict = review(QUESTION, draft_for(QUESTION, CHUNKS), CHUNKS)
    assert verdict["drift_detected"] is False and verdict["confidence"] >= 0.6


def test_items_no_cited_sentence_announces_are_claims_of_their_own() -> None:
    # The same items after a paragraph of their own: they share no question word, so they drift.
    draft = f"Each chunk should carry identifiers ([Page 1]({url(1)})).\n\n- {ITEMS[0]}\n- {ITEMS[1]}"
    assert review(QUESTION, draft, CHUNKS)["drift_detected"] is True


def test_quoted_text_keeps_a_reference_links_text_and_not_brackets_glued_to_a_word() -> None:
    assert plain_text("Types like [`list`][] and [`dict`][typing.Dict], or m[0][1].") == (
        "Types like `list` and `dict`, or m[0][1]."
    )
