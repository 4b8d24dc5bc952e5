"""BM25 retrieval over page passages, one Document per page, as a LangChain ``BaseRetriever``.

Pages are split into passages at headings (``askai_graph.passages``) and BM25 ranks the
passages; the best passages of each page are then grouped into one Document whose
``source_url`` is the page URL, so citations and source cards stay one per page. For a
built index (``askai index``) the BM25 matrix is memory-mapped from the index and pages
are read from it per query; for a corpus loaded in memory it is built at start-up and
cached on disk under the corpus fingerprint, so a restart loads instead of re-indexing.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from functools import cached_property
from pathlib import Path

import bm25s
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

from askai_graph.bm25 import Vocabulary, build_bm25, top_documents
from askai_graph.catalog import site_order_key
from askai_graph.corpus import Corpus, Post
from askai_graph.passages import DEFAULT_PASSAGE_CHARS, Passage, passage_text, split_passages
from askai_graph.text import content_terms

logger = logging.getLogger(__name__)
# Passages ranked per page returned: enough that k pages survive the grouping.
PASSAGES_PER_PAGE = 4
# Passages of one page a Document carries (its best ones, in page order).
EVIDENCE_PASSAGES = 2
_CACHE_FORMAT = "p1"


def default_cache_dir() -> Path:
    """Return the folder BM25 indexes are cached in when none is configured."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "askai-graph" / "bm25"


def post_to_document(post: Post, content: str | None = None) -> Document:
    """Turn a post (or some of its passages, ``content``) into the Document every retriever returns."""
    return Document(
        page_content=post.body if content is None else content,
        metadata={
            "source_url": post.url,
            "title": post.title,
            "summary": post.summary,
            "images": [image.model_dump() for image in post.images],
        },
    )


class BM25Retriever(BaseRetriever):
    """Lexical retriever over a corpus' passages; returns only pages sharing a term with the query."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    corpus: Corpus
    """The posts it searches."""
    k: int = 6
    """Pages returned per query at most."""
    cache_dir: Path | None = None
    """Index cache folder for an in-memory corpus; ``default_cache_dir()`` when unset."""
    passage_chars: int = DEFAULT_PASSAGE_CHARS
    """Pages longer than this are split into passages (in-memory corpora; a built index keeps its own)."""

    _index: bm25s.BM25 = PrivateAttr()
    _passages: list[tuple[int, Passage]] = PrivateAttr(default_factory=list)

    def model_post_init(self, __context: object) -> None:
        """Open the built index, or load the cached index for this corpus, or build and cache it."""
        if self.corpus.index is not None:
            self._index = self.corpus.index.load_bm25()
            return
        self._passages = [
            (number, passage)
            for number, post in enumerate(self.corpus.posts)
            for passage in split_passages(post.body, self.passage_chars)
        ]
        key = f"{self.corpus.fingerprint}-{_CACHE_FORMAT}-{self.passage_chars}"
        folder = (self.cache_dir or default_cache_dir()) / key
        if (folder / "params.index.json").exists():
            try:
                self._index = bm25s.BM25.load(str(folder), mmap=False, load_vocab=True)
                if self._index.scores["num_docs"] == len(self._passages):
                    return
            except Exception:  # a corrupt cache must not stop the app: rebuild it
                pass
            logger.warning("BM25 index cache at %s is unreadable; rebuilding", folder)
        vocabulary = Vocabulary()
        first = {number: i for i, (number, _) in reversed(list(enumerate(self._passages)))}
        tokens = [
            vocabulary.encode_text(passage_text(self.corpus.posts[number], passage, first[number] == i))
            for i, (number, passage) in enumerate(self._passages)
        ]
        self._index = build_bm25(tokens, vocabulary)
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
        ranked = top_documents(self._index, terms, self.k * PASSAGES_PER_PAGE)
        found = self._passages_of(ranked)
        pages: dict[int, list[tuple[int, float, Passage]]] = {}
        for passage_id, score in ranked:
            post_id, passage = found[passage_id]
            pages.setdefault(post_id, []).append((passage_id, score, passage))
        # A page ranks by its best passage; its other matching passages ride along as evidence.
        order = sorted(pages.items(), key=lambda item: -item[1][0][1])
        documents = []
        for post_id, hits in order[: self.k]:
            post = self._post(post_id)
            best = sorted(hits[:EVIDENCE_PASSAGES])  # page order reads better than score order
            whole = len(best) == 1 and best[0][2].text == post.body
            document = post_to_document(post, None if whole else "\n\n".join(hit[2].text for hit in best))
            document.metadata["score"] = hits[0][1]
            document.metadata["sections"] = [hit[2].heading for hit in best]
            documents.append(document)
        return documents

    def catalog(self, limit: int) -> list[Document]:
        """Return the first ``limit`` pages in the site's own order (``site_order_key``)."""
        if self.corpus.index is not None:
            listed = self.corpus.index.catalog(limit)
            openings = self.corpus.index.first_passages([post_id for post_id, _ in listed])
            return [post_to_document(post, openings.get(post_id, post.body)) for post_id, post in listed]
        return [
            post_to_document(post, split_passages(post.body, self.passage_chars)[0].text)
            for post in self._site_order[:limit]
        ]

    @cached_property
    def _site_order(self) -> list[Post]:
        return sorted(self.corpus.posts, key=lambda p: site_order_key(p.weight, p.date, p.title, p.url))

    def _passages_of(self, ranked: list[tuple[int, float]]) -> dict[int, tuple[int, Passage]]:
        if self.corpus.index is None:
            return {passage_id: self._passages[passage_id] for passage_id, _ in ranked}
        rows = self.corpus.index.passages([document for document, _ in ranked])
        return {document: (post_id, Passage(heading, text)) for document, (post_id, heading, text) in rows.items()}

    def _post(self, post_id: int) -> Post:
        # A built index names posts by row id; an in-memory corpus by position.
        return self.corpus.index.post(post_id) if self.corpus.index is not None else self.corpus.posts[post_id]
