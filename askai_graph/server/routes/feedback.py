"""``POST /api/feedback {"run_id", "rating": "up"|"down", "comment"?}``: a reader rates an answer.

The rating is attached to the run-log record of ``run_id`` (the id the answer's ``done``
event carried); the latest rating wins. Every refusal is ``{"detail": ...}``:

=====  =============================================================================
415    ``Content-Type`` is not ``application/json``.
429    This client address sent more than ``feedback_per_minute`` posts in the last
       minute (with ``Retry-After``; counted in Redis across processes when
       ``cache_url`` is set, like the questions; behind a proxy, see ``limits``).
413    The body is larger than 4 KiB plus the comment limit.
400    The body is not valid JSON.
422    Not an object; a missing, unknown or mistyped field; a ``run_id`` that is not
       a UUID; a ``rating`` other than ``up``/``down``; a comment over the limit
       (``bodies.FeedbackBody``).
408    The body did not arrive within ``body_timeout_seconds``.
404    No answer with that ``run_id`` is logged (or the run log is off).
503    The run log's database is unavailable for now (with ``Retry-After``).
=====  =============================================================================
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from askai_graph.server.guards.limits import ClientRateLimit, client_address
from askai_graph.server.guards.pools import bookkeeping
from askai_graph.server.guards.request import BadRequest, read_json, require_json
from askai_graph.server.routes.bodies import FeedbackBody
from askai_graph.server.routes.openapi import FEEDBACK_RESPONSES, request_body
from askai_graph.settings import Settings
from askai_graph.stores.runlog import RunLog, RunLogUnavailable
from askai_graph.stores.runlog.store import STORE_TIMEOUT_SECONDS


def router(settings: Settings, *, rate_limit: ClientRateLimit, run_log: RunLog | None) -> APIRouter:
    """Return the ``POST /api/feedback`` route, storing ratings in ``run_log``."""
    routes = APIRouter()
    body_limit = 4096 + 4 * settings.max_feedback_chars  # a UTF-8 character is at most 4 bytes

    @routes.post(
        "/api/feedback",
        response_model=None,
        responses=FEEDBACK_RESPONSES,
        openapi_extra={"requestBody": request_body(FeedbackBody)},
        dependencies=[Depends(require_json)],
    )
    async def feedback(request: Request) -> JSONResponse:
        """Rate an answer: ``{"run_id", "rating": "up"|"down", "comment"?}``."""
        wait = await rate_limit.admit(client_address(request))
        if wait is not None:
            detail = f"too much feedback: at most {settings.feedback_per_minute} posts a minute"
            raise BadRequest(429, detail, retry_after=wait)
        body = await read_json(request, FeedbackBody, limit=body_limit, settings=settings)
        if run_log is None:
            raise BadRequest(404, "feedback is not recorded here (the run log is off)")
        rate = bookkeeping(run_log.add_feedback, body.run_id, body.rating, body.comment)
        try:
            # The store bounds its own waits; this bounds the request even if a call hangs past them.
            known = await asyncio.wait_for(rate, STORE_TIMEOUT_SECONDS * 2)
        except (RunLogUnavailable, TimeoutError):
            # The reader's client tries again: nothing is lost.
            detail = "feedback cannot be stored right now; try again shortly"
            raise BadRequest(503, detail, retry_after=RunLogUnavailable.retry_after_seconds) from None
        if not known:
            raise BadRequest(404, f"unknown run_id {body.run_id}")
        return JSONResponse({"run_id": body.run_id, "rating": body.rating})

    return routes
