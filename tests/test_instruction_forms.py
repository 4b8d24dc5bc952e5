"""Answers carry the instruction: the table row, the tabbed code, and a Critic that refuses a restated question."""

from __future__ import annotations

import json
from typing import Any

from askai_graph import LexicalCritic, Settings, build_graph
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.offline.writer import ExtractiveWriter, spelled_first
from askai_graph.models.prompts import CRITIC_SYSTEM
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.models.writing import DraftRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.sections import Section, page_sections
from askai_graph.state import STATE_KEYS
from tests.fakes import post, replies, retriever, review, url

# A reference page whose options live in a table: the prose above it only introduces it.
OPTIONS = """# Options

## Quotes

The formatter prints strings with double quotes unless told otherwise. The table lists
each setting that changes how quotes are printed.

| Setting | Default | CLI flag | Config key |
|---|---|---|---|
| Single quotes | `false` | `--single-quote` | `singleQuote` |
| Quote properties | `"as-needed"` | `--quote-props` | `quoteProps` |
"""

# An install section whose commands sit in tabs, one per package manager.
INSTALL = """# Getting started

## Install

Add lintel to your project with your package manager.

**npm**

```bash
npm install --save-dev lintel
```

**yarn**

```bash
yarn add --dev lintel
```
"""


def draft_for(question: str, *texts: str) -> str:
    found = to_search_results([post(n, text) for n, text in enumerate(texts, start=1)], top_k=10)
    return ExtractiveWriter().write(DraftRequest(question=question, search_results=found))


def critique(question: str, draft: str, *texts: str) -> dict[str, Any]:
    found = to_search_results([post(n, text) for n, text in enumerate(texts, start=1)], top_k=10)
    request = ReviewRequest(question=question, draft=draft, evidence=evidence_slice(question, draft, found, 6000))
    return dict(json.loads(LexicalCritic().review(request)))


# --- the page's structure, kept ---------------------------------------------------------------


def test_a_code_block_under_a_tab_name_keeps_the_tab_as_its_label() -> None:
    found = to_search_results([post(1, INSTALL)], top_k=10)
    install = next(section for section in page_sections(found) if section.heading == "Install")
    assert [(block.label, block.code) for block in install.code] == [
        ("npm", "npm install --save-dev lintel"),
        ("yarn", "yarn add --dev lintel"),
    ]


def test_an_options_table_row_for_the_asked_option_is_the_answer() -> None:
    draft = draft_for("How do I use single quotes instead of double quotes?", OPTIONS)
    assert "| Setting | Default | CLI flag | Config key |" in draft
    assert "| Single quotes | `false` | `--single-quote` | `singleQuote` |" in draft
    assert "quoteProps" not in draft  # the neighbouring row is another option


def test_tabbed_install_commands_are_quoted_under_their_tab_names() -> None:
    draft = draft_for("How do I install lintel in my project?", INSTALL)
    assert "**npm**:\n```bash\nnpm install --save-dev lintel\n```" in draft
    assert "**yarn**:\n```bash\nyarn add --dev lintel\n```" in draft


def test_a_tabbed_answer_is_accepted_with_its_card(settings: Settings) -> None:
    final = build_graph(retriever=retriever_of(INSTALL), settings=settings).invoke(
        {"question": "How do I install lintel in my project?"}, output_keys=STATE_KEYS
    )
    assert final["outcome"] == "accepted" and [s.url for s in final["sources"]] == [url(1)]
    assert "**npm**:\n```bash" in final["answer"]  # the tab's name over its code draws no drift


def retriever_of(text: str) -> Any:
    from tests.fakes import FakeRetriever

    return FakeRetriever(documents=[post(1, text)], queries=[])


# --- the Critic judges substance -------------------------------------------------------------

QUOTES = "Use single quotes instead of double quotes. " + OPTIONS


def test_a_draft_that_restates_the_question_fails_with_that_gap() -> None:
    question = "How do I use single quotes instead of double quotes?"
    reply = critique(question, f"Use single quotes instead of double quotes. ([Page 1]({url(1)}))", QUOTES)
    assert reply["intent_alignment"] < 0.5
    assert "the answer restates the question" in reply["gaps"]


def test_a_draft_adding_the_option_does_not_restate_the_question() -> None:
    question = "How do I use single quotes instead of double quotes?"
    draft = f"Use single quotes with `--single-quote` or `singleQuote: true`. ([Page 1]({url(1)}))"
    reply = critique(question, draft, QUOTES + "\nUse single quotes with `--single-quote` or `singleQuote: true`.\n")
    assert "the answer restates the question" not in reply["gaps"] and reply["intent_alignment"] == 1.0


LINE_WIDTH = """# Formatting

## Line width

You can configure the line width of the formatter in the project file when the team agrees on it.

```toml
[formatter]
line-width = 100
```
"""


def test_a_how_to_without_the_sections_code_fails_and_the_gap_names_the_code() -> None:
    sentence = "You can configure the line width of the formatter in the project file when the team agrees on it."
    reply = critique("How do I change the line width of the formatter?", f"{sentence} ([Page 1]({url(1)}))", LINE_WIDTH)
    assert reply["intent_alignment"] < 0.5
    assert 'the code example `[formatter]` under "Line width"' in reply["gaps"]


def test_a_how_to_with_the_sections_code_passes() -> None:
    sentence = "You can configure the line width of the formatter in the project file when the team agrees on it."
    draft = f"{sentence} ([Page 1]({url(1)}))\n\n```toml\n[formatter]\nline-width = 100\n```"
    reply = critique("How do I change the line width of the formatter?", draft, LINE_WIDTH)
    assert reply["intent_alignment"] == 1.0


# --- the model Critic's rubric ----------------------------------------------------------------


def test_the_model_critics_rubric_states_both_rules() -> None:
    rubric = " ".join(CRITIC_SYSTEM.split())
    assert 'a draft that only restates the question' in rubric and '"the answer restates the question"' in rubric
    assert "a how-to answer without an instruction-shaped element" in rubric
    assert "with a gap naming that element" in rubric


def test_a_scripted_model_critic_refusing_a_restatement_sends_its_gap_to_the_retry(settings: Settings) -> None:
    writer = replies(f"Use single quotes instead of double quotes. ([Page 1]({url(1)}))")
    critic = replies(review(intent_alignment=0.2, gaps=["the answer restates the question"]))
    fake = retriever(1)
    final = build_graph(writer=writer, critic=critic, retriever=fake, settings=settings).invoke(
        {"question": "How do I use single quotes?"}, output_keys=STATE_KEYS
    )
    assert final["outcome"] == "degraded" and final["sources"] == []
    assert fake.queries[1] == "How do I use single quotes? the answer restates the question"
    assert "only restates the question" in " ".join(critic.prompts[0].split())


def test_a_scripted_model_critic_naming_the_missing_element_sends_it_to_the_retry(settings: Settings) -> None:
    writer = replies(f"You can configure the line width. ([Page 1]({url(1)}))")
    critic = replies(review(intent_alignment=0.2, gaps=["the option `--print-width`"]))
    fake = retriever(1)
    final = build_graph(writer=writer, critic=critic, retriever=fake, settings=settings).invoke(
        {"question": "How do I change the line width?"}, output_keys=STATE_KEYS
    )
    assert final["outcome"] == "degraded"
    assert fake.queries[1] == "How do I change the line width? the option `--print-width`"
    assert "instruction-shaped element" in " ".join(critic.prompts[0].split())


CONSTRAINTS = """# Numbers

## Constraints

Numeric fields take constraints as keyword arguments.

| Constraint | Meaning |
|---|---|
| `ge` | the number must be greater than or equal to this value |
| `gt` | the number must be greater than this value |
| `le` | the number must be less than or equal to this value |
"""


def test_of_two_rows_naming_the_question_the_one_saying_no_more_than_asked_wins() -> None:
    draft = draft_for("How do I require a number greater than a value?", CONSTRAINTS)
    assert "| `gt` | the number must be greater than this value |" in draft
    assert "`ge`" not in draft


# --- the Critic wants the element the question names ------------------------------------------

CLI = """# Command line

## `--relatedChecks <files>`

Runs the checks related to the source files passed as arguments, and to the files they import.

## `--onlyStaged`

Runs only the checks related to the files you staged, so a commit is checked in seconds.

## `--quiet`

Prints nothing but the failures of each check.
"""
STAGED = "How do I run only the checks on the files I staged?"


def test_a_draft_quoting_a_neighbouring_entry_fails_and_the_gap_names_the_spelled_one() -> None:
    sentence = "Runs the checks related to the source files passed as arguments, and to the files they import."
    reply = critique(STAGED, f"`--relatedChecks <files>`: {sentence} ([Page 1]({url(1)}))", CLI)
    assert reply["intent_alignment"] < 0.5
    assert "onlyStaged" in reply["gaps"]


def test_a_draft_quoting_the_entry_spelled_from_the_question_passes() -> None:
    sentence = "Runs only the checks related to the files you staged, so a commit is checked in seconds."
    reply = critique(STAGED, f"`--onlyStaged`: {sentence} ([Page 1]({url(1)}))", CLI)
    assert reply["intent_alignment"] == 1.0 and "onlyStaged" not in reply["gaps"]


GUIDE = """# Checking before a commit

## Staged files

Add the hook to your project and it runs only the checks on the files you staged before each commit.

```bash
lintel hook install
```
"""


def test_a_draft_leading_with_a_guides_prose_owes_no_entry_name() -> None:
    sentence = "Add the hook to your project and it runs only the checks on the files you staged before each commit."
    draft = f"{sentence} ([Page 2]({url(2)}))\n\n```bash\nlintel hook install\n```"
    reply = critique(STAGED, draft, CLI, GUIDE)
    assert reply["intent_alignment"] == 1.0 and "onlyStaged" not in reply["gaps"]


RETRIES = """# Fetching

## Retries

The fetcher tries a failed request again. Set `retryLimit` to the number of attempts it may make.

## Timeouts

The fetcher gives up on a request after the timeout, in seconds, that you pass it.
"""


def test_a_draft_without_the_identifier_the_question_writes_fails_and_the_gap_names_it() -> None:
    sentence = "The fetcher gives up on a request after the timeout, in seconds, that you pass it."
    reply = critique("How do I use retryLimit with the fetcher?", f"{sentence} ([Page 1]({url(1)}))", RETRIES)
    assert reply["intent_alignment"] < 0.5 and "retryLimit" in reply["gaps"]


def test_a_draft_with_the_identifier_the_question_writes_passes() -> None:
    sentence = "Set `retryLimit` to the number of attempts it may make."
    reply = critique("How do I use retryLimit with the fetcher?", f"{sentence} ([Page 1]({url(1)}))", RETRIES)
    assert reply["intent_alignment"] == 1.0 and "retryLimit" not in reply["gaps"]


def test_a_draft_with_a_longer_identifier_than_the_question_writes_fails() -> None:
    text = RETRIES + "\nSet `retryLimitMs` to the pause between attempts, in milliseconds.\n"
    sentence = "Set `retryLimitMs` to the pause between attempts, in milliseconds."
    reply = critique("How do I use retryLimit with the fetcher?", f"{sentence} ([Page 1]({url(1)}))", text)
    assert reply["intent_alignment"] < 0.5 and "retryLimit" in reply["gaps"]


def test_the_model_critics_rubric_refuses_a_neighbouring_element() -> None:
    rubric = " ".join(CRITIC_SYSTEM.split())
    assert "a draft that quotes a neighbouring element instead of the one the question names" in rubric
    assert "with that name as the gap" in rubric


# --- the Writer leads with the entry the question spells -------------------------------------

HOOKS = """# Hooks

## General advice

When a case fails, run it alone first: the setup of another case may be what breaks it.

## `beforeEvery(fn)`

Runs `fn` as setup before every case of the file.

## `afterEvery(fn)`

Runs `fn` after every case of the file.
"""


def hook_sections() -> dict[str, Section]:
    result = to_search_results([post(1, HOOKS)], top_k=1)
    return {section.heading: section for section in page_sections(result)}


def test_an_entry_spelled_from_the_question_leads_when_it_ranks_close_to_the_best() -> None:
    found = hook_sections()
    ranked = [(found["General advice"], 1.0), (found["`afterEvery(fn)`"], 0.8), (found["`beforeEvery(fn)`"], 0.6)]
    lead, _ = spelled_first("How do I run some setup before every case?", ranked)[0]
    assert lead.heading == "`beforeEvery(fn)`"


def test_an_entry_spelled_from_the_question_far_below_the_best_does_not_lead() -> None:
    found = hook_sections()
    ranked = [(found["General advice"], 1.0), (found["`beforeEvery(fn)`"], 0.1)]
    lead, _ = spelled_first("How do I run some setup before every case?", ranked)[0]
    assert lead.heading == "General advice"


def test_an_entry_covering_less_of_the_question_than_the_best_does_not_lead() -> None:
    # "alone" and "fails" are the question's topic too: the entry answers only part of it.
    found = hook_sections()
    ranked = [(found["General advice"], 1.0), (found["`beforeEvery(fn)`"], 0.9)]
    lead, _ = spelled_first("How do I run a failing case alone before every other case?", ranked)[0]
    assert lead.heading == "General advice"
