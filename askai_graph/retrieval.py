"""BM25 retrieval over the corpus, as a LangChain ``BaseRetriever``.

The index is built with ``bm25s`` at start-up and cached on disk under the corpus
fingerprint, so a restart over an unchanged corpus loads instead of re-indexing.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import bm25s
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

from askai_graph.corpus import Corpus, Post
from askai_graph.text import content_terms

logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """Return the folder BM25 indexes are cached in when none is configured."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "askai-graph" / "bm25"


def post_to_document(post: Post) -> Document:
    """Turn a post into the Document shape every retriever must return."""
    return Document(
        page_content=post.body,
        metadata={
            "source_url": post.url,
            "title": post.title,
            "summary": post.summary,
            "images": [image.model_dump() for image in post.images],
        },
    )


class BM25Retriever(BaseRetriever):
    """Lexical retriever over a corpus; returns only posts sharing a term with the query."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    corpus: Corpus
    """The posts it searches."""
    k: int = 6
    """Posts returned per query at most."""
    cache_dir: Path | None = None
    """Index cache folder; ``default_cache_dir()`` when unset."""

    _index: bm25s.BM25 = PrivateAttr()

    def model_post_init(self, __context: object) -> None:
        """Load the cached index for this corpus, or build and cache it."""
        folder = (self.cache_dir or default_cache_dir()) / self.corpus.fingerprint
        if (folder / "params.index.json").exists():
            try:
                self._index = bm25s.BM25.load(str(folder), show_progress=False)
                return
            except Exception:  # a corrupt cache must not stop the app: rebuild it
                logger.warning("BM25 index cache at %s is unreadable; rebuilding", folder)
        self._index = bm25s.BM25()
        self._index.index([_index_terms(post) for post in self.corpus.posts], show_progress=False)
        self._save(folder)

    def _save(self, folder: Path) -> None:
        staging: Path | None = None
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            # Write to a temp folder and rename, so concurrent starts never see half an index.
            staging = Path(tempfile.mkdtemp(dir=folder.parent))
            self._index.save(str(staging), show_progress=False)
            shutil.rmtree(folder, ignore_errors=True)  # an unreadable earlier cache
            staging.rename(folder)
        except OSError as exc:
            logger.info("BM25 index not cached (%s); it will be rebuilt next start", exc)
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        terms = content_terms(query)
        if not terms:
            return []
        k = min(self.k, len(self.corpus.posts))
        ids, scores = self._index.retrieve([terms], k=k, show_progress=False, n_threads=0)
        found = []
        for post_id, score in zip(ids[0], scores[0], strict=True):
            if score > 0:
                document = post_to_document(self.corpus.posts[int(post_id)])
                document.metadata["score"] = float(score)
                found.append(document)
        return found


def _index_terms(post: Post) -> list[str]:
    # The title and summary count twice: they say what the post is about.
    return content_terms(f"{post.title} {post.summary} " * 2 + post.body)
