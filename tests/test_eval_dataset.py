"""The labelled question set for the bundled sample site, and its committed baseline."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from askai_graph import load_corpus
from askai_graph.evaluation import load_questions

ROOT = Path(__file__).resolve().parents[1]


def test_sample_set_has_eighty_hand_written_questions_of_every_kind() -> None:
    questions = load_questions(ROOT / "evals" / "sample_site.jsonl")
    assert len(questions) >= 80
    assert len({q.question for q in questions}) == len(questions)
    kinds = Counter(q.kind for q in questions)
    assert kinds["answer"] >= 50 and kinds["catalog"] >= 5 and kinds["offtopic"] >= 10
    assert sum(1 for q in questions if len(q.expected_urls) >= 2) >= 5


def test_every_expected_url_is_a_sample_site_post() -> None:
    site = {post.url for post in load_corpus().posts}
    expected = {url for q in load_questions(ROOT / "evals" / "sample_site.jsonl") for url in q.expected_urls}
    assert expected <= site
    assert len(expected) == len(site)  # every post is asked about


def test_committed_baseline_is_a_report_of_the_sample_set() -> None:
    baseline = json.loads((ROOT / "evals" / "baseline.json").read_text())
    questions = load_questions(ROOT / "evals" / "sample_site.jsonl")
    assert [item["question"] for item in baseline["results"]] == [q.question for q in questions]
    assert baseline["metrics"]["false_source_cards"] == 0
    assert baseline["metrics"]["refusals"]["offtopic_without_sources"] == 1.0


@pytest.mark.parametrize(
    ("name", "url_form"),
    [
        ("fastapi", r"^https://fastapi\.tiangolo\.com/([\w.-]+/)*$"),
        ("pydantic", r"^https://docs\.pydantic\.dev/latest/([\w.-]+/)*$"),
        ("jest", r"^https://jestjs\.io/docs/[\w-]+$"),
    ],
)
def test_real_site_sets_have_forty_labelled_questions_five_off_topic_and_two_catalog(name: str, url_form: str) -> None:
    import re

    questions = load_questions(Path(__file__).parent.parent / "evals" / f"{name}.jsonl")
    kinds = Counter(question.kind for question in questions)
    assert kinds["answer"] >= 40 and kinds["offtopic"] >= 5 and kinds["catalog"] >= 2
    answers = [question for question in questions if question.kind == "answer"]
    assert all(question.expected_urls and question.must_mention for question in answers)
    assert all(re.match(url_form, url) for question in answers for url in question.expected_urls)
