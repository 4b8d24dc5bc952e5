"""The HTTP API: ``POST /api/chat`` streaming the SSE contract, with a semantic cache."""

from askai_graph.server.app import create_app
from askai_graph.server.cache import CachedAnswer, CacheStore, InMemoryCacheStore, SemanticCache
from askai_graph.server.embeddings import LexicalEmbeddings

__all__ = ["CacheStore", "CachedAnswer", "InMemoryCacheStore", "LexicalEmbeddings", "SemanticCache", "create_app"]
