"""A reader's own word no page has weighs less in the relevance floor; a tool the site never names is decisive."""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.retrieval.bm25 import term_weights
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.relevance import UNKNOWN_WEIGHT, term_coverage
from askai_graph.rules.named_tools import named_tools
from askai_graph.state import STATE_KEYS
from askai_graph.text.terms import content_terms

SITES = Path(__file__).parent / "data" / "sites"


@pytest.fixture
def pages(tmp_path: Path) -> BM25Retriever:
    corpus = load_corpus(SITES / "mkdocs", base_url="https://docs.example/")
    return BM25Retriever(corpus=corpus, cache_dir=tmp_path, min_term_coverage=0.0)


def test_a_word_no_page_has_costs_the_floor_half_its_weight_among_the_sites_words(pages: BM25Retriever) -> None:
    index = pages._lexical_index()
    assert index is not None
    known = "purge finished jobs"
    hits = pages._rank(known, 3)
    weights = term_weights(index, content_terms(f"{known} zanzibar"))
    full = sum(weights.values())
    unknown = weights["zanzibar"]
    with_word = term_coverage(index, f"{known} zanzibar", hits)[0]
    without = term_coverage(index, known, hits)[0]
    # The same passage score over the known words, divided by their weight plus half the unknown word's.
    assert with_word == pytest.approx(without * (full - unknown) / (full - unknown + UNKNOWN_WEIGHT * unknown))


def test_a_question_made_mostly_of_words_no_page_has_is_weighed_in_full(pages: BM25Retriever) -> None:
    index = pages._lexical_index()
    assert index is not None
    question = "purge zanzibar quokka"
    hits = pages._rank("purge", 3)
    weights = term_weights(index, content_terms(question))
    share = term_coverage(index, question, hits)[0]
    assert share <= weights["purg"] / sum(weights.values())


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("how do I squash commits in git", [("git", True)]),
        ("How do I configure Black's line length?", [("black", True)]),
        ("In Mocha, how do I set a root hook plugin with --require?", [("mocha", True)]),
        ("Which Django setting controls the allowed hosts?", [("django", False)]),
        ("How do I run tests with `jest.fn()`?", []),
        ('My tests die with "SyntaxError: Cannot use import". How do I fix it?', []),  # a pasted message
        ("There's a known bug. Possible?", []),
    ],
)
def test_the_tools_a_question_names(question: str, names: list[tuple[str, bool]]) -> None:
    assert named_tools(question) == names


@pytest.mark.parametrize(
    "question",
    [
        "How do I purge finished jobs in Celery?",  # pointed: no retrieved page mentions it
        "In Zanzibarq, how do I purge finished jobs?",
        "Can Zanzibarq purge finished jobs?",  # capitalised: no page of the site has it
    ],
)
def test_a_question_about_another_tool_ends_in_fallback(question: str, tmp_path: Path, settings: Settings) -> None:
    corpus = load_corpus(SITES / "mkdocs", base_url="https://docs.example/")
    retriever = BM25Retriever(corpus=corpus, cache_dir=tmp_path)
    assert retriever.invoke(
        question.replace("Celery", "").replace("Zanzibarq", "it")
    )  # the site's words pass the floor
    final = build_graph(retriever=retriever, settings=settings).invoke({"question": question}, output_keys=STATE_KEYS)
    assert (final["outcome"], final["answer"], final["sources"]) == ("fallback", FALLBACK_ANSWER, [])


def test_the_same_question_naming_the_sites_own_tool_is_answered(tmp_path: Path, settings: Settings) -> None:
    corpus = load_corpus(SITES / "mkdocs", base_url="https://docs.example/")
    retriever = BM25Retriever(corpus=corpus, cache_dir=tmp_path)
    final = build_graph(retriever=retriever, settings=settings).invoke(
        {"question": "How do I purge finished jobs?"}, output_keys=STATE_KEYS
    )
    assert final["outcome"] != "fallback"
