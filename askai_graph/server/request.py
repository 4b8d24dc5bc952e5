"""Read and check a ``POST /api/chat`` request before any work starts.

Every bad input is a ``BadRequest`` with a 4xx status and one clear sentence; the graph
is never started for it. In the order checked:

=====  =============================================================================
415    ``Content-Type`` is missing or not ``application/json``, or names a charset
       other than UTF-8.
413    The body is larger than ``max_body_bytes``: refused from ``Content-Length``
       without reading the body, or while reading a body sent without a length
       (chunked), as soon as it passes the limit. Never read unbounded.
408    The body did not arrive within ``body_timeout_seconds`` (a byte every few
       seconds is not a request).
400    ``Content-Length`` is not a number; the body is not UTF-8, not JSON, nested
       deeper than ``MAX_DEPTH`` or holds a number of more than ``MAX_DIGITS`` digits
       (or NaN/Infinity, which JSON does not have).
422    The JSON is not an object; ``message`` is missing or not a string; the object
       has fields other than ``message`` and ``thread_id`` (unknown fields are
       *rejected*, so a typo or an unsupported option such as ``max_attempts`` is never
       silently ignored); ``message`` is empty or whitespace only, holds unpaired
       surrogates, or is longer than ``max_question_chars`` characters after decoding
       and cleaning (422, not 413: the body was small enough, the value is what is
       invalid); ``thread_id`` is present but not an id of the form the server issues.
       Cleaning (``questions.clean_question``) removes invisible characters, applies
       NFKC and collapses whitespace: the graph answers what the reader sees.
=====  =============================================================================

Both limits hold: ``max_body_bytes`` bounds what is read off the wire, and
``max_question_chars`` bounds the decoded question, so a question of emoji sent as
JSON ``u``-escapes (12 bytes a character) is judged by its length, not its spelling.
A client that leaves before its body arrived is logged as one INFO line.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect, Request

from askai_graph.question import QuestionError, checked_question
from askai_graph.server.same_question import clean_question
from askai_graph.settings import Settings
from askai_graph.stores.threads import THREAD_ID_FORMAT, is_thread_id

logger = logging.getLogger(__name__)

ALLOWED_FIELDS = frozenset({"message", "thread_id"})
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a body."""
MAX_DIGITS = 100
"""Longest number literal accepted in a body (Python refuses ints past 4,300 digits anyway)."""
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


class ClientGone(Exception):
    """The client disconnected before its request body arrived: nobody to answer."""


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
    """Refuse anything but ``application/json`` (in UTF-8) with 415."""
    media_type, _, parameters = (header or "").partition(";")
    if media_type.strip().lower() != "application/json":
        shown = f"'{header}'" if header else "missing"
        raise BadRequest(415, f"Content-Type must be application/json (got {shown})")
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise BadRequest(415, f"the body must be UTF-8 (got charset={value.strip()})")


async def read_body(request: Request, limit: int, timeout: float) -> bytes:
    """Read at most ``limit`` bytes of body within ``timeout`` seconds (413, 408 otherwise)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise BadRequest(400, "Content-Length must be a non-negative integer")
        if int(declared) > limit:
            raise BadRequest(413, f"request body is {int(declared)} bytes; the limit is {limit}")
    body = bytearray()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise BadRequest(413, f"request body exceeds the limit of {limit} bytes")
    except TimeoutError:
        raise BadRequest(408, f"request body not received within {timeout:g} seconds") from None
    except ClientDisconnect:
        client = request.client.host if request.client else "unknown"
        logger.info("client %s disconnected before its request body arrived (%d bytes read)", client, len(body))
        raise ClientGone() from None
    return bytes(body)


def _bounded_number(literal: str) -> float | int:
    if len(literal) > MAX_DIGITS:
        raise ValueError(f"a number longer than {MAX_DIGITS} characters")
    return float(literal) if any(ch in literal for ch in ".eE") else int(literal)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth(text: str) -> int:
    """Return the deepest nesting of ``[``/``{`` outside strings (a linear scan, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def decode_json(body: bytes) -> Any:
    """Decode a UTF-8 JSON body strictly; anything else is a 400 that says why."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(400, "request body is not valid JSON (not UTF-8)") from None
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise BadRequest(400, f"request body is not valid JSON (nested deeper than {MAX_DEPTH} levels)")
    try:
        return json.loads(text, parse_int=_bounded_number, parse_float=_bounded_number, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise BadRequest(400, f"request body is not valid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise BadRequest(400, f"request body is not valid JSON ({exc})") from None


@dataclass(frozen=True)
class ChatRequest:
    """A checked ``POST /api/chat`` body."""

    question: str
    """The cleaned question (see ``questions.clean_question``)."""
    thread_id: str | None
    """The conversation to continue; ``None`` starts a new one."""


def parse_chat(body: bytes, settings: Settings) -> ChatRequest:
    """Return the checked request from a JSON body, or raise ``BadRequest``."""
    payload = decode_json(body)
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
    try:
        message.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(422, "'message' is not valid Unicode (unpaired surrogate)") from None
    try:
        question = checked_question(clean_question(message), settings)
    except QuestionError as exc:
        raise BadRequest(422, f"'message' {exc}") from None
    thread_id = payload.get("thread_id")
    if thread_id is not None and not is_thread_id(thread_id):
        raise BadRequest(422, f"'thread_id' must be an id this server issued ({THREAD_ID_FORMAT})")
    return ChatRequest(question=question, thread_id=thread_id)


async def read_chat(request: Request, settings: Settings) -> ChatRequest:
    """Read the bounded body and return the request (see module docstring); the caller checked its type."""
    body = await read_body(request, settings.max_body_bytes, settings.body_timeout_seconds)
    return parse_chat(body, settings)
