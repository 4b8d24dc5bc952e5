"""Question vectors cached per canonical question: a question asked again is not embedded again.

Each answer embeds its question more than once (the server's answer cache looks it up,
Research retrieves with it, a retry retrieves again), and readers ask the same questions:
a local model spends 10-50 ms of CPU per question, a remote one a request. ``CachedQuestions``
wraps any LangChain ``Embeddings``: passages go through unchanged, a question is reduced
to its canonical form and embedded in that form, once; later spellings with the same
form get the stored vector.

The canonical form is the one the graph already reads (``plaintext.clean_question``:
NFKC, no invisible characters, plain apostrophes, single spaces), lower-cased when the
model's tokenizer lower-cases anyway. Embedding the form itself, not the first spelling
seen, makes a question's vector the same whichever spelling came first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from langchain_core.embeddings import Embeddings

from askai_graph.text.plain import clean_question

QUESTION_CACHE_SIZE = 4096
"""Questions kept (least recently used dropped): 4096 x 384 floats is about 13 MB as Python lists."""


class CachedQuestions(Embeddings):
    """``inner`` with its question vectors cached per canonical question (see module docstring)."""

    def __init__(self, inner: Embeddings, *, lowercase: bool, size: int = QUESTION_CACHE_SIZE) -> None:
        """Wrap ``inner``; ``lowercase`` when case never changes its vectors (an uncased tokenizer)."""
        self.inner, self.lowercase, self.size = inner, lowercase, size
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def max_tokens(self) -> int | None:
        """How much of a text the wrapped model reads, when it says (part of its vectors' identity)."""
        value = getattr(self.inner, "max_tokens", None)
        return int(value) if value is not None else None

    def canonical(self, text: str) -> str:
        """Return the form of ``text`` that is embedded and keys the cache."""
        form = clean_question(text)
        return form.lower() if self.lowercase else form

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages with the wrapped model, uncached."""
        return self.inner.embed_documents(texts)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages with the wrapped model, uncached."""
        return await self.inner.aembed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of ``text``'s canonical form, embedding it only the first time."""
        key = self.canonical(text)
        vector = self._get(key)
        if vector is None:
            vector = self._put(key, self.inner.embed_query(key))
        return list(vector)  # a copy: a caller changing it must not change the cache

    async def aembed_query(self, text: str) -> list[float]:
        """``embed_query`` through the wrapped model's async method."""
        key = self.canonical(text)
        vector = self._get(key)
        if vector is None:
            vector = self._put(key, await self.inner.aembed_query(key))
        return list(vector)

    def _get(self, key: str) -> list[float] | None:
        with self._lock:
            vector = self._vectors.get(key)
            if vector is not None:
                self._vectors.move_to_end(key)
            return vector

    def _put(self, key: str, vector: list[float]) -> list[float]:
        with self._lock:
            self._vectors[key] = vector
            self._vectors.move_to_end(key)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vector
