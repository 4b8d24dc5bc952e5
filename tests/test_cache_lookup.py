"""A cache hit is a lookup, not a run: condensed once, looked up, and only a miss starts the graph.

The server tests run a real uvicorn on 127.0.0.1 over a graph whose ``astream`` calls
are counted; the graph tests run the graph in process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse
from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import Settings, build_graph
from askai_graph.models.prompts import CONDENSE_SYSTEM
from askai_graph.nodes.condense import PRECONDENSED
from askai_graph.server import create_app
from askai_graph.server.answers.answering import answer_batches
from askai_graph.server.answers.cache import InMemoryCacheStore, Probe, SemanticCache
from askai_graph.server.answers.thread_run import ThreadRun
from askai_graph.state import STATE_KEYS
from askai_graph.stores.thread_tokens import checkpoint_thread
from askai_graph.stores.threads import new_run_id, new_thread_id, run_config
from tests.fakes import PASSING, cited_draft, replies, retriever, url
from tests.live import LiveServer

QUESTION = "What is semantic caching?"
FOLLOW_UP = "How do I tune its parameters?"


class CountedRuns:
    """The graph, with every run it starts counted (everything else is the graph's own)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.runs = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.graph, name)

    def astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.runs += 1
        return self.graph.astream(*args, **kwargs)  # type: ignore[no-any-return]


class CondensesInRuns(CountedRuns):
    """The graph as a LangGraph Server's is: it condenses only inside a run (no ``condense_first``)."""

    def __getattr__(self, name: str) -> Any:
        if name == "condense_first":
            raise AttributeError(name)
        return super().__getattr__(name)


class CountedCache(SemanticCache):
    """An answer cache whose lookups and stores are counted."""

    lookups = remembered = 0

    async def lookup(self, question: str) -> Probe:
        self.lookups += 1
        return await super().lookup(question)

    async def remember(self, probe: Probe, final: Mapping[str, Any]) -> bool:
        self.remembered += 1
        return await super().remember(probe, final)


def ask(base: str, message: str, done: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """Ask ``message``; with ``done`` (an earlier answer's), on that answer's thread, with its token."""
    thread = {"thread_id": done["thread_id"], "thread_token": done["thread_token"]} if done else {}
    body: dict[str, Any] = {"message": message} | thread
    with httpx.Client(timeout=30) as client:
        with connect_sse(client, "POST", f"{base}/api/chat", json=body) as source:
            source.response.raise_for_status()
            return [(sse.event, json.loads(sse.data)) for sse in source.iter_sse()]


@pytest.mark.integration
@pytest.mark.enable_socket
def test_a_cache_hit_starts_no_graph_run_and_is_still_the_threads_turn(settings: Settings) -> None:
    search = retriever(1, 2)
    graph = CountedRuns(
        build_graph(
            writer=replies(cited_draft(1, 2)),
            critic=replies(PASSING),
            retriever=search,
            settings=settings,
            checkpointer=InMemorySaver(),
        )
    )
    with LiveServer(create_app(graph, settings)) as base:  # type: ignore[arg-type]
        first = ask(base, QUESTION)
        hit = ask(base, QUESTION)
    assert first[-1][1]["cached"] is False and hit[-1][1]["cached"] is True
    assert graph.runs == 1 and len(search.queries) == 1  # the hit ran nothing, retrieved nothing
    key = checkpoint_thread(hit[-1][1]["thread_id"], hit[-1][1]["thread_token"])
    state = graph.graph.get_state({"configurable": {"thread_id": key}}).values
    assert [turn.question for turn in state["history"]] == [QUESTION]
    assert state["history"][0].answer == "".join(data["text"] for name, data in hit if name == "token")


@pytest.mark.integration
@pytest.mark.enable_socket
def test_a_follow_up_that_misses_the_cache_is_condensed_once(settings: Settings) -> None:
    model = replies(cited_draft(1))  # Writer and Condenser (one chat model plays both)
    graph = CountedRuns(
        build_graph(
            writer=model,
            critic=replies(PASSING),
            retriever=retriever(1),
            settings=settings,
            checkpointer=InMemorySaver(),
        )  # fmt: skip
    )
    with LiveServer(create_app(graph, settings)) as base:  # type: ignore[arg-type]
        first = ask(base, "What is BM25?")[-1][1]
        follow_up = ask(base, FOLLOW_UP, first)
    assert follow_up[-1][1]["cached"] is False and graph.runs == 2
    assert sum(prompt.startswith(CONDENSE_SYSTEM) for prompt in model.prompts) == 1


def test_a_run_reuses_the_condensation_made_for_its_question(settings: Settings) -> None:
    graph = build_graph(settings=settings)
    given = {PRECONDENSED: {"question": "What is BM25?", "standalone_question": "What is BM25 ranking?"}}
    final = graph.invoke({"question": "What is BM25?"}, {"configurable": given}, output_keys=STATE_KEYS)
    assert final["standalone_question"] == "What is BM25 ranking?"


def test_a_condensation_made_for_another_question_is_ignored(settings: Settings) -> None:
    graph = build_graph(settings=settings)
    given = {PRECONDENSED: {"question": "What is RRF?", "standalone_question": "What is RRF fusion?"}}
    final = graph.invoke({"question": "What is BM25?"}, {"configurable": given}, output_keys=STATE_KEYS)
    assert final["standalone_question"] == "What is BM25?"


class SlowToRecord:
    """The graph, whose writes to a thread wait until ``release`` is set."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.graph, name)

    async def aupdate_state(self, *args: Any, **kwargs: Any) -> Any:
        await self.release.wait()
        return await self.graph.aupdate_state(*args, **kwargs)


def test_a_cache_hits_text_leaves_before_its_turn_is_written_and_its_done_after(settings: Settings) -> None:
    async def scenario() -> None:
        graph = build_graph(
            writer=replies(cited_draft(1, 2)),
            critic=replies(PASSING),
            retriever=retriever(1, 2),
            settings=settings,
            checkpointer=InMemorySaver(),
        )
        cache = SemanticCache(InMemoryCacheStore(8))
        first = ThreadRun(new_thread_id(), new_run_id(), fresh=True)
        async for _ in answer_batches(QUESTION, graph=graph, cache=cache, token_chars=24, thread=first):
            pass
        slow, thread = SlowToRecord(graph), ThreadRun(new_thread_id(), new_run_id(), fresh=True)
        batches = answer_batches(QUESTION, graph=slow, cache=cache, token_chars=24, thread=thread)
        text = await anext(batches)
        assert text and {name for name, _ in text} == {"token", "sources"}  # the reader has the answer already
        done = asyncio.ensure_future(anext(batches))
        await asyncio.sleep(0.05)
        assert not done.done()  # ``done`` (and its thread ids) only once the turn is in the thread
        slow.release.set()
        ((name, data),) = await done
        assert name == "done" and data["cached"] is True
        history = (await graph.aget_state(run_config(thread.key))).values["history"]
        assert [turn.question for turn in history] == [QUESTION]

    asyncio.run(scenario())


def test_a_cache_hit_leaves_its_cards_in_the_threads_state(settings: Settings) -> None:
    async def scenario() -> tuple[Any, Any]:
        graph = build_graph(
            writer=replies(cited_draft(1, 2)),
            critic=replies(PASSING),
            retriever=retriever(1, 2),
            settings=settings,
            checkpointer=InMemorySaver(),
        )
        cache = SemanticCache(InMemoryCacheStore(8))
        states = []
        for thread in (ThreadRun(new_thread_id(), new_run_id(), fresh=True) for _ in range(2)):
            async for _ in answer_batches(QUESTION, graph=graph, cache=cache, token_chars=24, thread=thread):
                pass
            states.append((await graph.aget_state(run_config(thread.key))).values)
        return states[0], states[1]

    fresh, hit = asyncio.run(scenario())
    # The thread says what its reader was shown, whether the answer was written or cached.
    assert [card.url for card in fresh["sources"]] == [url(1), url(2)]
    assert hit["sources"] == fresh["sources"] and hit["answer"] == fresh["answer"]


@pytest.mark.parametrize("wrap", [CountedRuns, CondensesInRuns])
def test_each_question_is_looked_up_once_and_only_a_miss_is_remembered_once(
    settings: Settings, wrap: type[CountedRuns]
) -> None:
    async def scenario() -> None:
        graph = wrap(
            build_graph(
                writer=replies(cited_draft(1, 2)),
                critic=replies(PASSING),
                retriever=retriever(1, 2),
                settings=settings,
                checkpointer=InMemorySaver(),
            )
        )
        cache = CountedCache(InMemoryCacheStore(8))
        dones = []
        for _ in range(2):
            thread = ThreadRun(new_thread_id(), new_run_id(), fresh=True)
            batches = [batch async for batch in answer_batches(QUESTION, graph=graph, cache=cache, token_chars=24,
                                                                 thread=thread)]  # fmt: skip
            dones.append(batches[-1][-1][1])
        assert [done["cached"] for done in dones] == [False, True]
        assert (cache.lookups, cache.remembered) == (2, 1)
        # A hit starts no run; where the question is condensed only in a run, the hit stops it.
        assert graph.runs == (1 if wrap is CountedRuns else 2)

    asyncio.run(scenario())


class RunsOutliveTheirStream(CondensesInRuns):
    """A LangGraph Server's graph under load: a run whose stream was closed still ends, and writes its turn."""

    async def astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.runs += 1
        finished = [item async for item in self.graph.astream(*args, **kwargs)]
        for item in finished:
            yield item


def test_a_hit_that_stops_a_run_which_ends_anyway_leaves_one_turn_in_the_thread(settings: Settings) -> None:
    async def scenario() -> None:
        graph = RunsOutliveTheirStream(
            build_graph(
                writer=replies(cited_draft(1, 2), cited_draft(1, 2)),
                critic=replies(PASSING, PASSING),
                retriever=retriever(1, 2),
                settings=settings,
                checkpointer=InMemorySaver(),
            )
        )
        cache = SemanticCache(InMemoryCacheStore(8))
        threads = [ThreadRun(new_thread_id(), new_run_id(), fresh=True) for _ in range(2)]
        for thread in threads:
            batches = [batch async for batch in answer_batches(QUESTION, graph=graph, cache=cache, token_chars=24,
                                                                 thread=thread)]  # fmt: skip
        assert batches[-1][-1][1]["cached"] is True
        state = await graph.graph.aget_state(run_config(threads[1].key))
        assert [turn.question for turn in state.values["history"]] == [QUESTION]

    asyncio.run(scenario())
