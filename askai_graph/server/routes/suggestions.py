"""``GET /api/suggestions``: up to three starter questions the widget offers on an empty panel.

``suggestions`` (``ASKAI_SUGGESTIONS``, a JSON list) when the site owner set it; else
the first pages of the served site's catalog, in the site's own order with its index
page left out, each title phrased as a question (``as_question``). Only titles that name
a topic are asked about (``names_a_topic``): a docs site's first pages are often named
for its navigation ("Features", "Learn": a section's index page), and "What should I
know about Learn?" asks nothing. A graph brought
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
CATALOG_PAGES_READ = 4 * MAX_SUGGESTIONS + 1
"""Catalog pages read for the starters: enough left once the navigation's own pages are skipped."""

# A title that already reads as a question keeps its words.
_ASKS = re.compile(r"(?i)^(?:how|what|why|when|where|which|who|can|should|is|are|do|does)\b")
_HOW_TO = re.compile(r"(?i)^how to\s+")
_EXPLAINED = re.compile(r"(?i)[\s:,-]+explained$")
# Words of the titles docs sites give their navigation rather than a topic ("Learn",
# "Features", "User Guide", "API Reference", "Release Notes", "Getting started").
_NAV_WORDS = frozenset(
    """about advanced all and api basics blog changelog community concepts contents contribute contributing
    docs documentation examples explanations faq faqs feature features general get getting guide guides help
    home how index intro introduction learn learning misc miscellaneous more news notes other overview
    quick quickstart reference references release releases resources start started the to topics tutorial
    tutorials user welcome""".split()
)


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


def names_a_topic(title: str) -> bool:
    """Whether a page ``title`` names a topic a reader could ask about.

    Not when every word is one a site's navigation uses for itself ("Learn", "Features",
    "API Reference"): a section's index page is named so ("Learn"), and a topic section's
    ("Security") is a topic.
    """
    words = re.findall(r"\w+", title.casefold())
    return bool(words) and not all(word in _NAV_WORDS for word in words)


def catalog_suggestions(retriever: BaseRetriever | None) -> list[str]:
    """Return the first catalog pages of ``retriever``'s site naming a topic, as questions (none without a catalog)."""
    if not isinstance(retriever, SiteCatalog):
        return []
    pages = to_search_results(retriever.catalog(CATALOG_PAGES_READ), CATALOG_PAGES_READ)
    home = index_page(pages) if len(pages) > 1 else None
    topics = [page for page in pages if page is not home and names_a_topic(page.title)]
    return list(dict.fromkeys(as_question(page.title) for page in topics))[:MAX_SUGGESTIONS]


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
