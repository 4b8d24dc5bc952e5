"""The names an answer must carry: identifiers the question writes, entries spelled from its words."""

from __future__ import annotations

import pytest

from askai_graph.evidence.results import SearchResult
from askai_graph.retrieval.sections import page_sections
from askai_graph.rules.asked_names import carries, missing_name, question_identifiers, spelled_headings


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I use setTimeout in a test?", ["setTimeout"]),
        ("What replaces parse_obj from version 1?", ["parse_obj"]),
        ("What replaces the dict() method?", ["dict"]),
        ("Does --watch rerun tests?", ["--watch"]),
        ("How do I mock jest.fn calls?", ["jest.fn"]),
        ("What does `model_config` hold?", ["model_config"]),
        ("How do I run tests, e.g. in CI?", []),
        ("How do I enable HTTP/2 with Jinja2?", []),
    ],
)
def test_the_identifiers_a_question_writes_as_code(question: str, names: list[str]) -> None:
    assert question_identifiers(question) == names


PAGE = """# Reference

## `beforeEvery(fn)`

Runs a function before every case of the file.

## `setupWorld`

Builds the world once.

## `--only`

Runs one case.
"""


def sections() -> list:
    result = SearchResult(source_url="https://site.example/ref", title="Reference", content=PAGE)
    return page_sections([result])


def test_a_heading_spelled_from_every_word_part_is_found_and_a_one_part_name_is_not() -> None:
    # ``beforeEvery``: before + every, both question words; ``--only`` is one word: no API in particular.
    assert spelled_headings("How do I run something before every case, only once?", sections()) == ["beforeEvery"]


def test_a_heading_with_a_part_the_question_lacks_is_not_spelled_from_it() -> None:
    assert spelled_headings("How do I set up every case?", sections()) == []


def test_an_identifier_the_question_writes_but_no_section_has_is_not_owed() -> None:
    assert missing_name("How do I use tearDownWorld?", "Builds the world once.", sections()) is None


def test_a_spelled_name_is_owed_only_by_a_draft_leading_with_a_reference_entry() -> None:
    question = "How do I run something before every case?"
    assert missing_name(question, "Builds the world once.", sections(), lead_heading="`setupWorld`") == "beforeEvery"
    assert missing_name(question, "Builds the world once.", sections(), lead_heading="Setting up") is None


@pytest.mark.parametrize(
    ("text", "name", "held"),
    [
        ("use parse_obj_as here", "parse_obj", False),
        ("call `parse_obj`.", "parse_obj", True),
        ("model.parse_obj(data)", "parse_obj", True),
        ("jest --watchall", "--watch", False),
        ("jest --watch", "--watch", True),
    ],
)
def test_a_name_is_carried_only_as_a_whole_identifier(text: str, name: str, held: bool) -> None:
    assert carries(text, name) is held
