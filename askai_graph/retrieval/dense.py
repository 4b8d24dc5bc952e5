"""A dense index over a corpus' passages: one unit vector per passage, searched by cosine similarity.

Vectors are stored as float16 (half the bytes of float32; cosine scores move by about
1e-3, far below the gaps that order pages) and scored as float32 in memory. For a built
index they come from ``askai index`` (``embeddings.npy``, memory-mapped); for a corpus
loaded in memory they are computed at start-up and cached on disk under the corpus
fingerprint, the passage size and the model, like the BM25 index, so a restart loads
instead of re-embedding.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from askai_graph.retrieval.corpus import Corpus, CorpusError, Page

if TYPE_CHECKING:  # langchain-core costs about a second to import; an index built without a model never needs it
    from langchain_core.embeddings import Embeddings
from askai_graph.retrieval.passages import Passage, dense_text

logger = logging.getLogger(__name__)
DTYPE = np.float16
# Texts handed to the model per call: bounds memory, and lets a progress bar move.
EMBED_BATCH = 256
_CACHE_FORMAT = "d1"


def embed_texts(
    embeddings: Embeddings, texts: Sequence[str], progress: Callable[[int], object] | None = None
) -> np.ndarray:
    """Return the float16 unit vectors of ``texts`` (one row each), ``EMBED_BATCH`` texts per model call.

    The texts go to the model longest first, so each call (and each of the model's own
    batches) holds texts of about one length: a batch is padded to its longest text,
    and a short passage batched with long ones would cost as much as they do.
    """
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    rows: list[np.ndarray] = []
    for start in range(0, len(texts), EMBED_BATCH):
        batch = [texts[i] for i in order[start : start + EMBED_BATCH]]
        rows.append(unit_rows(np.asarray(embeddings.embed_documents(batch), dtype=np.float32)))
        if progress is not None:
            progress(len(batch))
    if not rows:
        return np.zeros((0, 0), dtype=DTYPE)
    matrix = np.empty((len(texts), rows[0].shape[1]), dtype=DTYPE)
    matrix[order] = np.concatenate(rows)
    return matrix


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Return ``matrix`` with every row scaled to unit length (a zero row stays zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1, norms), dtype=np.float32)


class DenseIndex:
    """Passage vectors (rows in document order) and the model that made them."""

    def __init__(self, matrix: np.ndarray, model: str) -> None:
        """Serve ``matrix`` (float16 unit rows, possibly memory-mapped) embedded with ``model``."""
        self.model = model
        # float32 once, in memory: numpy has no fast float16 matrix product.
        self._matrix = np.asarray(matrix, dtype=np.float32)

    @property
    def dimensions(self) -> int:
        """Length of every vector."""
        return int(self._matrix.shape[1]) if self._matrix.ndim == 2 else 0

    def search(
        self, vector: Sequence[float], n: int, min_similarity: float = -1.0, within: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Return up to ``n`` ``(document, cosine)`` pairs at least ``min_similarity``, best first.

        ``within`` (one bool per document) keeps the others out: a reader's version and language.

        Raises:
            CorpusError: the query vector's length is not the index's (another model).
        """
        query = np.asarray(vector, dtype=np.float32)
        if query.shape != (self.dimensions,):
            raise CorpusError(
                f"the question's embedding has {query.size} dimensions, the index's {self.dimensions}: "
                f"the index was embedded with {self.model}; index again with the model configured now"
            )
        if n <= 0 or not len(self._matrix):
            return []
        norm = float(np.linalg.norm(query))
        scores = self._matrix @ (query / norm if norm else query)
        if within is not None:
            scores = np.where(within, scores, -np.inf)
        n = min(n, len(scores))
        best = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
        ranked = [(int(i), float(scores[i])) for i in best if scores[i] >= min_similarity and np.isfinite(scores[i])]
        return sorted(ranked, key=lambda pair: (-pair[1], pair[0]))


def check_embedded_with(corpus: Corpus, model: str) -> None:
    """Refuse a built index whose passages were embedded with another model (or none).

    Raises:
        CorpusError: one line naming the command that embeds the index with ``model``.
    """
    stored = corpus.index.embeddings_model if corpus.index is not None else model
    if stored != model:
        raise CorpusError(
            f"{corpus.index.path}: its passages are embedded with {stored or 'no model'}, not {model}; "
            f"run `askai index SOURCE --out {corpus.index.path}` with the embedding settings used now"
        )


def open_dense(
    corpus: Corpus,
    passages: Sequence[tuple[int, Passage]],
    is_first: Callable[[int], bool],
    embeddings: Embeddings,
    model: str,
    cache_dir: Path,
    passage_chars: int,
) -> DenseIndex:
    """Return the dense index of ``corpus``: the built index's vectors, or the cached or new ones.

    Raises:
        CorpusError: a built index holds no vectors, or another model's.
    """
    if corpus.index is not None:
        check_embedded_with(corpus, model)
        return DenseIndex(corpus.index.load_embeddings(), model)
    # The text length the model reads is part of its vectors' identity (an upgrade from 256
    # to 128 word pieces must not reuse vectors cached at 256).
    max_tokens = getattr(embeddings, "max_tokens", None)
    digest = hashlib.sha256((f"{model}@{max_tokens}" if max_tokens else model).encode()).hexdigest()[:16]
    path = cache_dir / f"{corpus.fingerprint}-{_CACHE_FORMAT}-{passage_chars}-{digest}.npy"
    if path.exists():
        try:
            matrix = np.load(path)
            if matrix.ndim == 2 and matrix.shape[0] == len(passages):
                return DenseIndex(matrix, model)
        except (OSError, ValueError):  # a corrupt cache must not stop the app: embed again
            pass
        logger.warning("passage embeddings cache at %s is unreadable; embedding again", path)
    texts = [_text(corpus.posts[number], passage, is_first(i)) for i, (number, passage) in enumerate(passages)]
    matrix = embed_texts(embeddings, texts)
    _save(matrix, path)
    return DenseIndex(matrix, model)


def _text(post: Page, passage: Passage, first: bool) -> str:
    return dense_text(post.title, post.summary if first else "", passage.text)


def _save(matrix: np.ndarray, path: Path) -> None:
    staging: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write a temp file and rename, so concurrent starts never read half a matrix.
        handle, staging = tempfile.mkstemp(dir=path.parent, suffix=".npy")
        with os.fdopen(handle, "wb") as out:
            np.save(out, matrix)
        os.replace(staging, path)
    except OSError as exc:
        logger.info("passage embeddings not cached (%s); they will be computed next start", exc)
        if staging is not None:
            Path(staging).unlink(missing_ok=True)
