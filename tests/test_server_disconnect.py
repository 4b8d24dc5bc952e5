"""A client that leaves mid-stream cancels its graph run: no model calls continue for it.

In process, and on a LangGraph Server (``--graph-url``), where the run is cancelled too.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest
from httpx_sse import connect_sse
from langgraph_sdk import get_sync_client

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.scaleout.remote import RemoteAskGraph
from tests.fakes import ScriptedChatModel, cited_draft, fan_out_graph, replies, retriever, review
from tests.langgraph_server import (
    SCENARIO_GRAPH,
    SCENARIO_KEY,
    GraphHost,
    RemoteScenarios,
    remote_live_server,
    sync_calls,
)
from tests.live import LiveServer, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DELAY = 0.3
QUESTION = "How do retrieval and caching work?"


def slow_models() -> tuple[ScriptedChatModel, ScriptedChatModel]:
    """A writer and a critic that take DELAY per call; the critic always asks for a retry."""
    return replies(cited_draft(1), delay=DELAY), replies(review(confidence=0.1), delay=DELAY)


def serve(settings: Settings, writer: ScriptedChatModel, critic: ScriptedChatModel) -> LiveServer:
    graph = build_graph(writer=writer, critic=critic, retriever=retriever(1, 2), settings=settings)
    return LiveServer(create_app(graph, settings))


def test_a_full_run_of_the_slow_models_makes_every_attempt(settings: Settings, graph_host: GraphHost) -> None:
    writer, critic = slow_models()
    graph_kwargs = {"writer": writer, "critic": critic, "retriever": retriever(1, 2), "settings": settings}
    with graph_host.live(settings, build_graph, **graph_kwargs) as base:
        events = sse_events(base, QUESTION)
    assert events[-1][1]["outcome"] == "degraded"
    assert (writer.calls, critic.calls) == (settings.max_attempts, settings.max_attempts)


def test_disconnect_mid_stream_cancels_the_graph(settings: Settings) -> None:
    writer, critic = slow_models()
    with serve(settings, writer, critic) as base:
        with httpx.Client(timeout=10) as client:
            with connect_sse(client, "POST", f"{base}/api/chat", json={"message": QUESTION}) as source:
                for sse in source.iter_sse():
                    if sse.event == "step" and json.loads(sse.data)["node"] == "critic":
                        break  # leave after the first review: two more attempts are pending
        at_disconnect = (writer.calls, critic.calls)
        # The rest of the run would take 4 more calls of DELAY each; wait longer than that.
        time.sleep(5 * DELAY)
        later = (writer.calls, critic.calls)
        time.sleep(2 * DELAY)
        assert (writer.calls, critic.calls) == later
    assert at_disconnect == (1, 1)
    assert later == (1, 1)  # at most the call in flight could have finished; none did: it was cancelled


def test_disconnect_cancels_parallel_node_tasks_too(settings: Settings) -> None:
    # Iterating astream directly in the response generator leaves these running (#5682).
    ticks: list[float] = []
    with LiveServer(create_app(fan_out_graph(ticks), settings)) as base:
        with httpx.Client(timeout=10) as client:
            with connect_sse(client, "POST", f"{base}/api/chat", json={"message": QUESTION}) as source:
                first = next(source.iter_sse())
        time.sleep(1.0)  # ten rounds of both branches, had they kept going
    assert json.loads(first.data)["node"] == "research"
    assert len(ticks) <= 2  # at most a round that was already finishing


def test_disconnect_cancels_the_run_on_the_langgraph_server(
    settings: Settings, langgraph_server: str, remote_scenarios: RemoteScenarios
) -> None:
    writer, critic = slow_models()
    config = remote_scenarios.add(
        build_graph, writer=writer, critic=critic, retriever=retriever(1, 2), settings=settings
    )
    graph = RemoteAskGraph(langgraph_server, SCENARIO_GRAPH, config=config)
    with remote_live_server(create_app(graph, settings), graph) as base:
        with httpx.Client(timeout=10) as client:
            with connect_sse(client, "POST", f"{base}/api/chat", json={"message": QUESTION}) as source:
                for sse in source.iter_sse():
                    if sse.event == "step" and json.loads(sse.data)["node"] == "critic":
                        break  # leave after the first review: two more attempts are pending
        sync_calls(writer, critic)
        at_disconnect = (writer.calls, critic.calls)
        time.sleep(5 * DELAY)
    sync_calls(writer, critic)
    # The server's own record of the run says it was cancelled, not finished.
    with get_sync_client(url=langgraph_server) as sdk:
        threads = sdk.threads.search(metadata={"graph_id": SCENARIO_GRAPH}, limit=100)
        runs = [run for thread in threads for run in sdk.runs.list(thread["thread_id"])]
    scenario = config["configurable"][SCENARIO_KEY]
    (run,) = [run for run in runs if run["kwargs"]["config"]["configurable"].get(SCENARIO_KEY) == scenario]
    assert at_disconnect == (1, 1)
    assert (writer.calls, critic.calls) == (1, 1)
    assert run["status"] == "interrupted"
