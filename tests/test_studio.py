"""LangGraph Studio: the repo's ``langgraph.json`` served by a real ``langgraph dev``.

The server runs from the repo root on a free port, kept off the network by its
analytics/version-check/tracing flags, on the offline defaults, and is driven with ``langgraph-sdk`` the way Studio
drives it: threads, streamed runs with per-node updates, the context schema, and a run
with a changed setting.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from askai_graph import (
    Critique,
    Outcome,
    ReviewFailure,
    RunOptions,
    SearchResult,
    ValidationReport,
    should_expose_retrieved_links,
)
from tests.langgraph_server import ROOT, LangGraphDev

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

GRAPH_ID = "ask_ai"
ANSWERED = "How does BM25 rank documents?"
# The offline critic never passes this one: it is retried up to the limit, then degrades.
# Retried to the limit under the defaults, standalone or on a thread: no page of the
# bundled site says "reveal", and the section on token probabilities says what they
# "flag" in sentences without the question's words, so the Critic's relevance stays low
# each time. ("How many candidates should a cross-encoder rerank?" and "Why is
# fine-tuning a poor knowledge store?" used to be; the Writer now quotes the sentence that
# gives the number, and the Critic reads the headings over what it quotes.)
RETRIED = "Can token probabilities reveal unsupported claims?"


@pytest.fixture(autouse=True)
def _wall_time(request: pytest.FixtureRequest) -> Iterator[None]:
    started = time.monotonic()
    yield
    print(f"\n[wall time] {request.node.name}: {time.monotonic() - started:.1f}s")


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start ``langgraph dev`` on the repo's ``langgraph.json``; stop it and remove what it wrote."""
    tmp = tmp_path_factory.mktemp("studio")
    with LangGraphDev(
        ROOT / "langgraph.json", tmp / "langgraph-dev.log", {"ASKAI_INDEX_CACHE_DIR": str(tmp / "bm25")}, cwd=ROOT
    ) as url:
        yield url


@pytest.fixture(scope="module")
def client(studio: str) -> Iterator[SyncLangGraphClient]:
    sdk = get_sync_client(url=studio)
    yield sdk
    sdk.close()


def run(
    client: SyncLangGraphClient, question: str, thread_id: str | None = None, **kwargs: Any
) -> tuple[list[str], dict[str, Any]]:
    """Stream one run (on a new thread unless one is given); return the nodes in order and the whole final state.

    The run's ``values`` and ``updates`` are its public output (the graph's output schema);
    the ``tasks`` stream names every stage that ran, and the thread's checkpoint holds
    the whole state, internals included: the two ways Studio reads them.
    """
    thread_id = thread_id or client.threads.create()["thread_id"]
    nodes: list[str] = []
    for part in client.runs.stream(
        thread_id, GRAPH_ID, input={"question": question}, stream_mode=["tasks", "values"], **kwargs
    ):
        if part.event == "tasks" and "result" in part.data:
            nodes.append(part.data["name"])
        assert part.event != "error", part.data
    return nodes, client.threads.get_state(thread_id)["values"]


def sources_allowed(final: dict[str, Any]) -> bool:
    """Rebuild the typed state from Studio's JSON and apply the Source Gate rule to it."""
    return should_expose_retrieved_links(
        {
            "search_results": [SearchResult.model_validate(result) for result in final["search_results"]],
            "validation": ValidationReport.model_validate(final["validation"]) if final["validation"] else None,
            "critique": Critique.model_validate(final["critique"]) if final["critique"] else None,
            "review_failures": [ReviewFailure.model_validate(failure) for failure in final["review_failures"]],
        }
    )


def test_studio_streams_per_node_updates_and_the_final_state(client: SyncLangGraphClient) -> None:
    started = time.monotonic()
    nodes, final = run(client, ANSWERED)
    print(f"\n[{ANSWERED}] {final['outcome']} via {' > '.join(nodes)} in {time.monotonic() - started:.1f}s")
    assert nodes[:2] == ["condense", "research"] and nodes[-1] == "source_gate"
    assert {"writer", "validation", "critic"} <= set(nodes)
    assert final["outcome"] in get_args(Outcome)
    assert bool(final["sources"]) == sources_allowed(final)
    retrieved = {result["source_url"] for result in final["search_results"]}
    assert all(source["url"] in retrieved for source in final["sources"])


def test_studio_shows_the_settings_as_the_context_schema(client: SyncLangGraphClient) -> None:
    (assistant,) = client.assistants.search(graph_id=GRAPH_ID)
    schema = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"]
    assert schema is not None
    assert set(schema["properties"]) == set(RunOptions.model_fields)
    assert all(field.get("description") for field in schema["properties"].values())


def test_studio_shows_the_input_schema(client: SyncLangGraphClient) -> None:
    (assistant,) = client.assistants.search(graph_id=GRAPH_ID)
    schema = client.assistants.get_schemas(assistant["assistant_id"])["input_schema"]
    assert schema is not None and "question" in schema["properties"]


def test_studio_run_with_a_changed_setting_behaves_accordingly(client: SyncLangGraphClient) -> None:
    _, default = run(client, RETRIED)
    assert default["attempts"] > 1, "precondition: under the defaults this question is retried"
    nodes, limited = run(client, RETRIED, context={"max_attempts": 1})
    print(f"\n[{RETRIED}] defaults: {default['attempts']} drafts; max_attempts=1: {limited['attempts']}")
    assert limited["attempts"] == 1 and nodes.count("writer") == 1
    assert limited["outcome"] in ("degraded", "fallback")
    assert limited["sources"] == []


def test_studio_follow_up_on_a_thread_is_condensed_and_gets_a_full_attempt_budget(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    _, first = run(client, "What is BM25?", thread_id)
    nodes, follow_up = run(client, "How do I tune its parameters?", thread_id)
    _, retried = run(client, RETRIED, thread_id)
    print(f"\n[thread] attempts {first['attempts']}, {follow_up['attempts']}, {retried['attempts']}")
    assert (first["outcome"], first["attempts"]) == ("accepted", 1)
    assert follow_up["standalone_question"] == "How do I tune its parameters? (BM25)"
    assert (follow_up["outcome"], follow_up["attempts"]) == ("accepted", 1) and nodes.count("writer") == 1
    assert follow_up["sources"][0]["url"] == "https://course.askai.example/articles/bm25-and-lexical-search"
    assert retried["attempts"] == 3 and retried["critique"] is not None  # a full budget on the third turn too
    questions = [turn["question"] for turn in retried["history"]]
    assert questions == ["What is BM25?", "How do I tune its parameters?", RETRIED]
