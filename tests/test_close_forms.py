"""The relevance floor never refuses a question because the page spells its word in another degree."""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.state import STATE_KEYS
from askai_graph.text.terms import close_forms, known_form, stem

LIGHTHOUSES = """---
title: Lighthouses of the north coast
url: https://coast.example/lighthouses/
---
# Lighthouses of the north coast

## Skerry Point

Skerry Point is the tallest lighthouse on the north coast, at 61 metres from rock to lantern.
Its keepers left in 1987 when the light was automated.

## Harbour light

The harbour light is a short iron tower painted red, lit by a solar panel since 2004.
"""

FERRIES = """---
title: Ferries
url: https://coast.example/ferries/
---
# Ferries

Ferries leave the harbour every hour in summer and every two hours in winter.
"""


@pytest.mark.parametrize(
    ("word", "page_word"),
    [("tall", "tallest"), ("tallest", "tall"), ("big", "biggest"), ("easy", "easier"), ("larger", "large")],
)
def test_a_word_meets_its_comparative_superlative_or_base_form(word: str, page_word: str) -> None:
    assert stem(page_word) in close_forms(stem(word))
    assert known_form(stem(word), {stem(page_word)}) == stem(page_word)


def test_a_word_the_page_holds_is_kept_as_it_is() -> None:
    assert known_form("tall", {"tall", "tallest"}) == "tall"


def coast(tmp_path: Path, settings: Settings) -> BM25Retriever:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "lighthouses.md").write_text(LIGHTHOUSES)
    (tmp_path / "docs" / "ferries.md").write_text(FERRIES)
    return BM25Retriever(corpus=load_corpus(tmp_path / "docs"), cache_dir=settings.index_cache_dir)


def test_a_question_with_the_base_form_of_the_pages_superlative_is_answered(tmp_path: Path, settings: Settings) -> None:
    final = build_graph(retriever=coast(tmp_path, settings), settings=settings).invoke(
        {"question": "How tall is the lighthouse?"}, output_keys=STATE_KEYS
    )
    assert final["outcome"] != "fallback"
    assert "61 metres" in final["answer"]


def test_an_uncovered_question_still_falls_back(tmp_path: Path, settings: Settings) -> None:
    final = build_graph(retriever=coast(tmp_path, settings), settings=settings).invoke(
        {"question": "How tall is the cathedral spire?"}
    )
    assert (final["outcome"], final["answer"], final["sources"]) == ("fallback", FALLBACK_ANSWER, [])
