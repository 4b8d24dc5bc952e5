"""Dense and hybrid retrieval with deterministic embeddings, the reranker seam, and Research's page budget."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from askai_graph import Settings, load_corpus
from askai_graph.indexing import build_index
from askai_graph.nodes.research import Research
from askai_graph.retrieval.corpus import Corpus, Page
from askai_graph.retrieval.fusion import reciprocal_rank_fusion
from askai_graph.retrieval.hybrid import DenseRetriever, HybridRetriever
from askai_graph.retrieval.pages import BM25Retriever
from tests.fakes import ConceptEmbeddings, ReversingReranker

SITE = Path(__file__).parent / "data" / "sites" / "hugo"
BASE = "https://trail.example/"
CORPUS = load_corpus(SITE, base_url=BASE)
BOOTS = "https://trail.example/posts/choosing-boots/"


def dense(cache: Path, **kwargs: Any) -> DenseRetriever:
    return DenseRetriever(corpus=CORPUS, embeddings=ConceptEmbeddings(), embeddings_model="fake", cache_dir=cache,
                          **kwargs)


def hybrid(cache: Path, corpus: Corpus = CORPUS, **kwargs: Any) -> HybridRetriever:
    # The fusion's mechanics, without the relevance floor (its own tests below): these
    # queries mix several pages' topics on purpose, so no page covers them alone.
    kwargs.setdefault("min_term_coverage", 0.0)
    return HybridRetriever(corpus=corpus, embeddings=ConceptEmbeddings(), embeddings_model="fake", cache_dir=cache,
                           **kwargs)


def urls(documents: list[Document]) -> list[str]:
    return [document.metadata["source_url"] for document in documents]


def test_dense_finds_by_synonym_the_page_bm25_cannot(tmp_path: Path) -> None:
    question = "What footwear should I buy?"
    assert BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke(question) == []
    assert urls(dense(tmp_path).invoke(question))[0] == BOOTS
    assert urls(hybrid(tmp_path).invoke(question))[0] == BOOTS
    # With the floor on, meaning alone makes the page relevant: no question word is on it.
    floored = hybrid(tmp_path, min_term_coverage=0.25, relevant_similarity=0.5)
    assert urls(floored.invoke(question))[0] == BOOTS


def test_hybrid_ranks_pages_by_the_fusion_of_the_bm25_and_dense_page_rankings(tmp_path: Path) -> None:
    question = "drink water in warm weather before the storm"
    lexical = urls(BM25Retriever(corpus=CORPUS, cache_dir=tmp_path, k=30, min_term_coverage=0.0).invoke(question))
    semantic = urls(dense(tmp_path, k=30).invoke(question))
    assert lexical != semantic  # the two sides disagree, so the fusion decides
    fused = reciprocal_rank_fusion([lexical, semantic], k=60)
    documents = hybrid(tmp_path, k=30).invoke(question)
    assert urls(documents) == [url for url, _ in fused]
    assert [d.metadata["score"] for d in documents] == pytest.approx([score for _, score in fused])


def test_the_fusion_constant_and_depths_are_honoured(tmp_path: Path) -> None:
    question = "drink water in warm weather before the storm"
    lexical = urls(BM25Retriever(corpus=CORPUS, cache_dir=tmp_path, k=1).invoke(question))
    semantic = urls(dense(tmp_path, k=2).invoke(question))
    documents = hybrid(tmp_path, k=30, rrf_k=5, lexical_depth=1, dense_depth=2).invoke(question)
    fused = reciprocal_rank_fusion([lexical, semantic], k=5)
    assert urls(documents) == [url for url, _ in fused]
    assert documents[0].metadata["score"] == pytest.approx(fused[0][1])


def test_one_document_per_page_carries_the_passage_each_side_found(tmp_path: Path) -> None:
    body = (
        "## Gear list\n\n" + "Pack a headlamp, spare batteries and a whistle for the hike. " * 3
        + "\n\n## Feet\n\n" + "Good footwear prevents blisters on long descents. " * 3
    )
    other = Page(title="Camp cooking", url="https://trail.example/cooking/", body="Stoves and pots for camp. " * 5)
    corpus = Corpus(posts=(Page(title="Hike prep", url="https://trail.example/prep/", body=body), other),
                    fingerprint="prep")
    # "headlamp" matches the first section's words; "shoes" only the second's meaning.
    (document,) = hybrid(tmp_path, corpus=corpus, passage_chars=200).invoke("headlamp and shoes", k=1)
    assert document.metadata["source_url"] == "https://trail.example/prep/"
    assert document.metadata["sections"] == ["Gear list", "Feet"]
    assert "headlamp" in document.page_content and "footwear" in document.page_content


def test_a_question_of_only_stop_words_retrieves_nothing(tmp_path: Path) -> None:
    assert dense(tmp_path).invoke("what is the") == []
    assert hybrid(tmp_path).invoke("what is the") == []


def test_dense_candidates_below_the_similarity_floor_are_dropped(tmp_path: Path) -> None:
    question = "What footwear should I buy?"
    assert len(dense(tmp_path, k=50).invoke(question)) == len(CORPUS.posts)  # cosine ranks every page
    assert urls(dense(tmp_path, min_similarity=0.5).invoke(question)) == [BOOTS]


def test_k_per_call_bounds_the_pages_returned(tmp_path: Path) -> None:
    retriever = hybrid(tmp_path, k=50)
    assert len(retriever.invoke("water weather boots layers", k=2)) == 2
    assert len(asyncio.run(retriever.ainvoke("water weather boots layers", k=3))) == 3


def test_passage_vectors_of_an_in_memory_corpus_are_cached_per_model(tmp_path: Path) -> None:
    first = ConceptEmbeddings()
    DenseRetriever(corpus=CORPUS, embeddings=first, embeddings_model="fake", cache_dir=tmp_path)
    assert len(first.texts) == len(CORPUS.posts)
    again = ConceptEmbeddings()
    retriever = DenseRetriever(corpus=CORPUS, embeddings=again, embeddings_model="fake", cache_dir=tmp_path)
    assert again.texts == []  # loaded from the cache
    assert urls(retriever.invoke("What footwear should I buy?"))[0] == BOOTS
    other = ConceptEmbeddings()
    DenseRetriever(corpus=CORPUS, embeddings=other, embeddings_model="another", cache_dir=tmp_path)
    assert len(other.texts) == len(CORPUS.posts)


def test_vectors_cached_for_a_model_reading_another_length_are_not_reused(tmp_path: Path) -> None:
    class Reading(ConceptEmbeddings):
        def __init__(self, max_tokens: int) -> None:
            super().__init__()
            self.max_tokens = max_tokens

    DenseRetriever(corpus=CORPUS, embeddings=Reading(256), embeddings_model="fake", cache_dir=tmp_path)
    again, shorter = Reading(256), Reading(128)
    DenseRetriever(corpus=CORPUS, embeddings=again, embeddings_model="fake", cache_dir=tmp_path)
    DenseRetriever(corpus=CORPUS, embeddings=shorter, embeddings_model="fake", cache_dir=tmp_path)
    assert again.texts == []
    assert len(shorter.texts) == len(CORPUS.posts)


def test_a_corrupt_vector_cache_is_recomputed(tmp_path: Path) -> None:
    dense(tmp_path)
    (cached,) = tmp_path.glob("*.npy")
    cached.write_bytes(b"not a matrix")
    assert urls(dense(tmp_path).invoke("What footwear should I buy?"))[0] == BOOTS


def test_the_reranker_sees_its_budget_of_fused_pages_and_orders_them(tmp_path: Path) -> None:
    question = "water weather boots layers contour blister"
    plain = urls(hybrid(tmp_path).invoke(question, k=5))
    reranker = ReversingReranker(seen=[])
    retriever = hybrid(tmp_path, reranker=reranker, rerank_candidates=3)
    assert urls(retriever.invoke(question, k=2)) == [plain[2], plain[1]]
    # Fewer candidates than pages asked for: the rest follow, unreranked.
    assert urls(retriever.invoke(question, k=5)) == [plain[2], plain[1], plain[0], plain[3], plain[4]]
    assert urls(asyncio.run(retriever.ainvoke(question, k=2))) == [plain[2], plain[1]]
    assert reranker.seen == [3, 3, 3]


def test_bm25_takes_a_reranker_too(tmp_path: Path) -> None:
    plain = urls(BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("water weather", k=2))
    reranked = BM25Retriever(corpus=CORPUS, cache_dir=tmp_path, reranker=ReversingReranker(seen=[]))
    assert urls(reranked.invoke("water weather", k=2)) == plain[::-1]


def test_research_builds_only_the_pages_the_run_keeps(tmp_path: Path) -> None:
    shutil.copytree(SITE, tmp_path / "site")
    build_index(tmp_path / "site", tmp_path / "index", base_url=BASE)
    corpus = load_corpus(tmp_path / "index")
    read: list[int] = []
    real_post = corpus.index.post

    def counting_post(post_id: int) -> Page:
        read.append(post_id)
        return real_post(post_id)

    corpus.index.post = counting_post
    # A query mixing five pages' topics, so no floor (no page covers it alone).
    research = Research(BM25Retriever(corpus=corpus, k=50, min_term_coverage=0.0))
    update = research({"question": "water weather boots layers contour"}, Settings(top_k=2))
    assert len(update["search_results"]) == 2
    assert len(read) == 2


class KeywordRecordingRetriever(BaseRetriever):
    """A retriever written elsewhere that takes keyword arguments: it must not be sent ``k``."""

    calls: list[dict[str, Any]] = []

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        self.calls.append(kwargs)
        return []


def test_research_invokes_other_retrievers_as_before() -> None:
    retriever = KeywordRecordingRetriever(calls=[])
    Research(retriever)({"question": "water on the trail"}, Settings(top_k=2))
    asyncio.run(Research(retriever).acall({"question": "water on the trail"}, Settings(top_k=2)))
    assert retriever.calls == [{}, {}]
