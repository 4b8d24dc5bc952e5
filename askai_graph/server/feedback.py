"""``POST /api/feedback {"run_id", "rating": "up"|"down", "comment"?}``: a reader rates an answer.

The rating is attached to the run-log record of ``run_id`` (the id the answer's ``done``
event carried); the latest rating wins. Every refusal is ``{"detail": ...}``:

=====  =============================================================================
415    ``Content-Type`` is not ``application/json``.
429    This client address sent more than ``feedback_per_minute`` posts in the last
       minute (counted per process; behind a proxy, all readers share its address).
413    The body is larger than 4 KiB plus the comment limit.
400    The body is not valid JSON.
422    Not an object; a missing, unknown or mistyped field; a ``run_id`` that is not
       a UUID; a ``rating`` other than ``up``/``down``; a comment over the limit.
408    The body did not arrive within ``body_timeout_seconds``.
404    No answer with that ``run_id`` is logged (or the run log is off).
=====  =============================================================================
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from askai_graph.server.limits import ClientRateLimit
from askai_graph.server.request import BadRequest, ClientGone, check_content_type, decode_json, json_type, read_body
from askai_graph.settings import Settings
from askai_graph.stores.runlog import RunLog, RunLogUnavailable

FIELDS = frozenset({"run_id", "rating", "comment"})
RATINGS = ("up", "down")
_UUID = re.compile(r"\A[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_DETAIL = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}

FEEDBACK_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "run_id": {"type": "string", "pattern": _UUID.pattern.replace("\\A", "^").replace("\\Z", "$"),
                               "description": "The run_id of the answer's done event."},
                    "rating": {"type": "string", "enum": list(RATINGS)},
                    "comment": {"type": ["string", "null"], "description": "Optional; at most max_feedback_chars."},
                },
                "required": ["run_id", "rating"],
                "additionalProperties": False,
            }
        }
    },
}  # fmt: skip
FEEDBACK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The rating is stored.",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {"run_id": {"type": "string"}, "rating": {"type": "string", "enum": list(RATINGS)}},
                    "required": ["run_id", "rating"],
                }
            }
        },
    },
    **{
        status: {"description": why, "content": {"application/json": {"schema": _DETAIL}}}
        for status, why in [
            (400, "The body is not valid JSON."),
            (404, "No answer with that run_id is logged (or the run log is off)."),
            (408, "The body did not arrive in time."),
            (413, "The body is too large."),
            (415, "Content-Type is not application/json."),
            (422, "A missing, unknown or invalid field."),
            (429, "Too much feedback from this client address."),
            (503, "The run log's database is unavailable for now; try again after Retry-After seconds."),
        ]
    },
}


def parse_feedback(body: bytes, settings: Settings) -> tuple[str, str, str | None]:
    """Return ``(run_id, rating, comment)`` from a JSON body, or raise ``BadRequest``."""
    payload = decode_json(body)
    if not isinstance(payload, dict):
        raise BadRequest(
            422,
            f'request body must be a JSON object like {{"run_id": "...", "rating": "up"}}, not {json_type(payload)}',
        )
    unknown = sorted(set(payload) - FIELDS)
    if unknown:
        raise BadRequest(422, f"unknown field(s) {', '.join(repr(n) for n in unknown)}: only run_id, rating, comment")
    for name in ("run_id", "rating"):
        if name not in payload:
            raise BadRequest(422, f"'{name}' is required")
        if not isinstance(payload[name], str):
            raise BadRequest(422, f"'{name}' must be a string, not {json_type(payload[name])}")
    run_id, rating, comment = payload["run_id"], payload["rating"], payload.get("comment")
    if not _UUID.match(run_id):
        raise BadRequest(422, "'run_id' must be the run_id of an answer's done event (a UUID)")
    if rating not in RATINGS:
        raise BadRequest(422, "'rating' must be 'up' or 'down'")
    if comment is not None and not isinstance(comment, str):
        raise BadRequest(422, f"'comment' must be a string, not {json_type(comment)}")
    if comment is not None:
        try:
            comment.encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest(422, "'comment' is not valid Unicode (unpaired surrogate)") from None
    comment = comment.strip() if comment else None
    if comment and len(comment) > settings.max_feedback_chars:
        raise BadRequest(422, f"'comment' is {len(comment)} characters; the limit is {settings.max_feedback_chars}")
    return run_id.lower(), rating, comment or None


def add_feedback_route(app: FastAPI, run_log: RunLog | None, settings: Settings) -> None:
    """Add ``POST /api/feedback`` to ``app``, storing ratings in ``run_log``."""
    limiter = ClientRateLimit(f"{settings.feedback_per_minute}/minute", name="askai-feedback")
    body_limit = 4096 + 4 * settings.max_feedback_chars  # a UTF-8 character is at most 4 bytes

    @app.post(
        "/api/feedback",
        response_model=None,
        responses=FEEDBACK_RESPONSES,
        openapi_extra={"requestBody": FEEDBACK_BODY},
    )
    async def feedback(request: Request) -> Response:
        """Rate an answer: ``{"run_id", "rating": "up"|"down", "comment"?}``."""
        try:
            check_content_type(request.headers.get("content-type"))
            client = request.client.host if request.client else "unknown"
            if await limiter.admit(client) is not None:
                raise BadRequest(429, f"too much feedback: at most {settings.feedback_per_minute} posts a minute")
            body = await read_body(request, body_limit, settings.body_timeout_seconds)
            run_id, rating, comment = parse_feedback(body, settings)
        except BadRequest as exc:
            return JSONResponse({"detail": exc.message}, status_code=exc.status)
        except ClientGone:
            return Response(status_code=400)
        if run_log is None:
            return JSONResponse({"detail": "feedback is not recorded here (the run log is off)"}, status_code=404)
        try:
            known = await asyncio.to_thread(run_log.add_feedback, run_id, rating, comment)  # type: ignore[arg-type]
        except RunLogUnavailable as exc:
            # The store says so within its bound: the reader's client tries again, nothing is lost.
            return JSONResponse(
                {"detail": "feedback cannot be stored right now; try again shortly"},
                status_code=503,
                headers={"Retry-After": str(exc.retry_after_seconds)},
            )
        if not known:
            return JSONResponse({"detail": f"unknown run_id {run_id}"}, status_code=404)
        return JSONResponse({"run_id": run_id, "rating": rating})
