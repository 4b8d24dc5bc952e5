"""Research: retrieve candidate posts for the question (plus the Critic's gaps on retries)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ValidationError

from askai_graph.evidence.results import HeadingAnchor, ImageRef, SearchResult
from askai_graph.nodes.calls import Body, Call, arun, blocking, both, run
from askai_graph.retrieval.pages import PageRetriever
from askai_graph.rules.catalog import SiteCatalog, is_catalog_question
from askai_graph.rules.named_tools import unmentioned_tools
from askai_graph.settings import Settings
from askai_graph.state import AskState, researched_question
from askai_graph.text.injection import gives_orders

logger = logging.getLogger(__name__)


def research_query(state: AskState) -> str:
    """Return the (standalone) question, extended with the latest Critic's gaps on a retry."""
    # Masked, with no label left: a value the reader pasted is no search term (``masking.searchable``).
    question = researched_question(state)
    gaps = state.get("gaps") or []
    return " ".join([question, *gaps]) if state.get("attempts") else question


def about_this_site(
    state: AskState, results: list[SearchResult], site_uses: Callable[[str], bool] | None = None
) -> list[SearchResult]:
    """Return ``results``, or none when the question names a tool no retrieved page mentions (``named_tools``).

    "In Mocha, how do I set a root hook plugin?" shares "root", "hook" and "plugin" with a
    Jest site; the pages found answer another tool's question, and quoting them would
    lend the site's authority to a wrong answer.
    """
    return [] if unmentioned_tools(researched_question(state), results, site_uses) else results


def to_search_results(documents: list[Document], top_k: int) -> list[SearchResult]:
    """Convert retriever Documents into SearchResults, dropping ones without a URL."""
    results: dict[str, SearchResult] = {}
    for document in documents:
        meta = document.metadata
        url = meta.get("source_url")
        if not isinstance(url, str) or not url or url in results:
            continue
        images = []
        for image in meta.get("images") or []:
            try:
                images.append(ImageRef.model_validate(image))
            except ValidationError:
                logger.warning("ignoring malformed image metadata on %s", url)
        results[url] = SearchResult(
            anchors=_anchors(meta.get("anchors"), url),
            title=str(meta.get("title") or url),
            source_url=url,
            content=document.page_content,
            summary=str(meta.get("summary") or ""),
            images=tuple(images),
            score=float(meta.get("score") or 0.0),
            section=str(meta.get("section") or ""),
            site_pages=int(meta.get("site_pages") or 0),
            fallback_locale=str(meta.get("locale") or "") if meta.get("untranslated") is True else "",
            passage_order=_passage_order(meta.get("passage_order")),
        )
        if len(results) == top_k:
            break
    return list(results.values())


def _passage_order(value: Any) -> tuple[tuple[int, int], ...]:
    """Read a Document's ``passage_order`` (``[start, rank]`` pairs); anything else is no order."""
    if not isinstance(value, list | tuple):
        return ()
    pairs = []
    for item in value:
        if not (isinstance(item, list | tuple) and len(item) == 2 and all(type(n) is int and n >= 0 for n in item)):
            return ()
        pairs.append((item[0], item[1]))
    return tuple(pairs)


def _anchors(value: Any, url: str) -> tuple[HeadingAnchor, ...]:
    """Return a Document's heading anchors; malformed metadata (another retriever's) means none."""
    try:
        return tuple(HeadingAnchor.model_validate(anchor) for anchor in value or ())
    except (ValidationError, TypeError):
        logger.warning("ignoring malformed heading anchors on %s", url)
        return ()


def researched(state: AskState, query: str, results: list[SearchResult]) -> dict[str, Any]:
    """Return the state update for one Research pass (Condense reset everything else)."""
    return {"query": query, "search_results": results}


def result_limit(state: AskState, settings: Settings) -> int:
    """Return how many posts to keep: more for a catalog question, which lists posts."""
    return settings.catalog_top_k if is_catalog_question(researched_question(state)) else settings.top_k


class Research:
    """Query the injected retriever; a failing retriever retrieves nothing (fail closed).

    A retry whose query (the question plus the Critic's gaps) retrieves nothing, for
    instance because the gap words dilute the relevance floor, searches for the question
    alone: a retry must not lose the pages the question itself found. Nothing is
    retrieved for a message that gives the assistant orders (``injection.gives_orders``):
    no page answers "ignore your instructions and ...", so it ends in fallback with no
    site text under it.
    """

    def __init__(self, retriever: BaseRetriever) -> None:
        """Use ``retriever`` for every query."""
        self.retriever = retriever

    def __call__(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Retrieve synchronously."""
        return run(self._research(state, settings))

    async def acall(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Retrieve asynchronously (the retriever's own ``ainvoke``)."""
        return await arun(self._research(state, settings))

    def _research(self, state: AskState, settings: Settings) -> Body[dict[str, Any]]:
        query = research_query(state)
        if gives_orders(researched_question(state)):
            return researched(state, query, [])
        try:
            if (site := self._site_catalog(state)) is not None:
                # A built index reads its catalog from disk: off the event loop in an async run.
                documents = yield blocking(site.catalog, settings.catalog_top_k, **self._scope(settings))
            else:
                documents = yield self._retrieve(query, state, settings)
                if not documents and query != (question := researched_question(state)):
                    documents = yield self._retrieve(question, state, settings)
        except Exception:
            logger.exception("retriever failed; continuing with no results")
            documents = []
        found = to_search_results(documents, result_limit(state, settings))
        return researched(state, query, about_this_site(state, found, getattr(self.retriever, "site_uses", None)))

    def _retrieve(self, query: str, state: AskState, settings: Settings) -> Call:
        return both(self.retriever.invoke, self.retriever.ainvoke, query, None, **self._limit(state, settings))

    def _limit(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Ask the project's own retrievers for the pages this run keeps, no more, of the reader's version and language.

        Any other retriever is invoked as it always was: a ``k`` keyword means something
        else, or nothing, to a retriever written elsewhere.
        """
        if not isinstance(self.retriever, PageRetriever):
            return {}
        return {"k": result_limit(state, settings), **self._scope(settings)}

    @staticmethod
    def _scope(settings: Settings) -> dict[str, str | None]:
        """The reader's version and language (``retrieval.scope``), when the run names either."""
        return {"version": settings.version, "locale": settings.locale} if settings.version or settings.locale else {}

    def _site_catalog(self, state: AskState) -> SiteCatalog | None:
        """Return the retriever as a site catalog when a catalog question should be answered from it.

        Search hits for "what articles do you have" are the pages that happen to say
        "articles"; a catalog question wants the site's table of contents, in its order.
        """
        if isinstance(self.retriever, SiteCatalog) and is_catalog_question(researched_question(state)):
            return self.retriever
        return None
