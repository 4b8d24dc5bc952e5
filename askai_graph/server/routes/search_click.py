"""``POST /api/search/click {"query", "url"}``: the search result a reader opened.

The launcher sends it (``fetch`` with ``keepalive``, so it outlives the page it leaves)
when a reader opens a result. It is logged beside the search (``stores.runlog.searches``:
the query masked, the reader's keyed hash), through the run log's writer queue, and
counted in the searches' rate limit. Every refusal is ``{"detail": ...}``:

=====  =============================================================================
415    ``Content-Type`` is not ``application/json``.
429    This client address searched (or clicked) more than ``search_per_minute``
       times in the last minute (with ``Retry-After``).
413    The body is larger than 4 KiB plus a question's length.
400    The body is not valid JSON.
422    Not an object; a missing, unknown or mistyped field; an empty ``query`` or
       one longer than a question; a ``url`` that is not an http(s) URL
       (``bodies.SearchClickBody``).
408    The body did not arrive within ``body_timeout_seconds``.
404    The ``url`` is not one of the site's pages; the run log is off, or this server
       has no pages (a graph it did not build).
=====  =============================================================================
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from askai_graph.retrieval.pages import PageRetriever
from askai_graph.server.answers.search_settle import SearchSettler
from askai_graph.server.guards.limits import ClientRateLimit, client_address, reader_of
from askai_graph.server.guards.request import BadRequest, read_json, require_json
from askai_graph.server.routes.bodies import MAX_URL_CHARS, SearchClickBody
from askai_graph.server.routes.openapi import SEARCH_CLICK_RESPONSES, request_body
from askai_graph.settings import Settings
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog
from askai_graph.stores.runlog.searches import SearchRecord


def router(
    settings: Settings,
    *,
    rate_limit: ClientRateLimit,
    run_log: RunLog | None,
    readers: ReaderHash,
    settled: SearchSettler | None = None,
) -> APIRouter:
    """Return the ``POST /api/search/click`` route, logging clicks in ``run_log`` (counted in ``rate_limit``).

    A click settles its reader's held search (``settled``) first: the click marks that row.
    """
    routes = APIRouter()
    body_limit = 4096 + 4 * (settings.max_question_chars + MAX_URL_CHARS)  # a UTF-8 character is at most 4 bytes

    @routes.post(
        "/api/search/click",
        response_model=None,
        responses=SEARCH_CLICK_RESPONSES,
        openapi_extra={"requestBody": request_body(SearchClickBody)},
        dependencies=[Depends(require_json)],
    )
    async def search_click(request: Request) -> JSONResponse:
        """Log the search result a reader opened: ``{"query", "url"}``."""
        wait = await rate_limit.admit(client_address(request))
        if wait is not None:
            raise BadRequest(429, f"too many searches: at most {settings.search_per_minute} a minute", retry_after=wait)
        body = await read_json(request, SearchClickBody, limit=body_limit, settings=settings)
        if run_log is None:
            raise BadRequest(404, "searches are not recorded here (the run log is off)")
        retriever = getattr(getattr(request.app.state, "reloader", None), "retriever", None)
        if not isinstance(retriever, PageRetriever):
            raise BadRequest(404, "this server answers from a graph it did not build: it has no pages to open")
        if not retriever.has_page(body.url):
            raise BadRequest(404, "'url' is not one of the site's pages")
        click = SearchRecord(query=body.query, clicked_url=body.url, reader=reader_of(request, readers))
        if settled is not None:
            settled.settle(click.reader)  # queued before the click, which marks it
        run_log.record_search(click)  # only queues
        return JSONResponse({"recorded": True})

    return routes
