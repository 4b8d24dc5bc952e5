"""Provider faults against a real, misbehaving HTTP server on 127.0.0.1.

Each fault (refused connection, a server that never answers, 429, 500, an empty or
garbage or truncated reply, a stream that hangs while sending keep-alive pings) must end
as a gate failure and then fallback (Writer fault) or degradation (Critic fault), within
a time bounded by the settings, and never expose sources.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from askai_graph import ExtractiveWriter, LexicalCritic, Settings, build_graph
from askai_graph.models.local import free_port
from askai_graph.models.providers import chat_model
from askai_graph.state import STATE_KEYS
from tests.fakes import PASSING
from tests.live import LiveServer, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How does BM25 rank documents?"
FAULTS = ["refused", "stall", "429", "500", "empty_body", "empty_reply", "garbage", "truncated", "hung"]


def completion(content: str) -> bytes:
    return json.dumps(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }
    ).encode()


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(data).encode() + b"\n\n"


class MisbehavingServer:
    """An HTTP/1.1 server on 127.0.0.1 that answers every request the way ``fault`` says.

    ``fault`` is one of ``FAULTS``, or ``reply`` (a correct answer with ``content``);
    the first ``failures`` requests get HTTP 500 first (a flaky provider).
    """

    def __init__(self, fault: str, content: str = "", failures: int = 0, retry_after: int | None = None) -> None:
        self.fault, self.content, self.failures, self.retry_after = fault, content, failures, retry_after
        self.requests: list[dict[str, Any]] = []
        self.port = free_port()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> MisbehavingServer:
        if self.fault != "refused":  # nothing listens on the port: connection refused
            self._thread.start()
            assert self._ready.wait(5)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)  # type: ignore[has-type]
            self._thread.join(5)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self._ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            headers = dict(line.lower().split(b": ", 1) for line in head.split(b"\r\n")[1:] if b": " in line)
            length = int(headers.get(b"content-length", 0))
            body = json.loads(await reader.readexactly(length)) if length else {}
            self.requests.append(body)
            await self._answer(body, writer)
        except (asyncio.CancelledError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _answer(self, body: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        fault = "500" if len(self.requests) <= self.failures else self.fault
        stream = bool(body.get("stream"))
        if fault == "stall":
            await asyncio.sleep(3600)
        elif fault in ("429", "500"):
            error = json.dumps({"error": {"message": f"injected {fault}", "type": "server_error"}}).encode()
            self._respond(writer, int(fault), error, retry_after=self.retry_after)
        elif fault == "empty_body":
            self._respond(writer, 200, b"")
        elif fault == "garbage":
            self._respond(writer, 200, b"<html>502 Bad Gateway</html>")
        elif fault == "truncated":  # promises more bytes than it sends, then hangs up
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n")
            writer.write(completion("cut")[:40])
        elif fault == "hung":  # starts answering, then sends only keep-alive bytes, forever
            await self._hang(writer, stream)
        elif stream:
            text = "" if fault == "empty_reply" else self.content
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            writer.write(chunk({"role": "assistant", "content": ""}))
            for word in text.split(" "):
                writer.write(chunk({"content": word + " "}))
            writer.write(chunk({}, "stop") + b"data: [DONE]\n\n")
        else:
            self._respond(writer, 200, completion("" if fault == "empty_reply" else self.content))
        await writer.drain()

    async def _hang(self, writer: asyncio.StreamWriter, stream: bool) -> None:
        if stream:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            writer.write(chunk({"role": "assistant", "content": "Partial"}))
        else:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        while True:
            writer.write(b": ping\n\n" if stream else b" ")
            await writer.drain()
            await asyncio.sleep(0.05)

    @staticmethod
    def _respond(writer: asyncio.StreamWriter, status: int, payload: bytes, retry_after: int | None = None) -> None:
        extra = f"Retry-After: {retry_after}\r\n" if retry_after is not None else ""
        writer.write(
            f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            f"{extra}Connection: close\r\n\r\n".encode()
            + payload
        )


@pytest.fixture
def fast(settings: Settings) -> Settings:
    """Short timeouts, one retry and one draft keep each fault to about a second."""
    return settings.model_copy(update={"timeout": 0.5, "max_retries": 1, "max_attempts": 1})


def budget(settings: Settings) -> float:
    """Worst case for one run: 2 model calls per draft, each retried, each attempt bounded.

    An attempt ends after ``timeout`` of silence or ``timeout`` in total (the latter is
    only checked when bytes arrive, hence 2x); between attempts the OpenAI SDK backs off
    0.5 s, 1 s, 2 s... up to 8 s (or a server's Retry-After).
    """
    backoff = sum(min(0.5 * 2**retry, 8.0) for retry in range(settings.max_retries))
    per_call = (settings.max_retries + 1) * 2 * settings.timeout + backoff
    return 2 * settings.max_attempts * per_call + 2.0  # + BM25 start-up and slack


def run(graph: Any, mode: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    if mode == "invoke":
        final = graph.invoke({"question": QUESTION}, output_keys=STATE_KEYS)
    elif mode == "stream":  # sync streaming: no chunk timeout, only the transport's deadline
        chunks = graph.stream({"question": QUESTION}, stream_mode=["messages", "values"], output_keys=STATE_KEYS)
        for kind, data in chunks:
            if kind == "values":
                final = data
    else:  # astream with messages: the model streams its reply (SSE)

        async def stream() -> dict[str, Any]:
            last: dict[str, Any] = {}
            async for kind, data in graph.astream(
                {"question": QUESTION}, stream_mode=["messages", "values"], output_keys=STATE_KEYS
            ):
                if kind == "values":
                    last = data
            return last

        final = asyncio.run(stream())
    return final, time.monotonic() - started


@pytest.fixture(params=["invoke", "astream"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def report() -> Iterator[list[str]]:
    lines: list[str] = []
    yield lines
    print("\n" + "\n".join(lines))


@pytest.mark.parametrize("fault", FAULTS)
def test_writer_fault_ends_in_fallback_without_sources(
    fault: str, mode: str, fast: Settings, report: list[str]
) -> None:
    with MisbehavingServer(fault) as server:
        config = fast.model_copy(update={"base_url": server.base_url})
        graph = build_graph(writer=chat_model("m", config), critic=LexicalCritic(), settings=fast)
        final, seconds = run(graph, mode)
    report.append(f"writer {fault} ({mode}): {final['outcome']} in {seconds:.2f}s (budget {budget(fast):.1f}s)")
    assert final["outcome"] == "fallback"
    assert final["sources"] == []
    assert final["gates"]["validation"] == "failed"
    assert final["writer_error"] or fault == "empty_reply"
    assert seconds < budget(fast)
    if fault != "refused":
        assert len(server.requests) <= fast.max_retries + 1


@pytest.mark.parametrize("fault", FAULTS)
def test_critic_fault_ends_in_degradation_without_sources(
    fault: str, mode: str, fast: Settings, report: list[str]
) -> None:
    with MisbehavingServer(fault) as server:
        config = fast.model_copy(update={"base_url": server.base_url})
        graph = build_graph(writer=ExtractiveWriter(), critic=chat_model("m", config, json_mode=True), settings=fast)
        final, seconds = run(graph, mode)
    report.append(f"critic {fault} ({mode}): {final['outcome']} in {seconds:.2f}s (budget {budget(fast):.1f}s)")
    assert final["outcome"] == "degraded"
    assert final["sources"] == []
    assert final["gates"]["critic"] == "failed"
    assert [failure.code for failure in final["review_failures"]] in (["provider_error"], ["malformed_review"])
    assert seconds < budget(fast)


@pytest.mark.parametrize("role", ["writer", "critic"])
def test_hung_stream_with_keepalive_pings_ends_in_sync_streaming(role: str, fast: Settings, report: list[str]) -> None:
    with MisbehavingServer("hung") as server:
        model = chat_model("m", fast.model_copy(update={"base_url": server.base_url}), json_mode=role == "critic")
        graph = build_graph(
            writer=model if role == "writer" else ExtractiveWriter(),
            critic=model if role == "critic" else LexicalCritic(),
            settings=fast,
        )
        final, seconds = run(graph, "stream")
    report.append(f"{role} hung (stream): {final['outcome']} in {seconds:.2f}s (budget {budget(fast):.1f}s)")
    assert final["outcome"] == ("fallback" if role == "writer" else "degraded")
    assert final["sources"] == []
    assert seconds < budget(fast)


@pytest.mark.parametrize(
    "content",
    ['{"confidence": 0.9, "answer_relevance": 0.9, "intent_al', "Looks good to me!", '{"confidence": "0.9"}'],
    ids=["truncated-json", "prose", "wrong-type"],
)
def test_critic_reply_that_is_not_critique_json_is_a_malformed_review(content: str, fast: Settings) -> None:
    with MisbehavingServer("reply", content=content) as server:
        config = fast.model_copy(update={"base_url": server.base_url})
        graph = build_graph(writer=ExtractiveWriter(), critic=chat_model("m", config, json_mode=True), settings=fast)
        final = graph.invoke({"question": QUESTION}, output_keys=STATE_KEYS)
    assert final["outcome"] == "degraded"
    assert [failure.code for failure in final["review_failures"]] == ["malformed_review"]
    assert final["sources"] == []


def test_retries_are_bounded_by_settings_across_attempts(fast: Settings, report: list[str]) -> None:
    config = fast.model_copy(update={"max_attempts": 2, "max_retries": 2})
    with MisbehavingServer("500") as server:
        graph = build_graph(
            writer=chat_model("m", config.model_copy(update={"base_url": server.base_url})),
            critic=LexicalCritic(),
            settings=config,
        )
        final, seconds = run(graph, "invoke")
    report.append(f"writer 500 x {len(server.requests)} requests, 2 drafts: {seconds:.2f}s")
    assert final["outcome"] == "fallback" and final["attempts"] == 2
    assert len(server.requests) == config.max_attempts * (config.max_retries + 1)
    assert seconds < budget(config)


def test_a_long_retry_after_does_not_park_the_reader(fast: Settings, report: list[str]) -> None:
    with MisbehavingServer("429", retry_after=90) as server:  # the SDK alone would wait 90 s
        config = fast.model_copy(update={"base_url": server.base_url})
        graph = build_graph(writer=chat_model("m", config), critic=LexicalCritic(), settings=fast)
        final, seconds = run(graph, "invoke")
    report.append(f"writer 429 with Retry-After: 90: {final['outcome']} in {seconds:.2f}s")
    assert len(server.requests) == fast.max_retries + 1
    assert final["outcome"] == "fallback"
    assert seconds < budget(fast)


def test_a_flaky_provider_recovers_on_retry(fast: Settings) -> None:
    with MisbehavingServer("reply", content=PASSING, failures=1) as server:
        config = fast.model_copy(update={"base_url": server.base_url, "timeout": 5.0})
        graph = build_graph(writer=ExtractiveWriter(), critic=chat_model("m", config, json_mode=True), settings=fast)
        final = graph.invoke({"question": QUESTION}, output_keys=STATE_KEYS)
    assert len(server.requests) == 2
    assert final["outcome"] == "accepted"
    assert final["sources"]


@pytest.mark.parametrize("fault", ["hung", "stall", "500"])
def test_a_provider_fault_never_hangs_the_sse_stream(fault: str, fast: Settings, report: list[str]) -> None:
    from askai_graph.server import create_app

    with MisbehavingServer(fault) as provider:
        model = chat_model("m", fast.model_copy(update={"base_url": provider.base_url}))
        graph = build_graph(writer=model, critic=LexicalCritic(), settings=fast)
        with LiveServer(create_app(graph, fast)) as base:
            started = time.monotonic()
            events = sse_events(base, QUESTION, timeout=budget(fast))
            seconds = time.monotonic() - started
    report.append(f"SSE with writer {fault}: {[name for name, _, _ in events]} in {seconds:.2f}s")
    assert events[-1][0] == "done" and events[-1][1]["outcome"] == "fallback"
    assert "sources" not in [name for name, _, _ in events]
    assert seconds < budget(fast)
