"""The HTTP API: ``POST /api/chat`` streaming the SSE contract, with a semantic cache.

Names are imported on first use (PEP 562): ``server.embeddings`` or ``server.answers.cache``
alone, as ``askai report`` uses them, do not load FastAPI and the app.
"""

from typing import TYPE_CHECKING

from askai_graph.lazy import lazy_exports

if TYPE_CHECKING:
    from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings
    from askai_graph.server.answers.cache import CachedAnswer, CacheStore, InMemoryCacheStore, SemanticCache
    from askai_graph.server.app import create_app

_EXPORTS = {
    "CacheStore": "askai_graph.server.answers.cache",
    "CachedAnswer": "askai_graph.server.answers.cache",
    "InMemoryCacheStore": "askai_graph.server.answers.cache",
    "LexicalEmbeddings": "askai_graph.retrieval.lexical_embeddings",
    "SemanticCache": "askai_graph.server.answers.cache",
    "create_app": "askai_graph.server.app",
}

__all__ = ["CacheStore", "CachedAnswer", "InMemoryCacheStore", "LexicalEmbeddings", "SemanticCache", "create_app"]


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
