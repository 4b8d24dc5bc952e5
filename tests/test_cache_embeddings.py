"""The offline question embedding: paraphrases meet, different questions sharing words do not."""

from __future__ import annotations

import math

import pytest

from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings, question_terms

THRESHOLD = 0.9  # the default cache_threshold


def cosine(a: str, b: str) -> float:
    embeddings = LexicalEmbeddings()
    return sum(x * y for x, y in zip(embeddings.embed_query(a), embeddings.embed_query(b), strict=True))


@pytest.mark.parametrize(
    ("question", "paraphrase"),
    [
        ("What is semantic caching?", "semantic caching: what is it"),  # word order, punctuation
        ("What is semantic caching?", "WHAT IS SEMANTIC CACHING"),  # case
        ("How do I evaluate retrieval?", "How should you evaluate the retrieval?"),  # stop words
        ("How do I evaluate retrieval?", "evaluating retrieval"),  # inflection
        ("Why use BM25 for search?", "why is bm25 used in search"),
        ("What course articles do you have?", "Which articles does the course have?"),
        ("Can I cache answers without embeddings?", "caching answers with no embeddings, can I?"),  # negation
        ("What is semantic caching?", "What’s semantic caching???"),  # typographic apostrophe
    ],
)
def test_paraphrases_match(question: str, paraphrase: str) -> None:
    assert cosine(question, paraphrase) >= THRESHOLD


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("What is semantic caching?", "What is prompt caching?"),
        ("How do I evaluate retrieval?", "How do I evaluate prompts?"),
        ("How do I cache answers?", "How do I not cache answers?"),
        ("Can I cache answers with embeddings?", "Can I cache answers without embeddings?"),
        ("What changed in GPT-3?", "What changed in GPT-4?"),
        ("Why use BM25?", "When to use BM25?"),
        ("Rerank before retrieval fusion?", "Rerank after retrieval fusion?"),
        ("What is hybrid search?", "What is hybrid search and reranking?"),
    ],
)
def test_different_questions_sharing_words_do_not_match(question: str, other: str) -> None:
    assert cosine(question, other) < THRESHOLD


def test_vectors_are_unit_length_and_deterministic() -> None:
    embeddings = LexicalEmbeddings(dimensions=256)
    vector = embeddings.embed_query("How does BM25 rank posts?")
    assert len(vector) == 256
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0)
    assert embeddings.embed_documents(["How does BM25 rank posts?"]) == [vector]


def test_a_question_without_content_words_embeds_to_zero() -> None:
    assert question_terms("What is it?") == frozenset()
    assert not any(LexicalEmbeddings(dimensions=64).embed_query("What is it?"))


def test_dimensions_must_be_usable() -> None:
    with pytest.raises(ValueError, match="at least 64"):
        LexicalEmbeddings(dimensions=8)
