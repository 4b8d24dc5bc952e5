"""What ``/openapi.json`` says beyond the routes' signatures: request bodies, refusals, events.

The request bodies are the JSON Schemas of the models in ``bodies`` (``request_body``).

The 200 response of ``POST /api/chat`` is ``text/event-stream``; its schema describes one event, as OpenAPI
3.1 tools (schemathesis) read a stream: ``event``, ``id`` and ``data``, whose JSON text
follows ``contentSchema``, one of ``components.schemas`` (``StepEvent``, ``TokenEvent``,
``SourcesEvent``, ``DoneEvent``, ``ErrorEvent``). Every refusal is a JSON
``{"detail"}`` with its status: 400, 404, 408, 409, 413, 415, 422, 429 and 503 (the last
two with ``Retry-After``).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

from askai_graph.retrieval.search import MAX_RESULTS

_DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
_RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "string"}}}
_GATE = {"type": "string", "enum": ["passed", "failed", "skipped"]}


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """Return the OpenAPI ``requestBody`` of a JSON body that ``model`` validates: its JSON Schema.

    Routes read their body themselves (bounded, ``request.read_json``), so FastAPI does not
    see a body parameter; this declares it (``openapi_extra``) from the same model.
    """
    return {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}


EVENT_SCHEMAS: dict[str, dict[str, Any]] = {
    "StepEvent": {
        "description": "event: step — a stage completed (short summary only).",
        "type": "object",
        "properties": {"node": {"type": "string"}, "attempt": {"type": "integer", "minimum": 0}},
        "required": ["node", "attempt"],
    },
    "TokenEvent": {
        "description": "event: token — a chunk of the final answer; joined, the tokens are the answer.",
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    "SourcesEvent": {
        "description": "event: sources — source cards, only when the Source Gate passed. Titles are plain text; "
        "each card carries the passage the answer rests on.",
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "url": {"type": "string", "format": "uri"},
                "section": {"type": "string", "description": "The heading of the quoted section ('' for the opening)."},
                "anchor_url": {
                    "type": "string",
                    "format": "uri",
                    "description": "url with the section's anchor, or a #:~:text= fragment of the quote.",
                },
                "quote": {"type": "string", "description": "Verbatim from the retrieved page, at most ~200 chars."},
            },
            "required": ["title", "url", "section", "anchor_url", "quote"],
        },
    },
    "DoneEvent": {
        "description": "event: done — always last on success.",
        "type": "object",
        "properties": {
            "outcome": {"type": "string", "enum": ["accepted", "accepted_early", "degraded", "fallback"]},
            "attempts": {"type": "integer", "minimum": 0},
            "cached": {"type": "boolean"},
            "gates": {"type": "object", "additionalProperties": _GATE},
            "thread_id": {"type": "string", "description": "The conversation; send it back to ask a follow-up."},
            "thread_token": {
                "type": "string",
                "description": "The conversation's secret, issued with it (the same on every answer of the thread): "
                "send it back with thread_id; keep it as private as a session cookie.",
            },
            "run_id": {"type": "string", "description": "This answer's id."},
        },
        "required": ["outcome", "attempts", "cached", "gates"],
    },
    "ErrorEvent": {
        "description": "event: error — an internal failure; the stream then ends.",
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    },
}


_EVENTS = [("step", "StepEvent"), ("token", "TokenEvent"), ("sources", "SourcesEvent"), ("done", "DoneEvent"),
           ("error", "ErrorEvent")]  # fmt: skip


def _sse(name: str, schema: str) -> dict[str, Any]:
    """One SSE event as OpenAPI 3.1 tools read it: its fields, ``data`` holding JSON text."""
    return {
        "type": "object",
        "properties": {
            "event": {"const": name},
            "id": {"type": "string", "pattern": "^[1-9][0-9]*$"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": f"#/components/schemas/{schema}"},
            },
        },
        "required": ["event", "id", "data"],
    }


def _refusal(description: str, *, retry: bool = False) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": _DETAIL}}}
    if retry:
        response["headers"] = _RETRY_AFTER
    return response


CHAT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: step*, token*, sources?, then done (or a single error). The schema "
        "describes one event (event name, id, and its data: JSON text whose schema is contentSchema).",
        "content": {"text/event-stream": {"schema": {"oneOf": [_sse(name, schema) for name, schema in _EVENTS]}}},
    },
    400: _refusal("The body is not UTF-8 JSON (or is nested too deeply, or holds a huge number)."),
    408: _refusal("The body did not arrive within body_timeout_seconds."),
    413: _refusal("The body is larger than max_body_bytes."),
    404: _refusal(
        "thread_id names no conversation this server knows (or it expired), or thread_token is missing or not its own."
    ),
    409: _refusal("thread_id names a conversation whose previous answer is still streaming."),
    415: _refusal("Content-Type is not application/json (UTF-8)."),
    422: _refusal("The JSON is not {\"message\": non-empty string within max_question_chars}, or has other fields."),
    429: _refusal("This client asked more than rate_limit questions.", retry=True),
    503: _refusal("max_streams answers are streaming already.", retry=True),
}


FEEDBACK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The rating is stored.",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {"run_id": {"type": "string"}, "rating": {"type": "string", "enum": ["up", "down"]}},
                    "required": ["run_id", "rating"],
                }
            }
        },
    },
    400: _refusal("The body is not valid JSON."),
    404: _refusal("No answer with that run_id is logged (or the run log is off)."),
    408: _refusal("The body did not arrive in time."),
    413: _refusal("The body is too large."),
    415: _refusal("Content-Type is not application/json."),
    422: _refusal("A missing, unknown or invalid field."),
    429: _refusal("Too much feedback from this client address.", retry=True),
    503: _refusal("The run log's database is unavailable for now; try again after Retry-After seconds.", retry=True),
}


_SEARCH_SECTION = {
    "type": "object",
    "properties": {
        "heading": {"type": "string", "description": "The heading as the page shows it ('' for its opening)."},
        "url": {"type": "string", "format": "uri", "description": "The link to the section on the real page."},
        "snippet": {"type": "string", "description": "Plain text around the first match (never HTML)."},
        "highlights": {
            "type": "array",
            "description": "[start, end) of each matched word in snippet, in UTF-16 code units.",
            "items": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2},
        },
    },
    "required": ["heading", "url", "snippet", "highlights"],
}
SEARCH_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The matching pages, best first, each with its matching sections; none endorsed.",
        "headers": {"ETag": {"schema": {"type": "string"}}, "Cache-Control": {"schema": {"type": "string"}}},
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "search_id": {
                            "type": "string",
                            "pattern": r"^[0-9a-f]{32}$",
                            "description": "This search, as the run log keeps it (present when the run log is on): "
                            "a question asked from it sends it as POST /api/chat's search_id.",
                        },
                        "results": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "title": {"type": "string"},
                                    "url": {"type": "string", "format": "uri"},
                                    "endorsed": {"type": "boolean", "const": False},
                                    "sections": {"type": "array", "items": _SEARCH_SECTION},
                                },
                                "required": ["title", "url", "endorsed", "sections"],
                            },
                        },
                    },
                    "required": ["query", "results"],
                }
            }
        },
    },
    304: {"description": "If-None-Match names this search's ETag: nothing changed."},
    404: _refusal("This server answers from a graph it did not build: it has no pages to search."),
    422: _refusal("q is missing, empty or longer than max_question_chars; limit is not 1 to 20; a bad version/locale."),
    429: _refusal("This client searched more than search_per_minute times in a minute.", retry=True),
}


SEARCH_CLICK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The click is logged (queued for the run log).",
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": {"recorded": {"type": "boolean"}}, "required": ["recorded"]}
            }
        },
    },
    400: _refusal("The body is not valid JSON."),
    404: _refusal("The url is not one of the site's pages; the run log is off, or this server has no pages."),
    408: _refusal("The body did not arrive in time."),
    413: _refusal("The body is too large."),
    415: _refusal("Content-Type is not application/json."),
    422: _refusal("A missing, unknown or invalid field."),
    429: _refusal("This client searched more than search_per_minute times in a minute.", retry=True),
}


_SEGMENT_SCHEMA = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"}
QUERY_PARAMETERS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("/api/search", "get"): {
        "q": {"required": True, "schema": {"type": "string", "minLength": 1, "pattern": r"\S"}},
        "limit": {"schema": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS}},
        "version": {"schema": _SEGMENT_SCHEMA},
        "locale": {"schema": _SEGMENT_SCHEMA},
    },
}
"""What a query string must hold, where the route reads it leniently to refuse it with its own sentence.

The routes take these as optional text so that a missing or malformed value gets the
route's own one-line message (not the framework's list of errors); the document says what a
client must send.
"""


def describe_events(app: FastAPI) -> None:
    """Add the event payload schemas to the app's OpenAPI document, and each query string's rules."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            schema.setdefault("components", {}).setdefault("schemas", {}).update(EVENT_SCHEMAS)
            for (path, method), rules in QUERY_PARAMETERS.items():
                operation = schema.get("paths", {}).get(path, {}).get(method, {})
                for parameter in operation.get("parameters", []):
                    if parameter.get("name") in rules:
                        parameter.update(rules[parameter["name"]])
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
