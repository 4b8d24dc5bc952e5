"""The paraphrase set: readers' wording, measurably not the pages' own.

``evals/paraphrase.jsonl`` asks about every page of the bundled sample site the way a
reader would ("my answers cite the wrong page" for *Citations and Grounding*), so that
retrieval which only matches words is measured where it is weak. "Not the pages' own
words" is measured here: the share of a question's content terms (stemmed, stop words
dropped: ``text.content_terms``) that also occur in the expected page's title or section
headings.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean

import pytest

from askai_graph import load_corpus
from askai_graph.evaluation import EvalQuestion, load_questions
from askai_graph.retrieval.corpus import Page
from askai_graph.retrieval.passages import split_passages
from askai_graph.text.terms import content_terms

ROOT = Path(__file__).resolve().parents[1]
PARAPHRASES = load_questions(ROOT / "evals" / "paraphrase.jsonl")
ANSWERS = [q for q in PARAPHRASES if q.kind == "answer"]
POSTS = {post.url: post for post in load_corpus().posts}


def headline_terms(post: Page) -> set[str]:
    """Return the content terms of a page's title and section headings."""
    # Passages this short cut the page at every heading, so their headings are all of them.
    headings = {passage.heading for passage in split_passages(post.body, max_chars=200)}
    return set(content_terms(" ".join([post.title, *headings])))


def shared_share(question: EvalQuestion) -> float:
    """Return the share of the question's content terms found in its expected pages' headlines."""
    terms = set(content_terms(question.question))
    headline = set().union(*(headline_terms(POSTS[url]) for url in question.expected_urls))
    return len(terms & headline) / len(terms)


def test_the_set_has_forty_answerable_questions_and_some_off_topic_ones() -> None:
    assert len(ANSWERS) >= 40
    assert all(q.expected_urls for q in ANSWERS)
    assert any(q.kind == "offtopic" for q in PARAPHRASES)
    assert len({q.question for q in PARAPHRASES}) == len(PARAPHRASES)


def test_every_expected_url_is_a_sample_site_page_and_every_page_is_asked_about() -> None:
    expected = {url for q in ANSWERS for url in q.expected_urls}
    assert expected <= set(POSTS)
    assert expected == set(POSTS)


def test_headings_are_read_from_the_page() -> None:
    # The measure below is only as good as this: a title word and a section heading word.
    terms = headline_terms(POSTS["https://course.askai.example/articles/citations-and-grounding"])
    assert {"citat", "ground", "verifi", "present", "sourc"} <= terms


@pytest.mark.parametrize("question", ANSWERS, ids=lambda q: q.question[:50])
def test_no_question_borrows_more_than_one_word_of_its_pages_title_or_headings(question: EvalQuestion) -> None:
    terms = set(content_terms(question.question))
    headline = set().union(*(headline_terms(POSTS[url]) for url in question.expected_urls))
    assert len(terms & headline) <= 1, sorted(terms & headline)
    assert shared_share(question) <= 0.25


def test_the_set_shares_far_fewer_words_with_its_pages_than_the_sample_set_does() -> None:
    sample = [q for q in load_questions(ROOT / "evals" / "sample_site.jsonl") if q.expected_urls]
    paraphrase, ordinary = mean(map(shared_share, ANSWERS)), mean(map(shared_share, sample))
    assert paraphrase <= 0.05
    assert paraphrase <= ordinary / 5, (paraphrase, ordinary)


def test_no_paraphrase_repeats_a_sample_set_question() -> None:
    sample = {frozenset(content_terms(q.question)) for q in load_questions(ROOT / "evals" / "sample_site.jsonl")}
    assert not [q.question for q in PARAPHRASES if frozenset(content_terms(q.question)) in sample]
