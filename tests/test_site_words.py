"""A question word the site never uses: the reader's synonym weighs less than a word the pages found lack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from askai_graph import BM25Retriever, LexicalCritic, load_corpus
from askai_graph.evidence.results import evidence_slice
from askai_graph.models.providers import synonym_vocabulary
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.hybrid import HybridRetriever
from askai_graph.text.terms import stem
from tests.fakes import ConceptEmbeddings, post, url

EVIDENCE = "Semantic caches store answers keyed by question embeddings. A similarity threshold decides a cache hit."
DRAFT = f"{EVIDENCE} ([Page 1]({url(1)}))"
SITE_WORDS = {stem(word) for word in ("semantic", "caches", "store", "answers", "embeddings", "keep")}


def confidence(question: str, site_uses: Any = None) -> float:
    found = to_search_results([post(1, EVIDENCE)], top_k=10)
    request = ReviewRequest(question=question, draft=DRAFT, evidence=evidence_slice(question, DRAFT, found, 6000))
    return float(json.loads(LexicalCritic(site_uses=site_uses).review(request))["confidence"])


def test_critic_accepts_a_question_whose_one_unmatched_word_the_site_never_uses() -> None:
    # "memorise" is on no page of the site: the reader's word for "store".
    assert confidence("How do semantic caches memorise answers?", SITE_WORDS.__contains__) >= 0.6


def test_critic_refuses_a_question_whose_unmatched_word_the_site_uses_elsewhere() -> None:
    # The site says "keep" on other pages: the pages found lack that part of the question.
    assert confidence("How do semantic caches keep answers?", SITE_WORDS.__contains__) < 0.6


def test_critic_weighs_every_gap_fully_when_most_question_words_are_foreign_to_the_site() -> None:
    # Three of five words no page has: a question about something else, not a synonym.
    assert confidence("How do semantic caches bake sourdough loaves?", SITE_WORDS.__contains__) < 0.6


def test_retriever_tells_the_words_its_site_uses(tmp_path: Path) -> None:
    retriever = BM25Retriever(corpus=load_corpus(), cache_dir=tmp_path)
    assert retriever.site_uses(stem("caches")) and retriever.site_uses(stem("cached"))
    assert not retriever.site_uses(stem("sourdough"))


def test_only_a_retriever_reading_meaning_lets_the_critic_weigh_unused_words_lightly(tmp_path: Path) -> None:
    bm25 = BM25Retriever(corpus=load_corpus(), cache_dir=tmp_path)
    hybrid = HybridRetriever(
        corpus=load_corpus(), embeddings=ConceptEmbeddings(), embeddings_model="fake", cache_dir=tmp_path
    )
    assert synonym_vocabulary(bm25, None) is None  # BM25 ranked the pages without the word: a full gap
    vocabulary = synonym_vocabulary(hybrid, hybrid.embeddings)
    assert vocabulary is not None and not vocabulary(stem("sourdough")) and vocabulary(stem("caches"))
