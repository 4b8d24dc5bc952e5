"""``askai serve --graph-url``: the graph on a LangGraph Server (a real ``langgraph dev``).

The SSE contract itself runs over both hosts in ``test_server_contract.py``, and the
remote disconnect in ``test_server_disconnect.py``. Here: the command line, threads
mapped to the server's, and what a failing server does to a stream.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_sync_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.server.scaleout.remote import RemoteAskGraph, server_thread_id
from askai_graph.stores.thread_tokens import checkpoint_thread
from tests.langgraph_server import remote_live_server
from tests.live import AskaiServe, LiveServer, free_port, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ASKAI = [sys.executable, "-m", "askai_graph"]
QUESTION = "What is BM25?"


def chat(base: str, message: str, thread: dict[str, Any] | None = None, timeout: float = 30) -> httpx.Response:
    """Ask ``message``, on the thread of an earlier ``done`` if given (its id and token)."""
    owned = {key: thread[key] for key in ("thread_id", "thread_token")} if thread else {}
    return httpx.post(f"{base}/api/chat", json={"message": message, **owned}, timeout=timeout)


def on_server(done: dict[str, Any]) -> str:
    """The LangGraph Server thread of the askai thread ``done`` names (its checkpoint key, mapped)."""
    return server_thread_id(checkpoint_thread(done["thread_id"], done["thread_token"]), "ask_ai")


def events_of(response: httpx.Response) -> list[tuple[str, Any]]:
    """Parse a buffered SSE body into ``(event, data)`` pairs."""
    parsed = []
    for block in response.text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            parsed.append((fields["event"], json.loads(fields["data"])))
    return parsed


@pytest.fixture(scope="module")
def served(langgraph_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``askai serve --graph-url`` (the repo's ``ask_ai`` graph on ``langgraph dev``) as a process."""
    log = tmp_path_factory.mktemp("served") / "askai-serve.log"
    with AskaiServe({"ASKAI_RATE_LIMIT": ""}, log, "--graph-url", langgraph_server) as base:
        yield base


def test_serve_with_a_graph_url_answers_from_the_langgraph_server(served: str, langgraph_server: str) -> None:
    assert httpx.get(f"{served}/healthz").json() == {
        "status": "ok",
        "graph_url": langgraph_server,
        "graph_id": "ask_ai",
    }
    events = events_of(chat(served, QUESTION))
    done = events[-1][1]
    assert [name for name, _ in events][0] == "step" and events[-1][0] == "done"
    assert (done["outcome"], done["attempts"], done["cached"]) == ("accepted", 1, False)
    # The run happened on the server, on the thread the reader's id maps to.
    with get_sync_client(url=langgraph_server) as client:
        (run,) = client.runs.list(on_server(done))
    assert run["status"] == "success" and run["metadata"]["askai_run_id"] == done["run_id"]


def test_a_follow_up_continues_the_thread_on_the_langgraph_server(served: str, langgraph_server: str) -> None:
    first = events_of(chat(served, "What is BM25 ranking?"))[-1][1]
    follow_up = events_of(chat(served, "How do I tune its parameters?", first))
    steps = [data for name, data in follow_up if name == "step"]
    assert follow_up[-1][1]["thread_id"] == first["thread_id"]
    assert steps[0] == {"node": "research", "attempt": 1, "results": steps[0]["results"], "rewritten": True}
    with get_sync_client(url=langgraph_server) as client:
        state = client.threads.get_state(on_server(first))
    assert [turn["question"] for turn in state["values"]["history"]] == [
        "What is BM25 ranking?",
        "How do I tune its parameters?",
    ]


def test_a_cache_hit_is_recorded_in_the_remote_thread(served: str, langgraph_server: str) -> None:
    question = "What is semantic caching?"
    asked = events_of(chat(served, question))
    hit = events_of(chat(served, question))[-1][1]
    assert hit["cached"] is True
    with get_sync_client(url=langgraph_server) as client:
        state = client.threads.get_state(on_server(hit))
    assert [turn["question"] for turn in state["values"]["history"]] == [question]
    assert state["values"]["sources"] and [card["url"] for card in state["values"]["sources"]] == [
        card["url"] for name, data in asked if name == "sources" for card in data
    ]


def test_an_unknown_thread_is_a_404(served: str) -> None:
    response = chat(served, QUESTION, {"thread_id": "0b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d", "thread_token": "x" * 43})
    assert response.status_code == 404 and "unknown" in response.json()["detail"]


def test_serve_with_an_unreachable_graph_url_is_one_line_and_exit_1() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = subprocess.run([*ASKAI, "serve", "--port", "0", "--graph-url", url], capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.startswith(f"askai: error: cannot reach the LangGraph Server at {url}")
    assert len(result.stderr.strip().splitlines()) == 1 and "serving" not in result.stdout


def test_serve_with_a_graph_id_the_server_lacks_is_one_line_and_exit_1(langgraph_server: str) -> None:
    command = [*ASKAI, "serve", "--port", "0", "--graph-url", langgraph_server, "--graph-id", "nope"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"askai: error: the LangGraph Server at {langgraph_server} has no graph 'nope' (it has: ask_ai, scenario)"
    )


# --- a failing server: the stream ends, it never hangs --------------------------------


def test_a_server_that_went_down_ends_the_stream_with_an_error_event(settings: Settings) -> None:
    graph = RemoteAskGraph(f"http://127.0.0.1:{free_port()}")
    with remote_live_server(create_app(graph, settings), graph) as base:
        events = sse_events(base, QUESTION)
    assert [name for name, _, _ in events] == ["error"]
    assert events[0][1] == {"message": "Internal error while answering; please try again."}


def test_a_server_down_refuses_a_follow_up_with_503(settings: Settings) -> None:
    graph = RemoteAskGraph(f"http://127.0.0.1:{free_port()}")
    with remote_live_server(create_app(graph, settings), graph) as base:
        response = chat(base, QUESTION, {"thread_id": "0b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d", "thread_token": "x" * 43})
    assert response.status_code == 503 and response.headers["retry-after"] == str(settings.retry_after_seconds)


def failing_server(handler: Any) -> LiveServer:
    """A stand-in LangGraph Server whose every endpoint is ``handler``."""

    async def endpoint(request: Request) -> Response:
        response: Response = await handler(request)
        return response

    return LiveServer(Starlette(routes=[Route("/{path:path}", endpoint, methods=["GET", "POST"])]))


def test_a_5xx_from_the_server_ends_the_stream_with_an_error_event(settings: Settings) -> None:
    async def broken(request: Request) -> Response:
        return JSONResponse({"detail": "boom"}, status_code=500)

    with failing_server(broken) as remote_url:
        graph = RemoteAskGraph(remote_url)
        with remote_live_server(create_app(graph, settings), graph) as base:
            events = sse_events(base, QUESTION)
    assert [name for name, _, _ in events] == ["error"]


def test_a_server_that_stops_answering_ends_at_the_deadline_as_a_fallback(settings: Settings) -> None:
    release = asyncio.Event()

    async def hung(request: Request) -> Response:
        async def nothing() -> AsyncIterator[bytes]:
            await release.wait()  # never set: the run streams nothing, ever
            yield b""

        return StreamingResponse(nothing(), media_type="text/event-stream")

    short = settings.model_copy(update={"request_timeout_seconds": 1.0})
    with failing_server(hung) as remote_url:
        graph = RemoteAskGraph(remote_url)
        with remote_live_server(create_app(graph, short), graph) as base:
            events = sse_events(base, QUESTION, timeout=10)
    assert events[-1][0] == "done" and events[-1][1]["outcome"] == "fallback"
    assert "couldn't answer" in "".join(data["text"] for name, data, _ in events if name == "token")


def test_the_graph_url_is_validated_like_any_setting() -> None:
    result = subprocess.run([*ASKAI, "serve", "--graph-url", "ftp://x"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "graph_url" in result.stderr and len(result.stderr.strip().splitlines()) == 1
