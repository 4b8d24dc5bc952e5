"""Question vectors are cached per canonical question; passages are never cached."""

from __future__ import annotations

import asyncio

import httpx2
import numpy as np

from askai_graph.retrieval.dense import embed_texts
from askai_graph.retrieval.embeddings import embeddings_for
from askai_graph.retrieval.question_cache import CachedQuestions
from askai_graph.settings import Settings
from tests.test_embeddings import LOCAL, EmbeddingsServer


class CountingModel:
    """A stand-in model: the vector of a text is its length and its first character; every call recorded."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.documents: list[list[str]] = []

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return [float(len(text)), float(ord(text[0])), 1.0]

    async def aembed_query(self, text: str) -> list[float]:
        return self.embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.append(list(texts))
        return [[float(len(text)), float(ord(text[0])), 1.0] for text in texts]


def cached(model: CountingModel, *, lowercase: bool = True, size: int = 16) -> CachedQuestions:
    return CachedQuestions(model, lowercase=lowercase, size=size)  # type: ignore[arg-type]


def test_a_question_asked_again_in_another_spelling_is_embedded_once_in_its_canonical_form() -> None:
    model = CountingModel()
    questions = cached(model)
    first = questions.embed_query("How does BM25 score documents?")
    again = questions.embed_query("  how does\u200b bm25   score documents?")
    assert first == again
    assert model.queries == ["how does bm25 score documents?"]


def test_a_cased_model_keeps_case_apart() -> None:
    model = CountingModel()
    questions = cached(model, lowercase=False)
    questions.embed_query("What is IT?")
    questions.embed_query("what is it?")
    assert model.queries == ["What is IT?", "what is it?"]


def test_the_least_recently_used_question_is_dropped_beyond_the_size() -> None:
    model = CountingModel()
    questions = cached(model, size=2)
    for question in ("alpha", "beta", "alpha", "gamma", "alpha", "beta"):
        questions.embed_query(question)
    assert model.queries == ["alpha", "beta", "gamma", "beta"]


def test_async_questions_share_the_cache_and_a_caller_cannot_change_a_cached_vector() -> None:
    model = CountingModel()
    questions = cached(model)
    vector = asyncio.run(questions.aembed_query("Why retry?"))
    vector[0] = -1.0
    assert questions.embed_query("why retry?") == [10.0, ord("w"), 1.0]
    assert model.queries == ["why retry?"]


def test_passages_are_embedded_every_time() -> None:
    model = CountingModel()
    questions = cached(model)
    questions.embed_documents(["One passage."])
    questions.embed_documents(["One passage."])
    assert model.documents == [["One passage."], ["One passage."]]


def test_the_embeddings_for_questions_are_cached_and_those_for_indexing_are_not() -> None:
    server = EmbeddingsServer()
    settings = Settings(embeddings="openai", embeddings_model="nomic-embed-text", base_url=LOCAL)
    transport = httpx2.MockTransport(server)
    questions = embeddings_for(settings, transport=transport)
    assert questions is not None
    assert questions.embed_query("What is BM25?") == questions.embed_query("what is  BM25?")
    assert len(server.requests) == 2  # case kept apart: a remote model's tokenizer is unknown
    questions.embed_query("What is BM25?")
    assert len(server.requests) == 2
    assert not isinstance(embeddings_for(settings, batch=True, transport=transport), CachedQuestions)


def test_passages_reach_the_model_longest_first_and_come_back_in_their_order() -> None:
    model = CountingModel()
    texts = ["bb", "a", "dddd", "ccc"]
    matrix = embed_texts(model, texts)  # type: ignore[arg-type]
    assert model.documents == [["dddd", "ccc", "bb", "a"]]
    expected = np.array([[len(t), ord(t[0]), 1.0] for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(matrix.astype(np.float32), expected, atol=1e-3)
