"""Dense and hybrid page retrieval over the passages BM25 ranks, from any LangChain ``Embeddings``.

``DenseRetriever`` ranks passages by the cosine similarity of their vectors to the
question's. ``HybridRetriever`` ranks pages both ways — BM25 (up to ``lexical_depth``
pages) and dense (up to ``dense_depth``) — and fuses the two page rankings by
reciprocal rank fusion (``askai_graph.retrieval.fusion``): a page both sides find beats a page
only one side ranks a little higher, and neither side's score scale matters. A page's
evidence is its passages fused the same way, so the Writer sees the section the words
matched and the section the meaning matched.

Vectors are keyed by ``embeddings_model``: a built index embedded with another model
(or none) is refused with a one-line error naming the command that re-embeds it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings
from pydantic import Field, PrivateAttr

from askai_graph.retrieval.bm25 import BM25Index
from askai_graph.retrieval.dense import DenseIndex, open_dense
from askai_graph.retrieval.fusion import DEFAULT_RRF_K, reciprocal_rank_fusion
from askai_graph.retrieval.hits import PageHit, group_pages
from askai_graph.retrieval.pages import PASSAGES_PER_PAGE, PageRetriever, default_cache_dir, lexical_passages, open_bm25

DEFAULT_DEPTH = 30


class DenseRetriever(PageRetriever):
    """Pages ranked by their passages' cosine similarity to the question (``embeddings``)."""

    embeddings: Embeddings
    """Embeds the passages (an in-memory corpus, at start-up) and every question."""
    embeddings_model: str
    """The model's name, stored with the vectors (``askai_graph.retrieval.embeddings.model_key``)."""
    min_similarity: float = Field(0.0, ge=-1, le=1)
    """Passages less similar than this are no candidates."""

    _dense: DenseIndex = PrivateAttr()

    def _open(self) -> None:
        self._dense = open_dense(
            self.corpus,
            self._passages,
            self._is_first,
            self.embeddings,
            self.embeddings_model,
            self.cache_dir or default_cache_dir(),
            self.passage_chars,
        )

    def _dense_pages(self, query: str, pages: int, within: np.ndarray | None = None) -> list[PageHit]:
        vector = self.embeddings.embed_query(query)
        ranked = self._dense.search(vector, pages * PASSAGES_PER_PAGE, self.min_similarity, within)
        return group_pages(ranked, self._posts_of([doc for doc, _ in ranked]))[:pages]

    def _rank(
        self, query: str, pages: int, within: np.ndarray | None = None, locales: Sequence[str] = ("",)
    ) -> list[PageHit]:
        return self._dense_pages(query, pages, within)


class HybridRetriever(DenseRetriever):
    """BM25 and dense page rankings fused by reciprocal rank fusion."""

    rrf_k: int = Field(DEFAULT_RRF_K, ge=1)
    """Fusion constant: a page scores ``1 / (rrf_k + rank)`` in each ranking it is in."""
    lexical_depth: int = Field(DEFAULT_DEPTH, ge=1)
    """Pages the BM25 ranking contributes."""
    dense_depth: int = Field(DEFAULT_DEPTH, ge=1)
    """Pages the dense ranking contributes."""

    relevant_similarity: float | None = Field(None, ge=-1, le=1)
    """A page this similar to the question passes the relevance floor whatever its words; ``None``: the
    lexical floor alone decides."""

    _bm25: BM25Index = PrivateAttr()

    def _open(self) -> None:
        super()._open()
        self._bm25 = open_bm25(self)

    def _lexical_index(self) -> BM25Index:
        return self._bm25

    def _relevant(self, query: str, hits: list[PageHit], locales: Sequence[str] = ("",)) -> list[PageHit]:
        """Keep the pages that cover the question's words (BM25's floor) or come close to its meaning.

        A synonym the words miss is what the dense side is for, so a page at least
        ``relevant_similarity`` close to the question is relevant whatever its words.
        """
        lexical = super()._relevant(query, hits, locales)
        if self.relevant_similarity is None:
            return lexical
        bar = self.relevant_similarity
        return [hit for hit in hits if hit in lexical or (hit.similarity is not None and hit.similarity >= bar)]

    def _rank(
        self, query: str, pages: int, within: np.ndarray | None = None, locales: Sequence[str] = ("",)
    ) -> list[PageHit]:
        ranked = lexical_passages(self._bm25, query, self.lexical_depth * PASSAGES_PER_PAGE, within, locales)
        lexical = group_pages(ranked, self._posts_of([doc for doc, _ in ranked]))[: self.lexical_depth]
        dense = self._dense_pages(query, self.dense_depth, within)
        fused = reciprocal_rank_fusion([[hit.post_id for hit in lexical], [hit.post_id for hit in dense]], self.rrf_k)
        sides = [{hit.post_id: hit.passages for hit in side} for side in (lexical, dense)]
        similarity = {hit.post_id: hit.score for hit in dense}
        hits = []
        for post_id, score in fused[:pages]:
            passages = reciprocal_rank_fusion([side.get(post_id, ()) for side in sides], self.rrf_k)
            hits.append(PageHit(post_id, score, tuple(doc for doc, _ in passages), similarity.get(post_id)))
        return hits
