"""``GET /api/search?q=…&limit=…&version=…&locale=…``: the site's sections matching what a reader types.

The launcher's search-as-you-type (``retrieval.search``): pages, each with its matching
sections (heading, link, plain-text snippet, matched words' offsets), every page marked
``endorsed: false`` (search hits, not answers no gate has read). A response carries an
``ETag`` drawn from the corpus fingerprint and the normalised request, so a repeated
search is a ``304`` without searching again, and ``Cache-Control`` lets the browser
keep it a minute. Each search answered (not a ``304``, not a refusal) goes to the
search log (``stores.runlog.searches``: the query masked, the result count, the reader's
keyed hash) once its reader settles on it (``search_settle``: not each keystroke's
query), through the run log's writer queue: a search never waits on the database. Every
refusal is ``{"detail": ...}``:

=====  =============================================================================
429    This client address searched more than ``search_per_minute`` times in the
       last minute (with ``Retry-After``; counted apart from questions, in Redis
       across processes when ``cache_url`` is set).
422    ``q`` is missing, empty, or longer than a question may be
       (``max_question_chars``); ``limit`` is not a whole number from 1 to 20;
       ``version`` or ``locale`` is not a short path segment.
404    This server answers from a graph it did not build: it has no corpus to search.
=====  =============================================================================
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from functools import partial
from typing import Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from askai_graph.retrieval.pages import PageRetriever
from askai_graph.retrieval.scope import ScopeError
from askai_graph.retrieval.search import MAX_RESULTS, PageMatch, search
from askai_graph.server.answers.search_settle import SearchSettler
from askai_graph.server.guards.limits import ClientRateLimit, client_address, reader_of
from askai_graph.server.guards.request import BadRequest
from askai_graph.server.routes.openapi import SEARCH_RESPONSES
from askai_graph.settings import Settings
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog.searches import SearchRecord
from askai_graph.text.plain import clean_question

DEFAULT_LIMIT = 8
"""Pages a search returns when ``limit`` is not given."""
MAX_AGE_SECONDS = 60
"""How long a browser may reuse a search's response without asking again."""
_FORMAT = "s2"  # moves every ETag when the response's shape or ranking changes (s2: ties at the cut, #40)
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def router(
    settings: Settings,
    *,
    rate_limit: ClientRateLimit,
    settled: SearchSettler | None = None,
    readers: ReaderHash | None = None,
) -> APIRouter:
    """Return the ``GET /api/search`` route, counting each client's searches in ``rate_limit``.

    Each search answered goes to ``settled`` (when the run log is on), which logs the ones
    its reader (as ``readers`` hashes the client address) settled on.
    """
    routes = APIRouter()

    @routes.get("/api/search", response_model=None, responses=SEARCH_RESPONSES)
    async def search_route(
        request: Request,
        q: str = Query("", description="What the reader has typed so far (the last word may be unfinished)."),
        limit: str = Query(str(DEFAULT_LIMIT), description=f"Pages returned at most (1 to {MAX_RESULTS})."),
        version: str | None = Query(None, description=_VERSION),
        locale: str | None = Query(None, description=_LOCALE),
    ) -> Response:
        """Return the pages and sections matching ``q``, none of them endorsed."""
        wait = await rate_limit.admit(client_address(request))
        if wait is not None:
            raise BadRequest(429, f"too many searches: at most {settings.search_per_minute} a minute", retry_after=wait)
        query, pages, filters = _query(q, settings), _limit(limit), _filters(version=version, locale=locale)
        retriever = getattr(getattr(request.app.state, "reloader", None), "retriever", None)
        if not isinstance(retriever, PageRetriever):
            raise BadRequest(404, "this server answers from a graph it did not build: it has no pages to search")
        request_key = json.dumps([_FORMAT, retriever.corpus.fingerprint, query, pages, filters])
        etag = '"' + hashlib.sha256(request_key.encode()).hexdigest()[:32] + '"'
        # A logged search's response names its row (search_id): the reader's own, kept by no shared cache.
        cache = "private" if settled is not None else "public"
        headers = {"ETag": etag, "Cache-Control": f"{cache}, max-age={MAX_AGE_SECONDS}"}
        if etag in _etags(request.headers.get("if-none-match", "")):
            return Response(status_code=304, headers=headers)
        find = partial(search, retriever, query, pages, **filters)
        # Ranking is CPU work, and a built index is read from disk: off the event loop.
        try:
            inline = retriever._ranks_inline()
            found = find() if inline else await asyncio.get_running_loop().run_in_executor(None, find)
        except ScopeError as exc:
            raise BadRequest(422, str(exc)) from None
        response: dict[str, Any] = {"query": query, "results": [_result(page) for page in found]}
        if settled is not None:
            record = SearchRecord(query=query, result_count=len(found))
            if readers is not None:  # an id only this reader's question can name (``ReaderHash.issue``)
                reader = reader_of(request, readers)
                record = record.model_copy(update={"reader": reader, "search_id": readers.issue(reader)})
            settled.search(record)  # never waits
            response["search_id"] = record.search_id  # a question asked from it names it (POST /api/chat)
        return JSONResponse(response, headers=headers)

    return routes


_VERSION = "The docs version the reader reads (`2.0`); ignored on a site indexed without versions."
_LOCALE = "The reader's language (`fr`); ignored on a site indexed without languages."


def _query(text: str, settings: Settings) -> str:
    # Stripped of invisible characters, but a trailing space is kept: it ends the last word.
    query = clean_question(text) + (" " if text[-1:].isspace() and text.strip() else "")
    if not query.strip():
        raise BadRequest(422, "q is empty: type a word to search for")
    if len(query.strip()) > settings.max_question_chars:
        limit = settings.max_question_chars
        raise BadRequest(422, f"q is {len(query.strip())} characters; a search is at most a question's {limit}")
    return query


def _limit(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_RESULTS:
        raise BadRequest(422, f"limit must be a whole number from 1 to {MAX_RESULTS}")
    return int(text)


def _filters(**values: str | None) -> dict[str, str | None]:
    for name, value in values.items():
        if value is not None and not _SEGMENT.fullmatch(value):
            raise BadRequest(422, f"{name} must be one URL path segment (letters, digits, '.', '_', '-'; 64 at most)")
    return values


def _etags(header: str) -> set[str]:
    """Return the entity tags an ``If-None-Match`` header lists (weak ones compared as strong: a GET)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _result(page: PageMatch) -> dict[str, Any]:
    return {
        "title": page.title,
        "url": page.url,
        "endorsed": False,
        "sections": [
            {
                "heading": section.heading,
                "url": section.url,
                "snippet": section.snippet,
                "highlights": [list(span) for span in section.highlights],
            }
            for section in page.sections
        ],
    }
