"""Read and check a ``POST /api/chat`` request before any work starts.

Every bad input is a ``BadRequest`` with a 4xx status and one clear sentence; the graph
is never started for it. In the order checked:

=====  =============================================================================
415    ``Content-Type`` is missing or not ``application/json`` (parameters such as
       ``charset`` are allowed).
413    The body is larger than ``max_body_bytes``: refused from ``Content-Length``
       without reading the body, or while reading a body sent without a length
       (chunked), as soon as it passes the limit. Never read unbounded.
400    ``Content-Length`` is not a number; the body is not valid JSON (or not UTF-8).
422    The JSON is not an object; ``message`` is missing or not a string; the object
       has fields other than ``message`` and ``thread_id`` (unknown fields are
       *rejected*, so a typo or an unsupported option such as ``max_attempts`` is never
       silently ignored); ``message`` is empty or whitespace only; ``message`` is
       longer than ``max_question_chars`` characters after stripping (422, not 413:
       the body was small enough, the value is what is invalid); ``thread_id`` is
       present but not an id of the form the server issues.
=====  =============================================================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from askai_graph.settings import Settings
from askai_graph.threads import THREAD_ID_FORMAT, is_thread_id

ALLOWED_FIELDS = frozenset({"message", "thread_id"})
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


class BadRequest(Exception):
    """A request refused before the graph starts."""

    def __init__(self, status: int, message: str) -> None:
        """Record the HTTP status and the sentence sent back as ``{"detail": message}``."""
        super().__init__(message)
        self.status = status
        self.message = message


def json_type(value: Any) -> str:
    """Name a decoded JSON value's type the way a client author would."""
    for python_type, name in _JSON_TYPES.items():
        if isinstance(value, python_type):
            return name
    return "a number"


def check_content_type(header: str | None) -> None:
    """Refuse anything but ``application/json`` with 415."""
    media_type = (header or "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        shown = f"'{header}'" if header else "missing"
        raise BadRequest(415, f"Content-Type must be application/json (got {shown})")


async def read_body(request: Request, limit: int) -> bytes:
    """Read at most ``limit`` bytes of body; refuse a larger one with 413 as early as possible."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise BadRequest(400, "Content-Length must be a non-negative integer")
        if int(declared) > limit:
            raise BadRequest(413, f"request body is {int(declared)} bytes; the limit is {limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(413, f"request body exceeds the limit of {limit} bytes")
    return bytes(body)


@dataclass(frozen=True)
class ChatRequest:
    """A checked ``POST /api/chat`` body."""

    question: str
    """The stripped question."""
    thread_id: str | None
    """The conversation to continue; ``None`` starts a new one."""


def parse_chat(body: bytes, settings: Settings) -> ChatRequest:
    """Return the checked request from a JSON body, or raise ``BadRequest``."""
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise BadRequest(400, f"request body is not valid JSON ({reason})") from None
    if not isinstance(payload, dict):
        raise BadRequest(422, f'request body must be a JSON object like {{"message": "..."}}, not {json_type(payload)}')
    if "message" not in payload:
        raise BadRequest(422, "'message' is required")
    unknown = sorted(set(payload) - ALLOWED_FIELDS)
    if unknown:
        names = ", ".join(f"'{name}'" for name in unknown)
        raise BadRequest(422, f"unknown field(s) {names}: only 'message' and 'thread_id' are accepted")
    message = payload["message"]
    if not isinstance(message, str):
        raise BadRequest(422, f"'message' must be a string, not {json_type(message)}")
    question = message.strip()
    if not question:
        raise BadRequest(422, "'message' is empty")
    if len(question) > settings.max_question_chars:
        raise BadRequest(422, f"'message' is {len(question)} characters; the limit is {settings.max_question_chars}")
    thread_id = payload.get("thread_id")
    if thread_id is not None and not is_thread_id(thread_id):
        raise BadRequest(422, f"'thread_id' must be an id this server issued ({THREAD_ID_FORMAT})")
    return ChatRequest(question=question, thread_id=thread_id)


async def read_chat(request: Request, settings: Settings) -> ChatRequest:
    """Check headers, read the bounded body and return the request (see module docstring)."""
    check_content_type(request.headers.get("content-type"))
    return parse_chat(await read_body(request, settings.max_body_bytes), settings)
