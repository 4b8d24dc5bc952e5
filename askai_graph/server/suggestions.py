"""``GET /api/suggestions``: up to three starter questions the widget offers on an empty panel.

``suggestions`` (``ASKAI_SUGGESTIONS``, a JSON list) when the site owner set it; else
the first pages of the served site's catalog, in the site's own order with its index
page left out, each title phrased as a question (``as_question``). A graph brought
without the app's own corpus (a custom graph, ``--graph-url``) has no catalog here and
suggests only what is configured. A page is only a title here: the reader's click asks
the question like any other, through both gates.
"""

from __future__ import annotations

import asyncio
import re

from fastapi import APIRouter, Request
from langchain_core.retrievers import BaseRetriever
from pydantic import BaseModel

from askai_graph.nodes.research import to_search_results
from askai_graph.rules.catalog import SiteCatalog, index_page
from askai_graph.settings import Settings

MAX_SUGGESTIONS = 3

# A title that already reads as a question keeps its words.
_ASKS = re.compile(r"(?i)^(?:how|what|why|when|where|which|who|can|should|is|are|do|does)\b")
_HOW_TO = re.compile(r"(?i)^how to\s+")
_EXPLAINED = re.compile(r"(?i)[\s:,-]+explained$")


class Suggestions(BaseModel):
    """The body of ``GET /api/suggestions``."""

    suggestions: list[str]
    """At most three questions, in the order to show them."""


def as_question(title: str) -> str:
    """Phrase a page title as a reader's question about its topic.

    "How to X" becomes "How do I X?"; a title opening with a question word keeps its
    words; anything else becomes "What should I know about <title>?".
    """
    title = _EXPLAINED.sub("", " ".join(title.split())).rstrip(" .:;!?")
    if _HOW_TO.match(title):
        return f"How do I {_HOW_TO.sub('', title)}?"
    if _ASKS.match(title):
        return f"{title}?"
    return f"What should I know about {title}?"


def catalog_suggestions(retriever: BaseRetriever | None) -> list[str]:
    """Return the first catalog pages of ``retriever``'s site as questions (none without a catalog)."""
    if not isinstance(retriever, SiteCatalog):
        return []
    pages = to_search_results(retriever.catalog(MAX_SUGGESTIONS + 1), MAX_SUGGESTIONS + 1)
    home = index_page(pages) if len(pages) > 1 else None
    questions = [as_question(page.title) for page in pages if page is not home and page.title.strip()]
    return list(dict.fromkeys(questions))[:MAX_SUGGESTIONS]


def router(settings: Settings) -> APIRouter:
    """``GET /api/suggestions``: the configured questions, or the served catalog's."""
    routes = APIRouter()
    # Once per served corpus (a reload swaps the retriever, and with it the catalog).
    computed: list[tuple[BaseRetriever, list[str]]] = []

    @routes.get("/api/suggestions")
    async def suggestions(request: Request) -> Suggestions:
        """Up to three starter questions: ``ASKAI_SUGGESTIONS``, else the site's first pages as questions."""
        if settings.suggestions:
            return Suggestions(suggestions=list(settings.suggestions[:MAX_SUGGESTIONS]))
        reloader = request.app.state.reloader
        retriever = reloader.retriever if reloader is not None else None
        if retriever is None:
            return Suggestions(suggestions=[])
        if not computed or computed[0][0] is not retriever:
            # The catalog of a built index is read from its SQLite file: off the loop.
            computed[:] = [(retriever, await asyncio.to_thread(catalog_suggestions, retriever))]
        return Suggestions(suggestions=computed[0][1])

    return routes
