"""Retrieval: the page model, passages, and the retrievers that rank them.

One module per piece: ``corpus`` (a site's pages and their fingerprint), ``passages``
(pages split at headings), ``bm25``, ``dense`` and ``fusion`` (three rankings of
passages), ``pages`` (``PageRetriever`` and ``BM25Retriever``: ranked passages grouped
into one Document per page), ``hybrid`` (``DenseRetriever``, ``HybridRetriever``),
``embeddings`` (the embedding models dense retrieval and the cache use) and
``lexical_embeddings`` (the offline question embedding). Loading a corpus from disk is
``askai_graph.indexing``'s job.

The retrievers are imported on first use (PEP 562), so importing the page model does not
load bm25s, numpy or langchain-core's retriever classes.
"""

from typing import TYPE_CHECKING

from askai_graph.lazy import lazy_exports

if TYPE_CHECKING:
    from askai_graph.retrieval.hybrid import DenseRetriever, HybridRetriever
    from askai_graph.retrieval.pages import BM25Retriever, PageRetriever

_EXPORTS = {
    "BM25Retriever": "askai_graph.retrieval.pages",
    "PageRetriever": "askai_graph.retrieval.pages",
    "DenseRetriever": "askai_graph.retrieval.hybrid",
    "HybridRetriever": "askai_graph.retrieval.hybrid",
}

__all__ = ["BM25Retriever", "DenseRetriever", "HybridRetriever", "PageRetriever"]

__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
