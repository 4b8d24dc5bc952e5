"""OpenAI-compatible providers: what goes on the wire, chosen from settings (no sockets).

Requests are served in-process by an ``httpx2.MockTransport`` (the transport the OpenAI
SDK runs on), so each test sees the exact JSON body a real server would receive.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from askai_graph import ExtractiveWriter, LexicalCritic, Settings, build_graph, parse_critique
from askai_graph.clients.deadline import AsyncDeadlineTransport, DeadlineTransport
from askai_graph.models.adapter import ChatModelAdapter
from askai_graph.models.providers import (
    SCORE_SCALE,
    chat_model,
    critique_schema,
    default_critic,
    default_writer,
)
from tests.fakes import PASSING, retriever, url

LOCAL = "http://127.0.0.1:9/v1"


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class Recorder:
    """A MockTransport handler answering with scripted replies and recording each request."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies) or ["ok"]
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        return httpx2.Response(200, json=completion(reply))

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(request.content) for request in self.requests]

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self)


def sent(settings: Settings, *, json_mode: bool = False) -> tuple[dict[str, Any], httpx2.Request]:
    recorder = Recorder()
    chat_model("m", settings, json_mode=json_mode, transport=recorder.transport()).invoke("hi")
    return recorder.bodies[0], recorder.requests[0]


def test_openai_gets_max_completion_tokens_only() -> None:
    body, request = sent(Settings(api_key="sk-test", max_tokens=123))
    assert body["max_completion_tokens"] == 123
    assert "max_tokens" not in body  # OpenAI rejects requests setting both
    assert request.url.host == "api.openai.com"


def test_compatible_server_gets_max_tokens_only() -> None:
    body, request = sent(Settings(base_url=LOCAL, max_tokens=123))
    assert body["max_tokens"] == 123
    assert "max_completion_tokens" not in body  # llama.cpp would ignore it
    assert str(request.url) == f"{LOCAL}/chat/completions"


@pytest.mark.parametrize(
    ("param", "present", "absent"),
    [
        ("max_tokens", "max_tokens", "max_completion_tokens"),
        ("max_completion_tokens", "max_completion_tokens", "max_tokens"),
    ],
)
def test_max_tokens_param_overrides_the_guess(param: Any, present: str, absent: str) -> None:
    body, _ = sent(Settings(base_url=LOCAL, max_tokens=50, max_tokens_param=param))
    assert body[present] == 50
    assert absent not in body


def test_api_key_is_sent_as_bearer_token() -> None:
    _, request = sent(Settings(base_url=LOCAL, api_key="secret-key"))
    assert request.headers["authorization"] == "Bearer secret-key"


def test_local_server_needs_no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _, request = sent(Settings(base_url=LOCAL))
    assert request.headers["authorization"] == "Bearer not-needed"


def test_openai_without_any_key_fails_at_build_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(Exception, match="api_key"):
        chat_model("gpt-4.1-mini", Settings())


def test_writer_requests_plain_text_at_the_writer_temperature() -> None:
    body, _ = sent(Settings(base_url=LOCAL, temperature=0.7))
    assert "response_format" not in body
    assert body["temperature"] == 0.7


@pytest.mark.parametrize(
    ("style", "expected_type"),
    [("json_object", "json_object"), ("json_object_schema", "json_object"), ("json_schema", "json_schema")],
)
def test_critic_asks_for_json_in_the_configured_form(style: Any, expected_type: str) -> None:
    body, _ = sent(Settings(base_url=LOCAL, critic_response_format=style), json_mode=True)
    assert body["response_format"]["type"] == expected_type
    assert body["temperature"] == 0.0
    if style == "json_object_schema":  # llama.cpp: json_object plus a schema key
        assert body["response_format"]["schema"] == critique_schema(grammar=True)
    if style == "json_schema":
        assert body["response_format"]["json_schema"]["schema"] == critique_schema()


def test_critic_can_ask_for_plain_text() -> None:
    body, _ = sent(Settings(base_url=LOCAL, critic_response_format="none"), json_mode=True)
    assert "response_format" not in body


def test_critique_schema_requires_every_field() -> None:
    schema = critique_schema()
    assert set(schema["required"]) == {
        "confidence",
        "answer_relevance",
        "intent_alignment",
        "drift_detected",
        "ungrounded_claims",
        "gaps",
    }
    assert schema["additionalProperties"] is False
    assert schema["properties"]["confidence"] == {"maximum": 1, "minimum": 0, "type": "number"}


@pytest.mark.parametrize("score", SCORE_SCALE)
def test_every_reply_the_grammar_schema_allows_is_a_valid_critique(score: float) -> None:
    schema = critique_schema(grammar=True)
    assert schema["properties"]["confidence"] == {"enum": SCORE_SCALE}
    longest = ["x" * schema["properties"]["gaps"]["items"]["maxLength"]] * schema["properties"]["gaps"]["maxItems"]
    reply = {
        "confidence": score,
        "answer_relevance": score,
        "intent_alignment": score,
        "drift_detected": score > 0.5,
        "ungrounded_claims": longest,
        "gaps": [],
    }
    assert parse_critique(json.dumps(reply)).confidence == score


def test_offline_models_are_the_default(settings: Settings) -> None:
    assert isinstance(default_writer(settings), ExtractiveWriter)
    assert isinstance(default_critic(settings), LexicalCritic)


def test_askai_model_env_switches_both_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MODEL", "llama3.2")
    monkeypatch.setenv("ASKAI_BASE_URL", "http://127.0.0.1:11434/v1")
    settings = Settings()
    writer, reviewer = default_writer(settings), default_critic(settings)
    assert isinstance(writer, ChatModelAdapter) and isinstance(reviewer, ChatModelAdapter)
    assert writer.model.model_name == reviewer.model.model_name == "llama3.2"  # type: ignore[attr-defined]


def test_role_models_override_the_shared_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_BASE_URL", LOCAL)
    monkeypatch.setenv("ASKAI_CRITIC_MODEL", "judge")
    settings = Settings()
    assert isinstance(default_writer(settings), ExtractiveWriter)  # no writer model: still offline
    assert default_critic(settings).model.model_name == "judge"  # type: ignore[attr-defined]


def test_graph_runs_on_an_openai_compatible_writer_and_critic(settings: Settings) -> None:
    draft = f"Retrieval is covered in [Page 1]({url(1)})."
    writer = Recorder(draft)
    critic = Recorder(PASSING)
    config = settings.model_copy(update={"base_url": LOCAL})
    graph = build_graph(
        writer=chat_model("w", config, transport=writer.transport()),
        critic=chat_model("c", config, json_mode=True, transport=critic.transport()),
        retriever=retriever(1, 2),
        settings=settings,
    )
    final = graph.invoke({"question": "How does retrieval work?"})
    assert final["outcome"] == "accepted"
    assert [source.url for source in final["sources"]] == [url(1)]  # post 2 was retrieved, not cited: no card
    assert "response_format" not in writer.bodies[0] and "response_format" in critic.bodies[0]
    assert "<source index=\"1\">" in writer.bodies[0]["messages"][1]["content"]


def trickle(chunks: int, pause: float) -> Iterator[bytes]:
    for _ in range(chunks):
        time.sleep(pause)
        yield b" "


def test_deadline_ends_a_body_that_never_goes_silent() -> None:
    # Each byte resets a read timeout; only a total deadline ends this response.
    inner = httpx2.MockTransport(lambda request: httpx2.Response(200, content=trickle(1000, 0.02)))
    with httpx2.Client(transport=DeadlineTransport(0.3, inner)) as client:
        started = time.monotonic()
        with pytest.raises(httpx2.ReadTimeout, match="total time budget"):
            client.get("http://model.test/")
    # A timing behaviour: without the deadline the body takes 20 s; 5 s is the margin a
    # loaded 2-core machine needs over the 0.3 s budget.
    assert time.monotonic() - started < 5.0


def test_deadline_leaves_a_prompt_reply_alone() -> None:
    inner = httpx2.MockTransport(lambda request: httpx2.Response(200, content=trickle(3, 0.01)))
    with httpx2.Client(transport=DeadlineTransport(5.0, inner)) as client:
        assert client.get("http://model.test/").content == b"   "


def test_async_requests_are_bounded_too() -> None:
    async def slow_body() -> Any:
        for _ in range(1000):
            await asyncio.sleep(0.02)
            yield b" "

    async def main() -> None:
        inner = httpx2.MockTransport(lambda request: httpx2.Response(200, content=slow_body()))
        async with httpx2.AsyncClient(transport=AsyncDeadlineTransport(0.3, inner)) as client:
            with pytest.raises(httpx2.ReadTimeout):
                await client.get("http://model.test/")

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 5.0  # 20 s unbounded; the margin as above


@pytest.mark.parametrize(
    ("header", "value", "kept"),
    [
        ("retry-after", "2", True),
        ("retry-after", "60", False),
        ("retry-after-ms", "500", True),
        ("retry-after-ms", "90000", False),
        ("retry-after", "Wed, 21 Oct 2099 07:28:00 GMT", False),
    ],
)
def test_long_retry_after_is_dropped(header: str, value: str, kept: bool) -> None:
    inner = httpx2.MockTransport(lambda request: httpx2.Response(429, headers={header: value}))
    with httpx2.Client(transport=DeadlineTransport(5.0, inner)) as client:
        assert (header in client.get("http://model.test/").headers) == kept
