"""Page retrieval over passages, one Document per page, as LangChain ``BaseRetriever``s.

Pages are split into passages at headings (``askai_graph.retrieval.passages``); a retriever ranks
the passages and groups the best ones of each page into one Document whose
``source_url`` is the page URL, so citations and source cards stay one per page.
``PageRetriever`` holds what every ranking shares (passages, grouping, Documents, the
site catalog, an optional reranker); ``BM25Retriever`` ranks lexically, and
``askai_graph.retrieval.hybrid`` adds dense and hybrid ranking over the same passages.

For a built index (``askai index``) the BM25 matrix is memory-mapped from the index and
pages are read from it per query; for a corpus loaded in memory it is built at start-up
and cached on disk under the corpus fingerprint, so a restart loads instead of
re-indexing. Only the pages a query keeps become Documents: Research asks for its
``top_k`` (the ``k`` keyword of ``invoke``), not for every candidate.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field, PrivateAttr

from askai_graph.retrieval.bm25 import BM25Index, Vocabulary, build_bm25, index_forms, top_documents
from askai_graph.retrieval.corpus import Corpus, Page, site_order_key
from askai_graph.retrieval.hits import PageHit, group_pages
from askai_graph.retrieval.passages import DEFAULT_PASSAGE_CHARS, Passage, passage_text, split_passages
from askai_graph.retrieval.relevance import DEFAULT_MIN_TERM_COVERAGE, above_floor
from askai_graph.retrieval.scope import Scope, ScopeError, SiteVariants, scope_of
from askai_graph.retrieval.shown import ShownRow, shown_passage
from askai_graph.text.terms import content_terms, known_form

logger = logging.getLogger(__name__)
# Passages ranked per page returned: enough that k pages survive the grouping.
PASSAGES_PER_PAGE = 4
MAX_SCOPES = 64
"""Readers' scopes (version, language) kept per retriever; a site has a few."""
INLINE_PASSAGES = 10_000
"""Largest corpus in memory whose BM25 ranking runs on the event loop in an async query."""
_CACHE_FORMAT = "p5"  # p2: camelCase identifiers are indexed with their parts; p3: CJK bigrams, pages' languages;
# p4: the page title counts three times (``passages.TITLE_REPEATS``); p5: b = 0.65 (``bm25.B``)


def default_cache_dir() -> Path:
    """Return the folder BM25 indexes are cached in when none is configured."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "askai-graph" / "bm25"


def page_to_document(post: Page, content: str | None = None) -> Document:
    """Turn a post (or some of its passages, ``content``) into the Document every retriever returns."""
    document = Document(
        page_content=post.body if content is None else content,
        metadata={
            "source_url": post.url,
            "title": post.title,
            "summary": post.summary,
            "images": [image.model_dump() for image in post.images],
            "anchors": [anchor.model_dump() for anchor in post.anchors],
        },
    )
    if post.version or post.locale:
        document.metadata.update(version=post.version, locale=post.locale)
    return document


def passage_order(texts: Sequence[str], ranked: Sequence[int], in_page_order: Sequence[int]) -> list[list[int]]:
    """Return ``[start, rank]`` for each passage a Document joins, in page order.

    ``start`` is where the passage begins in the Document's text (``texts`` joined by a
    blank line), ``rank`` its place among the page's passages in the retriever's order
    (``ranked``, best first; 0: the best). A model Writer's context weighs a section by it
    (``retrieval.sections.passage_weight``): the retriever ranked the passages with the
    whole site's statistics and, in hybrid mode, their meaning, which the per-request
    section ranking cannot see.
    """
    rank = {doc: position for position, doc in enumerate(ranked)}
    order, start = [], 0
    for text, doc in zip(texts, in_page_order, strict=True):
        order.append([start, rank[doc]])
        start += len(text) + 2
    return order


class PageRetriever(BaseRetriever):
    """Base of the page retrievers: ranks passages (``_rank``), returns one Document per page.

    A ``reranker`` (any LangChain ``BaseDocumentCompressor``, e.g. a cross-encoder)
    reorders the first ``rerank_candidates`` ranked pages before the best ``k`` are kept.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    corpus: Corpus
    """The posts it searches."""
    k: int = 6
    """Pages returned per query at most (``invoke(query, k=...)`` overrides it per call)."""
    cache_dir: Path | None = None
    """Index cache folder for an in-memory corpus; ``default_cache_dir()`` when unset."""
    passage_chars: int = DEFAULT_PASSAGE_CHARS
    """Pages longer than this are split into passages (in-memory corpora; a built index keeps its own)."""
    reranker: BaseDocumentCompressor | None = None
    """Reorders (and may drop) the ranked pages before the best ``k`` are kept."""
    rerank_candidates: int = Field(20, ge=1)
    """Ranked pages the reranker sees at most (the rest follow unreranked)."""
    min_term_coverage: float = Field(DEFAULT_MIN_TERM_COVERAGE, ge=0, le=1)
    """Pages covering less of the question's IDF-weighted terms are no candidates (``retrieval.relevance``)."""

    _passages: list[tuple[int, Passage]] = PrivateAttr(default_factory=list)
    _first: frozenset[int] = PrivateAttr(default=frozenset())
    _scopes: dict[tuple[str, str], tuple[Scope, np.ndarray]] = PrivateAttr(default_factory=dict)

    def model_post_init(self, __context: object) -> None:
        """Split an in-memory corpus into passages, then open the ranking's indexes."""
        if self.corpus.index is None:
            self._passages = [
                (number, passage)
                for number, post in enumerate(self.corpus.posts)
                for passage in split_passages(post.body, self.passage_chars)
            ]
            firsts = {number: i for i, (number, _) in reversed(list(enumerate(self._passages)))}
            self._first = frozenset(firsts.values())
        self._open()

    def _open(self) -> None:
        """Load or build the indexes the ranking needs."""

    def _rank(
        self, query: str, pages: int, within: np.ndarray | None = None, locales: Sequence[str] = ("",)
    ) -> list[PageHit]:
        """Return up to ``pages`` ranked pages for ``query``, of the passages ``within`` (all when ``None``).

        ``locales`` are the languages of the pages in scope: the question's words are read as theirs were.
        """
        raise NotImplementedError

    @cached_property
    def variants(self) -> SiteVariants:
        """The site's versions and languages (none for a site that keeps one of each)."""
        if self.corpus.index is not None:
            return SiteVariants.from_manifest(self.corpus.index.manifest)
        return SiteVariants.from_manifest(self.corpus.variants or {})

    def scope(self, version: str | None, locale: str | None) -> Scope | None:
        """Return the pages a reader of ``version`` in ``locale`` may get (``retrieval.scope``); ``None``: all."""
        found = self._scoped(version, locale)
        return found[0] if found is not None else None

    def _scoped(self, version: str | None, locale: str | None) -> tuple[Scope, np.ndarray] | None:
        variants = self.variants
        if not variants.any:
            return None
        try:
            read = variants.version(version)
        except ScopeError:
            return Scope(version or "", locale or ""), np.zeros(len(self._document_posts), dtype=bool)
        language = variants.locale(locale)
        key = (read, language if language in variants.locales else "")
        if key not in self._scopes:
            if len(self._scopes) >= MAX_SCOPES:
                self._scopes.clear()
            scope = scope_of(variants, self._page_rows(), read, language)
            assert scope is not None
            self._scopes[key] = scope, np.isin(self._document_posts, np.fromiter(scope.pages, dtype=np.int64))
        return self._scopes[key]

    def _page_rows(self) -> list[tuple[int, str, str, str]]:
        if self.corpus.index is not None:
            return [tuple(row) for row in self.corpus.index.query("SELECT id, version, locale, doc FROM posts")]
        return [(number, post.version, post.locale, post.doc) for number, post in enumerate(self.corpus.posts)]

    @cached_property
    def _document_posts(self) -> np.ndarray:
        """The page of each passage document, in document order."""
        if self.corpus.index is not None:
            rows = self.corpus.index.query("SELECT post_id FROM passages ORDER BY id")  # documents: passages by id
            return np.array([row[0] for row in rows], dtype=np.int64)
        return np.array([number for number, _ in self._passages], dtype=np.int64)

    def _lexical_index(self) -> BM25Index | None:
        """Return the BM25 index the relevance floor counts terms in (``None``: no floor, e.g. dense alone)."""
        return None

    def site_uses(self, term: str) -> bool:
        """Whether any passage of the site has ``term`` (a stem, as ``content_terms`` gives it), or a close form of it.

        A retriever without a lexical index cannot tell: every term counts as used.
        """
        lexical = self._lexical_index()
        return lexical is None or known_form(term, lexical.vocab_dict) in lexical.vocab_dict

    def _relevant(self, query: str, hits: list[PageHit], locales: Sequence[str] = ("",)) -> list[PageHit]:
        """Keep the ranked pages above the relevance floor (``askai_graph.retrieval.relevance``)."""
        lexical = self._lexical_index()
        return hits if lexical is None else above_floor(lexical, query, hits, self.min_term_coverage, locales)

    def _candidates(
        self, query: str, k: int, version: str | None = None, locale: str | None = None
    ) -> tuple[list[Document], list[Document]]:
        """Return the Documents for the reranker (possibly none) and those that follow them."""
        wanted = max(k, self.rerank_candidates) if self.reranker is not None else k
        scoped = self._scoped(version, locale)
        within = scoped[1] if scoped is not None else None
        # The question is read as the reader's language (and the default one, when its pages stand in
        # for untranslated ones), as the pages in each were indexed.
        locales: tuple[str, ...] = ("",)
        if scoped is not None:
            locales = (scoped[0].locale, self.variants.default_locale) if scoped[0].fallback else (scoped[0].locale,)
        if any(content_terms(query, locale) for locale in locales):
            hits = self._relevant(query, self._rank(query, wanted, within, locales), locales)
        else:
            hits = []
        documents = self._documents(hits, scoped[0] if scoped is not None else None)
        if self.reranker is None:
            return [], documents
        return documents[: self.rerank_candidates], documents[self.rerank_candidates :]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None,
        version: str | None = None, locale: str | None = None,
    ) -> list[Document]:
        limit = self.k if k is None else k
        head, tail = self._candidates(query, limit, version, locale)
        if self.reranker is not None and head:
            head = list(self.reranker.compress_documents(head, query, callbacks=run_manager.get_child()))
        return [*head, *tail][:limit]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None,
        version: str | None = None, locale: str | None = None,
    ) -> list[Document]:
        limit = self.k if k is None else k
        if self._ranks_inline():
            head, tail = self._candidates(query, limit, version, locale)
        else:  # ranking reads the built index from disk (and calls a model for dense): off the event loop
            head, tail = await run_in_executor(None, self._candidates, query, limit, version, locale)
        if self.reranker is not None and head:
            head = list(await self.reranker.acompress_documents(head, query, callbacks=run_manager.get_child()))
        return [*head, *tail][:limit]

    def _ranks_inline(self) -> bool:
        """Whether an async query is ranked on the event loop: pure CPU work, cheaper than a thread hop."""
        return False

    def has_page(self, url: str) -> bool:
        """Whether ``url`` (its ``#fragment`` aside) is one of the site's pages."""
        page = url.partition("#")[0]
        if self.corpus.index is not None:
            return bool(self.corpus.index.query("SELECT 1 FROM posts WHERE url = ? LIMIT 1", (page,)))
        return page in self._page_urls

    @cached_property
    def _page_urls(self) -> frozenset[str]:
        return frozenset(post.url for post in self.corpus.posts)

    def _documents(self, hits: Sequence[PageHit], scope: Scope | None = None) -> list[Document]:
        """Build one Document per page: its best passages (page order), score and section headings.

        A page standing in for one not translated into the reader's language says so (``untranslated``).
        """
        # Every passage of the page the ranking reached, in page order: the section that answers
        # a guide's question is often its third or fourth, not among its best two.
        found = self._passage_texts([doc for hit in hits for doc in hit.passages])
        documents = []
        for hit in hits:
            post = self._post(hit.post_id)
            best = sorted(hit.passages)  # page order reads better than score order
            whole = len(best) == 1 and found[best[0]].text == post.body
            document = page_to_document(post, None if whole else "\n\n".join(found[doc].text for doc in best))
            document.metadata["score"] = hit.score
            document.metadata["sections"] = [found[doc].heading for doc in best]
            if not whole:
                texts = [found[doc].text for doc in best]
                document.metadata["passage_order"] = passage_order(texts, hit.passages, best)
            if scope is not None and hit.post_id in scope.fallback:
                document.metadata["untranslated"] = True
            documents.append(document)
        return documents

    def catalog(self, limit: int, version: str | None = None, locale: str | None = None) -> list[Document]:
        """Return the first ``limit`` pages in the site's own order (``site_order_key``), with their nav sections.

        With versions or languages, the reader's (``scope``): that version's pages in its own sidebar's order.
        """
        scope = self.scope(version, locale)
        allowed = None if scope is None else scope.pages
        if self.corpus.index is not None:
            listed = self.corpus.index.catalog(limit, allowed)
            openings = self.corpus.index.first_passages([post_id for post_id, _ in listed])
            pages = [(post_id, post, openings.get(post_id, post.body)) for post_id, post in listed]
        else:
            ordered = [(n, post) for n, post in self._site_order if allowed is None or n in allowed][:limit]
            pages = [(n, post, split_passages(post.body, self.passage_chars)[0].text) for n, post in ordered]
        documents = []
        for post_id, post, opening in pages:
            document = page_to_document(post, opening)
            # What a catalog answer needs: the section to group under, and how many pages there are in all.
            document.metadata["section"] = post.section
            document.metadata["site_pages"] = len(self.corpus.posts) if allowed is None else len(allowed)
            if scope is not None and post_id in scope.fallback:
                document.metadata["untranslated"] = True
            documents.append(document)
        return documents

    @cached_property
    def _site_order(self) -> list[tuple[int, Page]]:
        numbered = enumerate(self.corpus.posts)
        return sorted(numbered, key=lambda n: site_order_key(n[1].weight, n[1].date, n[1].title, n[1].url))

    def _posts_of(self, documents: Sequence[int]) -> dict[int, int]:
        """Return the page of each passage document."""
        if self.corpus.index is None:
            return {doc: self._passages[doc][0] for doc in documents}
        return self.corpus.index.passage_posts(documents)  # type: ignore[no-any-return]

    def _passage_texts(self, documents: Sequence[int]) -> dict[int, Passage]:
        """Return the passage behind each document (read from a built index only for these)."""
        if self.corpus.index is None:
            return {doc: self._passages[doc][1] for doc in documents}
        rows = self.corpus.index.passages(documents)
        return {doc: Passage(heading, text) for doc, (_, heading, text) in rows.items()}

    def _shown(self, documents: Sequence[int]) -> dict[int, ShownRow]:
        """Return each passage as a search shows it, with its page's title and URL (one read of a built index)."""
        if self.corpus.index is None:
            found = {}
            for doc in documents:
                post_id, passage = self._passages[doc]
                post = self.corpus.posts[post_id]
                shown = shown_passage(post.url, tuple(post.anchors), passage.text)
                found[doc] = ShownRow(post_id, post.title, post.url, shown.headings, shown.sections)
            return found
        rows = self.corpus.index.shown(documents)
        return {doc: ShownRow(*row) for doc, row in rows.items()}

    def _post(self, post_id: int) -> Page:
        # A built index names posts by row id; an in-memory corpus by position.
        return self.corpus.index.post(post_id) if self.corpus.index is not None else self.corpus.posts[post_id]

    def _is_first(self, document: int) -> bool:
        """Whether an in-memory passage opens its page (it is indexed with the page summary)."""
        return document in self._first


class BM25Retriever(PageRetriever):
    """Lexical retriever over a corpus' passages; returns only pages sharing a term with the query."""

    _index: BM25Index = PrivateAttr()

    def _open(self) -> None:
        self._index = open_bm25(self)

    def _lexical_index(self) -> BM25Index:
        return self._index

    def _ranks_inline(self) -> bool:
        # A corpus in memory has no disk to wait on, and its BM25 ranking is sparse: 0.15 ms
        # a query on the bundled site, 0.4 ms at 10,000 passages (measured), where a hop to a
        # worker thread costs about as much again in handing the GIL back and forth.
        return self.corpus.index is None and len(self._passages) <= INLINE_PASSAGES

    def _rank(
        self, query: str, pages: int, within: np.ndarray | None = None, locales: Sequence[str] = ("",)
    ) -> list[PageHit]:
        ranked = lexical_passages(self._index, query, pages * PASSAGES_PER_PAGE, within, locales)
        return group_pages(ranked, self._posts_of([doc for doc, _ in ranked]))[:pages]


def lexical_passages(
    index: BM25Index, query: str, n: int, within: np.ndarray | None = None, locales: Sequence[str] = ("",)
) -> list[tuple[int, float]]:
    """Return up to ``n`` passages ``(document, BM25 score)`` sharing a term with ``query``, best first.

    The question is read as each of ``locales``' languages (a term both readings give counts once).
    """
    read = [content_terms(query, locale) for locale in locales]
    terms = index_forms(index, read[0] if len(read) == 1 else list(dict.fromkeys(t for terms in read for t in terms)))
    return top_documents(index, terms, n, within) if terms else []


def open_bm25(retriever: PageRetriever) -> BM25Index:
    """Open the built index's BM25 matrix, or load the cached one for this corpus, or build and cache it."""
    corpus = retriever.corpus
    if corpus.index is not None:
        built: BM25Index = corpus.index.load_bm25()
        return built
    passages = retriever._passages
    key = f"{corpus.fingerprint}-{_CACHE_FORMAT}-{retriever.passage_chars}"
    folder = (retriever.cache_dir or default_cache_dir()) / key
    if (folder / "params.index.json").exists():
        try:
            index = BM25Index.load(folder)
            if index.scores["num_docs"] == len(passages):
                return index
        except Exception:  # a corrupt cache must not stop the app: rebuild it
            pass
        logger.warning("BM25 index cache at %s is unreadable; rebuilding", folder)
    vocabulary = Vocabulary()
    tokens = [
        vocabulary.encode_text(passage_text(corpus.posts[number], passage, retriever._is_first(i)),
                               corpus.posts[number].locale)
        for i, (number, passage) in enumerate(passages)
    ]
    index = build_bm25(tokens, vocabulary)
    _save_bm25(index, folder)
    return index


def _save_bm25(index: Any, folder: Path) -> None:
    staging: Path | None = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        # Write to a temp folder and rename, so concurrent starts never see half an index.
        staging = Path(tempfile.mkdtemp(dir=folder.parent))
        index.save(staging)
        shutil.rmtree(folder, ignore_errors=True)  # an unreadable earlier cache
        staging.rename(folder)
    except OSError as exc:
        logger.info("BM25 index not cached (%s); it will be rebuilt next start", exc)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
