"""Section vectors from the retriever's embedding model, shared by the Writer and anchoring, and warmed ahead.

The extractive Writer ranks a request's sections by meaning, and Validation's anchoring
tells tied sections apart by meaning: both embed the same section texts (a section's
heading and opening, ``section_text``). Each used to keep its own cache, filled by the
answers: a started server's first answers paid for embedding the sections of every page
they drafted from, twice (0.3 to 4.8 s each on a 2-core machine, against 12 to 22 ms for
the question's vector). Now one ``SectionVectors`` per embedding model serves both
(``shared``), and a server fills it before its first request (``warm``): every section
of a site small enough (``WARM_SECTIONS``), its vectors cached on disk per model and
section text, so a restart reads them and a changed page re-embeds its own sections.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from askai_graph.retrieval.sections import Section, split_page

logger = logging.getLogger(__name__)

SECTION_CHARS = 1000
"""What of a section an embedding model reads (its heading and opening carry its vector)."""
VECTOR_CACHE = 4096
"""Section texts kept; the same pages come back, and a full cache starts over."""
WARM_SECTIONS = 1000
"""Largest site (in sections) whose sections a server embeds before its first request: about
50 s of one loaded core the first time with the local model, then read from the cache."""
WARM_BATCH = 16
"""Section texts per model call when warming."""
_CACHE_FORMAT = "s2"


def section_text(heading: str, text: str) -> str:
    """Return what the model reads of a section: its heading and opening."""
    return f"{heading}\n{text}"[:SECTION_CHARS]


class SectionVectors:
    """Vectors of section texts from one embedding model, each text embedded once (bounded; thread-safe)."""

    def __init__(self, embeddings: Embeddings, size: int = VECTOR_CACHE) -> None:
        """Embed with ``embeddings``; keep up to ``size`` texts (``warm`` may hold a whole site beyond it)."""
        self.embeddings, self.size = embeddings, size
        self._vectors: dict[str, np.ndarray] = {}
        self._warmed = 0  # texts ``warm`` put in: the bound never drops a warmed site
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Return how many section texts have a vector."""
        return len(self._vectors)

    def matrix(self, sections: Sequence[Section]) -> np.ndarray:
        """Return one row per section (float64, as the model gave it), embedding the texts not seen yet."""
        texts = [section_text(section.heading, section.text) for section in sections]
        # Runs of several threads share the cache: each works on its own copy of what it needs.
        with self._lock:
            known = {text: vector for text in dict.fromkeys(texts) if (vector := self._vectors.get(text)) is not None}
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing:
            fresh = self._embed(missing)
            known.update(fresh)
            with self._lock:
                if len(self._vectors) + len(fresh) > max(self.size, self._warmed):
                    self._vectors.clear()  # the same pages come back: keep a bounded cache
                self._vectors.update(fresh)
        return np.stack([known[text] for text in texts])

    def warm(self, texts: Sequence[str], cache: Path | None = None) -> int:
        """Embed ``texts`` now, reading the vectors ``cache`` holds (an ``.npz`` file) and adding the others to it.

        The cache keeps one row per text digest, so a changed page re-embeds its own
        sections only. Returns how many texts were embedded (not read).
        """
        texts = list(dict.fromkeys(texts))
        keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
        stored = _load(cache)
        missing = [i for i, key in enumerate(keys) if key not in stored]
        fresh = self._embed_all([texts[i] for i in missing]) if missing else None
        by_key = dict(stored)
        if fresh is not None:
            by_key.update((keys[i], row) for i, row in zip(missing, fresh, strict=True))
        rows = [by_key[key] for key in keys]
        if cache is not None and (missing or len(stored) != len(keys)):
            _save(cache, keys, np.stack(rows))  # this site's sections only: pages gone leave the cache
        with self._lock:
            self._warmed = len(texts)
            self._vectors.update(zip(texts, rows, strict=True))
        return len(missing)

    def _embed_all(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` longest first, ``WARM_BATCH`` at a time: a batch is padded to its longest text."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        rows = np.empty((len(texts), 0))
        for start in range(0, len(order), WARM_BATCH):
            batch = order[start : start + WARM_BATCH]
            vectors = np.asarray(self.embeddings.embed_documents([texts[i] for i in batch]), dtype=float)
            rows = rows if rows.shape[1] else np.empty((len(texts), vectors.shape[1]))
            rows[batch] = vectors
        return rows

    def _embed(self, texts: list[str]) -> dict[str, np.ndarray]:
        vectors = self.embeddings.embed_documents(texts)
        return {text: np.asarray(vector, dtype=float) for text, vector in zip(texts, vectors, strict=True)}


SHARED_MODELS = 4
"""Embedding models whose section vectors are kept (a reload opens a new one; the oldest goes)."""
_SHARED: OrderedDict[int, SectionVectors] = OrderedDict()
_SHARED_LOCK = threading.Lock()


def shared(embeddings: Embeddings) -> SectionVectors:
    """Return the one ``SectionVectors`` of ``embeddings`` (the Writer's and anchoring's, and what ``warm`` fills)."""
    with _SHARED_LOCK:
        vectors = _SHARED.get(id(embeddings))
        if vectors is None or vectors.embeddings is not embeddings:  # an id reused by a new object
            vectors = _SHARED[id(embeddings)] = SectionVectors(embeddings)
            while len(_SHARED) > SHARED_MODELS:
                _SHARED.popitem(last=False)
        _SHARED.move_to_end(id(embeddings))
        return vectors


def site_sections(pages: Iterable[tuple[str, str]]) -> list[str]:
    """Return the section texts of ``pages`` (``(title, body)`` pairs), as the Writer reads a whole page."""
    return [section_text(heading, text) for title, body in pages for heading, text in split_page(title, body)]


def warm(embeddings: Embeddings, pages: Sequence[tuple[str, str]], model: str, cache_dir: Path) -> int:
    """Embed every section of a site of at most ``WARM_SECTIONS`` sections into ``shared(embeddings)``.

    The vectors are cached in ``cache_dir``, one file per model (``model`` and the length
    it reads), one row per section text. Returns the number of sections warmed (0: the
    site is larger, left to the answers).
    """
    texts = list(dict.fromkeys(site_sections(pages)))
    if not texts or len(texts) > WARM_SECTIONS:
        logger.info("%d sections: not embedded ahead (at most %d are)", len(texts), WARM_SECTIONS)
        return 0
    identity = hashlib.sha256(f"{model}@{getattr(embeddings, 'max_tokens', None)}|{SECTION_CHARS}".encode())
    started = time.perf_counter()
    embedded = shared(embeddings).warm(texts, cache_dir / f"sections-{_CACHE_FORMAT}-{identity.hexdigest()[:24]}.npz")
    logger.info("%d section vectors ready (%d embedded) in %.1f s", len(texts), embedded, time.perf_counter() - started)
    return len(texts)


def _load(cache: Path | None) -> dict[str, np.ndarray]:
    """Return the cached rows by text digest (none when missing or unreadable: embed again)."""
    if cache is None or not cache.exists():
        return {}
    try:
        with np.load(cache) as stored:
            keys, vectors = stored["keys"], stored["vectors"]
    except (OSError, ValueError, KeyError):
        logger.warning("section embeddings cache at %s is unreadable; embedding again", cache)
        return {}
    if vectors.ndim != 2 or len(keys) != len(vectors):
        return {}
    return {str(key): row for key, row in zip(keys, vectors, strict=True)}


def _save(cache: Path, keys: list[str], vectors: np.ndarray) -> None:
    """Write the cache atomically (a temp file renamed), so concurrent starts never read half of it."""
    staging: str | None = None
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(dir=cache.parent, suffix=".npz")
        with os.fdopen(handle, "wb") as out:
            np.savez(out, keys=np.asarray(keys, dtype="U64"), vectors=vectors)
        os.replace(staging, cache)
    except OSError as exc:
        logger.info("section embeddings not cached at %s (%s); they will be computed next start", cache, exc)
        if staging is not None:
            Path(staging).unlink(missing_ok=True)


def warm_retriever(retriever: object) -> int:
    """Warm the section vectors of ``retriever``'s site if it ranks with an embedding model (``warm``).

    Returns the number of sections warmed (0: no model, a site too large, or a model that
    failed: warming saves the first answers time, it never stops a server from starting).
    """
    embeddings = getattr(retriever, "embeddings", None)
    corpus = getattr(retriever, "corpus", None)
    if not isinstance(embeddings, Embeddings) or corpus is None or len(corpus.posts) > WARM_SECTIONS:
        return 0  # a page has a section at least: a larger site is not read for counting
    from askai_graph.retrieval.pages import default_cache_dir

    cache_dir = getattr(retriever, "cache_dir", None) or default_cache_dir()
    model = str(getattr(retriever, "embeddings_model", type(embeddings).__name__))
    try:
        return warm(embeddings, [(page.title, page.body) for page in corpus.posts], model, cache_dir)
    except Exception:  # noqa: BLE001 - any provider error: the answers embed what they need
        logger.warning("the section vectors could not be embedded ahead; answers will embed them", exc_info=True)
        return 0
