"""The process-wide caches stay small whatever readers ask (issue #37).

A server answers questions no one asked before for as long as it runs; every cache their
text reaches must stop growing at a bound, and that bound must cost little memory.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import askai_graph
from askai_graph.evidence.results import EvidencePassage, SearchResult
from askai_graph.models.offline import critic
from askai_graph.retrieval import sections
from askai_graph.rules import answer_form, catalog
from askai_graph.server.answers import same_question
from askai_graph.text import terms

ONE_OFF_KEYS = 1_000
"""At least this many distinct keys, and four times the bound: a long-running server's one-off questions."""


def _question(n: int) -> str:
    return f"How do I tune semantic caching? (reader {n:06x}, case {n})"


def _passage(n: int) -> EvidencePassage:
    result = SearchResult(title="Semantic caching", source_url="https://x.example/caching/", content="Caching.")
    sentence = f"A semantic cache serves answer {n} to a paraphrase whose embedding lies within the threshold. "
    return EvidencePassage(result=result, text=sentence * 8)


def _sentence(n: int) -> str:
    return f"Set the threshold of answer {n} so that a paraphrase within it is served from the cache."


CASES: list[tuple[str, Callable[..., Any], int, Callable[[int], tuple[Any, ...]], float]] = [
    ("question tokens", same_question._tokens, same_question.TOKENS_CACHED, lambda n: (_question(n),), 0.5),
    ("short text terms", terms._short_text_terms, terms.SHORT_TEXTS_CACHED, lambda n: (_question(n),), 4.0),
    ("stems", terms.stem, terms.STEMS_CACHED, lambda n: (f"reader{n:06x}",), 2.5),
    ("critic passage terms", critic._passage_terms, critic.PASSAGES_CACHED, lambda n: (_passage(n).text, ""), 2.0),
    (
        "quoted headings",
        sections._heading_terms,
        sections.HEADINGS_CACHED,
        lambda n: ("Caching", "## Thresholds\n\nCaching.", _passage(n).text, ""),
        2.0,
    ),
    ("question forms", answer_form.question_form, answer_form.QUESTIONS_CACHED, lambda n: (_question(n),), 0.5),
    ("asked verbs", answer_form.asked_verb, answer_form.QUESTIONS_CACHED, lambda n: (_question(n),), 0.5),
    ("catalog questions", catalog.is_catalog_question, catalog.QUESTIONS_CACHED, lambda n: (_question(n),), 0.5),
    ("sentence splits", terms._short_sentences, terms.SHORT_TEXTS_CACHED, lambda n: (_passage(n).text,), 6.0),
    ("instruction marks", answer_form._instruction_marks, terms.SHORT_TEXTS_CACHED, lambda n: (_sentence(n), ""), 2.0),
]


@pytest.mark.parametrize(
    ("cached", "bound", "key", "budget_mb"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_one_off_questions_fill_a_cache_only_to_its_bound_and_budget(
    cached: Any, bound: int, key: Callable[[int], tuple[Any, ...]], budget_mb: float
) -> None:
    others = [case[1] for case in CASES if case[1] is not cached]
    keys = max(ONE_OFF_KEYS, 4 * bound)
    cached.cache_clear()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(keys):
            cached(*key(n))
        for other in others:  # filled on the way (a passage's terms stem its words): not this cache's memory
            other.cache_clear()
        held = tracemalloc.get_traced_memory()[0] - before
        assert cached.cache_info().currsize == bound
    finally:
        tracemalloc.stop()
        cached.cache_clear()
    assert held < budget_mb * 1e6, f"{held / 1e6:.2f} MB held after {keys} one-off keys"


def test_a_question_asked_again_within_its_request_is_tokenized_once() -> None:
    same_question._tokens.cache_clear()
    same_question.exact_key(_question(1))
    for n in range(2, same_question.TOKENS_CACHED // 2):  # other requests' questions in between
        same_question.exact_key(_question(n))
    same_question.contrast(_question(1), _question(1))
    assert same_question._tokens.cache_info().hits >= 2
    same_question._tokens.cache_clear()


def _package_modules() -> list[Any]:
    modules = []
    for info in pkgutil.walk_packages(askai_graph.__path__, "askai_graph."):
        if info.name.endswith("__main__"):  # importing it runs the command line
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except ImportError:  # an optional extra (torch, Sphinx, MkDocs) not installed
            continue
    return modules


def test_every_cache_in_the_package_has_a_bound() -> None:
    unbounded = []
    for module in _package_modules():
        for name, value in vars(module).items():
            info = getattr(value, "cache_info", None)
            if not callable(info) or getattr(value, "__module__", None) != module.__name__:
                continue
            takes_arguments = bool(inspect.signature(value).parameters)
            if info().maxsize is None and takes_arguments:
                unbounded.append(f"{module.__name__}.{name}")
    assert unbounded == []
