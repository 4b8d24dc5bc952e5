"""An accepted answer comes from a section on the question's topic; an uncovered question falls back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from langchain_core.documents import Document

from askai_graph import LexicalCritic, Settings, build_graph, load_corpus
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.offline.critic import MEANING_TOPIC_COVERAGE, MIN_TOPIC_COVERAGE
from askai_graph.models.offline.writer import named_weight
from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.models.providers import default_critic
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.relevance import term_coverage
from askai_graph.retrieval.sections import page_sections, rank_sections, term_rarity, topic_coverage
from askai_graph.rules.answer_form import topic_words
from tests.fakes import post, url

# A test runner's docs: every section says "test"; one page is about TypeScript.
RUNNER = """# Writing tests

Every test file holds tests that the runner collects and runs in parallel.

## Parametrised tests

Write one test for many inputs with a table of cases; the runner runs each row as a test.
Set the table as the first argument of the test function:

```js
test.each([[1, 2], [3, 4]])('adds %i', (a, b) => {});
```
"""
TYPESCRIPT = """# TypeScript

Tests written in TypeScript need a transformer before the runner can load them.

## Using the TypeScript preset

Install the preset and name it in the configuration so every test file is compiled first:

```js
module.exports = {preset: 'ts-preset'};
```
"""


def critique(question: str, draft: str, *texts: str) -> dict[str, Any]:
    found = to_search_results([post(n, text) for n, text in enumerate(texts, start=1)], top_k=10)
    request = ReviewRequest(question=question, draft=draft, evidence=evidence_slice(question, draft, found, 6000))
    return dict(json.loads(LexicalCritic().review(request)))


def test_topic_words_are_whole_words_without_the_asked_verb_or_framing() -> None:
    assert topic_words("How do I write my tests in TypeScript?") == ["test", "typescript"]
    assert topic_words("How does the cache decide a hit?") == ["cach", "hit"]


def test_a_draft_whose_instruction_comes_from_a_section_off_the_topic_fails_with_the_topic_as_gap() -> None:
    question = "How do I write my tests in TypeScript?"
    draft = (
        "Set the table as the first argument of the test function. "
        f"([Page 1]({url(1)}))\n\n```js\ntest.each([[1, 2], [3, 4]])('adds %i', (a, b) => {{}});\n```"
    )
    reply = critique(question, draft, RUNNER, TYPESCRIPT)
    assert reply["answer_relevance"] > 0 and reply["ungrounded_claims"] == []  # shares words, is grounded...
    assert reply["intent_alignment"] < 0.5  # ...but its instruction is about parametrised tests
    assert "typescript" in reply["gaps"]  # the retry's Research searches for the topic


def test_the_same_question_answered_from_the_topic_section_passes_the_topic_check() -> None:
    question = "How do I write my tests in TypeScript?"
    draft = (
        "Install the preset and name it in the configuration so every test file is compiled first. "
        f"([Page 2]({url(2)}))\n\n```js\nmodule.exports = {{preset: 'ts-preset'}};\n```"
    )
    reply = critique(question, draft, RUNNER, TYPESCRIPT)
    assert reply["intent_alignment"] == 1.0 and "typescript" not in reply["gaps"]


HOW_TO = """---
title: Compatible encoder
url: https://api.example/docs/encoder/
---
# Compatible encoder

A record often has to become plain data before a JSON library can serialise it.

## Using the `to_plain` function

Pass the record to `to_plain` to get plain data back.

## Dates

Dates become ISO strings for the JSON library.

## Sets

Sets become lists.
"""


def test_for_a_how_to_the_writer_weighs_a_section_whose_heading_names_the_api_higher() -> None:
    found = to_search_results(
        [
            Document(
                page_content=HOW_TO.split("---\n", 2)[2], metadata={"source_url": url(1), "title": "Compatible encoder"}
            )
        ],
        top_k=5,
    )
    sections = page_sections(found)
    question = "How do I turn a record into plain data for a JSON library?"
    plain = [s.heading for s, _ in rank_sections(question, sections)]
    weighted = [s.heading for s, _ in rank_sections(question, sections, weight=named_weight)]
    assert plain[0] == "Compatible encoder"  # the opening restates the question best...
    assert weighted[0] == "Using the `to_plain` function"  # ...the named section says what to use
    assert named_weight(sections[0]) == 1.0


# A page that repeats one word of an off-topic question many times (a screen layout).
LAYOUT = """---
title: Testing a mobile screen
url: https://runner.example/docs/mobile/
---
# Testing a mobile screen

Snapshot the screen component and compare it on every run:

```js
const styles = {row: {align: 'center'}, title: {align: 'center'}, body: {align: 'center'},
  footer: {align: 'center'}, icon: {align: 'center'}, badge: {align: 'center'}};
```

The center of the screen holds the title; the snapshot keeps the center aligned.
"""
RUNS = """---
title: Running tests
url: https://runner.example/docs/running/
---
# Running tests

The runner collects every test file and runs the tests in parallel workers. Pick the
number of workers with the workers option.
"""


def test_a_question_one_of_whose_words_a_page_repeats_still_falls_back(tmp_path: Path, settings: Settings) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mobile.md").write_text(LAYOUT)
    (tmp_path / "docs" / "running.md").write_text(RUNS)
    pages = BM25Retriever(corpus=load_corpus(tmp_path / "docs"), cache_dir=settings.index_cache_dir)
    hits = pages._rank("How do I center a div in CSS?", 3)
    assert hits  # BM25 finds the layout page by "center" alone...
    assert term_coverage(pages._lexical_index(), "How do I center a div in CSS?", hits) == [0.0] * len(hits)
    final = build_graph(retriever=pages, settings=settings).invoke({"question": "How do I center a div in CSS?"})
    assert (final["outcome"], final["answer"], final["sources"]) == ("fallback", FALLBACK_ANSWER, [])


def test_a_question_whose_words_a_page_holds_together_passes_the_floor(tmp_path: Path, settings: Settings) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mobile.md").write_text(LAYOUT)
    (tmp_path / "docs" / "running.md").write_text(RUNS)
    pages = BM25Retriever(corpus=load_corpus(tmp_path / "docs"), cache_dir=settings.index_cache_dir)
    found = pages.invoke("How do I snapshot a mobile screen?")
    assert found[0].metadata["source_url"] == "https://runner.example/docs/mobile/"


def test_a_two_word_question_is_covered_by_a_page_holding_one_of_its_words(tmp_path: Path, settings: Settings) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mobile.md").write_text(LAYOUT)
    (tmp_path / "docs" / "running.md").write_text(RUNS)
    pages = BM25Retriever(corpus=load_corpus(tmp_path / "docs"), cache_dir=settings.index_cache_dir)
    # "pick" is on another page: a short question's rarer word alone covers it.
    found = pages.invoke("Which snapshot should I pick?")
    assert found and found[0].metadata["source_url"] == "https://runner.example/docs/mobile/"


# Fake timers answer "skip the sleeping through delays" in words the section never uses.
TIMERS = """# Timer mocks

Fake timers stand in for the real clock, so a test never sleeps through a delay.

## Advancing the clock

Move the fake clock ahead in a test by a number of milliseconds:

```js
jest.advanceTimersByTime(1000);
```
"""
RETRIES = """# Retries

A failed request is retried after a delay that doubles with each retry, and the client sleeps in between.
"""
SYNONYM_QUESTION = "How do I skip the sleeping through delays in a test?"
SYNONYM_DRAFT = (
    "Move the fake clock ahead in a test by a number of milliseconds. "
    f"([Page 1]({url(1)}))\n\n```js\njest.advanceTimersByTime(1000);\n```"
)


def synonym_review(critic: LexicalCritic) -> dict[str, Any]:
    found = to_search_results([post(1, TIMERS), post(2, RETRIES)], top_k=10)
    evidence = evidence_slice(SYNONYM_QUESTION, SYNONYM_DRAFT, found, 6000)
    request = ReviewRequest(question=SYNONYM_QUESTION, draft=SYNONYM_DRAFT, evidence=evidence)
    return dict(json.loads(critic.review(request)))


def test_a_critic_for_retrieval_that_reads_meaning_accepts_a_lead_naming_a_third_of_the_topic() -> None:
    # The lead section names "test" of sleep, delay and test: a third of the topic, by IDF.
    sections = page_sections(to_search_results([post(1, TIMERS), post(2, RETRIES)], top_k=10))
    rarity = term_rarity(topic_words(SYNONYM_QUESTION), sections)
    assert MEANING_TOPIC_COVERAGE <= topic_coverage(rarity, sections[1]) < MIN_TOPIC_COVERAGE
    lexical = synonym_review(LexicalCritic())
    assert lexical["intent_alignment"] < 0.5 and "delay" in lexical["gaps"]  # BM25 alone: another topic
    meaning = synonym_review(LexicalCritic(site_uses=lambda term: True, min_topic_coverage=MEANING_TOPIC_COVERAGE))
    assert meaning["intent_alignment"] == 1.0 and "delay" not in meaning["gaps"]


def test_only_a_critic_given_the_vocabulary_of_retrieval_that_reads_meaning_lowers_the_topic_bar() -> None:
    settings = Settings()
    assert cast(LexicalCritic, default_critic(settings)).min_topic_coverage == MIN_TOPIC_COVERAGE
    hybrid = cast(LexicalCritic, default_critic(settings, lambda term: True))
    assert hybrid.min_topic_coverage == MEANING_TOPIC_COVERAGE
