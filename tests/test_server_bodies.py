"""Request bodies are pydantic models: they validate the body, word the 422, and are the OpenAPI request schema."""

from __future__ import annotations

from typing import Any

import pytest

from askai_graph import Settings
from askai_graph.server.guards.request import BadRequest, parse_json
from askai_graph.server.routes.bodies import ChatBody, FeedbackBody
from tests.fakes import FakeRetriever

RUN_ID = "6F1C1C9E-3D1A-4B7E-9A43-2F1D3C4B5A69"


def refused(body: bytes, model: Any) -> tuple[int, str]:
    with pytest.raises(BadRequest) as refusal:
        parse_json(body, model, Settings(max_question_chars=20, max_feedback_chars=10))
    return refusal.value.status, refusal.value.message


def test_each_json_route_publishes_its_body_model_as_the_request_schema(settings: Settings) -> None:
    from askai_graph import build_graph
    from askai_graph.server import create_app

    document = create_app(build_graph(retriever=FakeRetriever(), settings=settings), settings).openapi()
    for path, model in [("/api/chat", ChatBody), ("/api/feedback", FeedbackBody)]:
        body = document["paths"][path]["post"]["requestBody"]
        schema = body["content"]["application/json"]["schema"]
        assert body["required"] is True and schema["title"] == model.__name__
        assert set(schema["properties"]) == set(model.model_fields) and schema["additionalProperties"] is False
        assert schema["required"] == [name for name, field in model.model_fields.items() if field.is_required()]


def test_a_valid_body_comes_back_cleaned() -> None:
    settings = Settings()
    chat = parse_json(b'{"message": "  What\\u200b is  BM25? "}', ChatBody, settings)
    rating = parse_json(f'{{"run_id": "{RUN_ID}", "rating": "up", "comment": "   "}}'.encode(), FeedbackBody, settings)
    assert (chat.message, chat.thread_id) == ("What is BM25?", None)
    asked = parse_json(b'{"message": "pip", "search_id": "' + b"a1" * 16 + b'"}', ChatBody, settings)
    assert asked.search_id == "a1" * 16
    assert (rating.run_id, rating.rating, rating.comment) == (RUN_ID.lower(), "up", None)


@pytest.mark.parametrize(
    ("body", "model", "detail"),
    [
        (b'{"question": "hi", "x": 1}', ChatBody, "'message' is required"),
        (b'{"message": 1, "x": 1}', ChatBody,
         "unknown field(s) 'x': only 'message', 'thread_id', 'thread_token', 'version', 'locale' and 'search_id' are "
         "accepted"),
        (b'{"rating": "up", "x": 1, "y": 2}', FeedbackBody, "'run_id' is required"),
        (
            f'{{"run_id": "{RUN_ID}", "rating": "up", "x": 1, "y": 2}}'.encode(),
            FeedbackBody,
            "unknown field(s) 'x', 'y': only 'run_id', 'rating' and 'comment' are accepted",
        ),
        (
            b'"hi"',
            FeedbackBody,
            'request body must be a JSON object like {"run_id": "...", "rating": "..."}, not a string',
        ),
        (f'{{"run_id": "{RUN_ID}", "rating": 1}}'.encode(), FeedbackBody, "'rating' must be 'up' or 'down'"),
        (b'{"message": "x", "thread_id": 42}', ChatBody, "'thread_id' must be an id this server issued"),
        (b'{"message": "x", "search_id": "ABC"}', ChatBody, "'search_id' must be the search_id of a GET /api/search"),
        (b'{"message": "x", "search_id": 7}', ChatBody, "'search_id' must be the search_id of a GET /api/search"),
        (b'{"message": "' + b"x" * 21 + b'"}', ChatBody, "'message' is 21 characters; the limit is 20"),
        (
            f'{{"run_id": "{RUN_ID}", "rating": "up", "comment": "\\udc00"}}'.encode(),
            FeedbackBody,
            "'comment' is not valid Unicode (unpaired surrogate)",
        ),
        (
            f'{{"run_id": "{RUN_ID}", "rating": "up", "comment": "{"y" * 11}"}}'.encode(),
            FeedbackBody,
            "'comment' is 11 characters; the limit is 10",
        ),
    ],
    ids=["missing-before-unknown", "unknown-before-type", "feedback-missing", "unknown-listed", "not-an-object",
         "rating-not-a-string", "thread-id-a-number", "search-id-not-hex", "search-id-a-number", "question-too-long",
         "comment-surrogate", "comment-too-long"],
)  # fmt: skip
def test_the_first_problem_of_a_body_is_one_422_sentence_naming_the_field(body: bytes, model: Any, detail: str) -> None:
    status, message = refused(body, model)
    assert status == 422 and message.startswith(detail)


def test_validating_without_the_settings_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="context"):
        ChatBody.model_validate({"message": "hi"})
