"""Read and check a JSON request (``POST /api/chat``, ``/api/feedback``) before any work starts.

Every bad input is a ``BadRequest`` (FastAPI answers it ``{"detail": ...}``) with a 4xx
status and one clear sentence; the graph is never started for it. A route checks the
content type once (``require_json``, its dependency), then reads its body with
``read_json``: the bytes bounded, decoded strictly, then validated by the route's
pydantic model (``bodies``), whose JSON Schema is the body ``/openapi.json`` shows.
In the order checked (the 422s are ``/api/chat``'s; ``/api/feedback``'s are alike):

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
       Cleaning (``same_question.clean_question``) removes invisible characters, applies
       NFKC and collapses whitespace: the graph answers what the reader sees.
=====  =============================================================================

The JSON is decoded by the standard library with the bounds above, then the model
validates the decoded object, strictly (``"1"`` is not ``1``). Not by pydantic's own
parser (``model_validate_json``): it nests 200 levels deep, takes ``NaN`` and numbers
of any length, and refuses an unpaired surrogate as bad JSON (400) where it is a bad
value (422).

Both limits hold: ``max_body_bytes`` bounds what is read off the wire, and
``max_question_chars`` bounds the decoded question, so a question of emoji sent as
JSON ``u``-escapes (12 bytes a character) is judged by its length, not its spelling.
A client that leaves before its body arrived is logged as one INFO line.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, TypeVar, cast

from fastapi import HTTPException
from fastapi.exception_handlers import http_exception_handler
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from askai_graph.settings import Settings

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a body."""
MAX_DIGITS = 100
"""Longest number literal accepted in a body (Python refuses ints past 4,300 digits anyway)."""
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


class BadRequest(HTTPException):
    """A request refused before the graph starts; FastAPI sends it as ``{"detail": message}``."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        """Record the HTTP status, the sentence sent back, and the ``Retry-After`` seconds if any."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        super().__init__(status_code=status, detail=message, headers=headers)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class ClientGone(BadRequest):
    """The client disconnected before its request body arrived: nobody to answer (a 400 nobody reads)."""

    def __init__(self) -> None:
        """Refuse the request nobody waits for."""
        super().__init__(400, "the client left before its request body arrived")


def json_type(value: Any) -> str:
    """Name a decoded JSON value's type the way a client author would."""
    for python_type, name in _JSON_TYPES.items():
        if isinstance(value, python_type):
            return name
    return "a number"


async def require_json(request: Request) -> None:
    """Refuse a request whose body is not ``application/json`` (in UTF-8) with 415: a JSON route's dependency.

    ``async`` although it awaits nothing: FastAPI runs a plain ``def`` dependency in its
    thread pool, a thread hop on every request for a header check.
    """
    check_content_type(request.headers.get("content-type"))


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
    request.state.body_read = True
    return bytes(body)


async def refused(request: Request, exc: Exception) -> Response:
    """Send a ``BadRequest`` as ``{"detail"}``, closing the connection if its body was left unread.

    A refusal before the body is read (too large, too slow, the wrong type, a rate limit)
    leaves its bytes on the connection, where a server reading the next request on it
    would take them for that request's head (a 413 followed by a 431). So the
    connection ends with the refusal, and the client's next request opens a new one.
    """
    response = await http_exception_handler(request, cast(HTTPException, exc))
    declares_body = request.headers.get("content-length", "0").strip() not in ("", "0")
    if (declares_body or "transfer-encoding" in request.headers) and not getattr(request.state, "body_read", False):
        response.headers["Connection"] = "close"
    return response


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


async def read_json(request: Request, model: type[M], *, limit: int, settings: Settings) -> M:
    """Read at most ``limit`` bytes of body and return it validated by ``model`` (see module docstring)."""
    body = await read_body(request, limit, settings.body_timeout_seconds)
    return parse_json(body, model, settings)


def parse_json(body: bytes, model: type[M], settings: Settings) -> M:
    """Return ``body`` decoded and validated by ``model`` (with ``settings`` as context), or raise ``BadRequest``."""
    payload = decode_json(body)
    try:
        return model.model_validate(payload, strict=True, context={"settings": settings})
    except ValidationError as exc:
        raise BadRequest(422, refusal(exc, model)) from None


# Which error a client hears first: the body's type, then a missing field, then an unknown one.
_FIRST = {"model_type": 0, "missing": 1, "extra_forbidden": 2}


def refusal(error: ValidationError, model: type[BaseModel]) -> str:
    """Word the first of a body's validation errors as one sentence naming the field."""
    errors = sorted(error.errors(), key=lambda e: _FIRST.get(e["type"], len(_FIRST)))
    first = errors[0]
    if first["type"] == "model_type":
        example = json.dumps({name: "..." for name, field in model.model_fields.items() if field.is_required()})
        return f"request body must be a JSON object like {example}, not {json_type(first['input'])}"
    if first["type"] == "extra_forbidden":
        unknown = ", ".join(f"'{e['loc'][0]}'" for e in errors if e["type"] == "extra_forbidden")
        return f"unknown field(s) {unknown}: only {_listed(list(model.model_fields))} are accepted"
    return f"'{first['loc'][0]}' {_complaint(first)}"


def _complaint(error: ErrorDetails) -> str:
    """What is wrong with a field's value, completing "'field' ..."."""
    kind = error["type"]
    if kind == "missing":
        return "is required"
    if kind == "string_type":
        return f"must be a string, not {json_type(error['input'])}"
    if kind == "string_unicode":
        return "is not valid Unicode (unpaired surrogate)"
    if kind == "literal_error":
        return f"must be {(error.get('ctx') or {}).get('expected')}"
    if kind == "value_error":  # a field validator's ValueError: its own words
        return str((error.get("ctx") or {}).get("error"))
    return f"is invalid ({error['msg']})"


def _listed(names: list[str]) -> str:
    quoted = [f"'{name}'" for name in names]
    return " and ".join(quoted) if len(quoted) < 3 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
