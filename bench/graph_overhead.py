"""Median latency of one offline question through the Ask AI graph vs a bare LangGraph graph.

Run: ``.venv/bin/python bench/graph_overhead.py [--runs N]``. Each round runs every case
once, in turn (interleaved, in a shuffled order), so a slower or faster stretch of the machine hits all cases
alike. Printed: medians (ms) and ratios, all from this one run, for

- ``invoke``: sync ``graph.invoke`` of askai-graph vs a bare graph of the same shape (the
  same nodes, edges and four routers, each node trivial and each router picking the
  accepted path: LangGraph's own overhead for one pass of this graph);
- ``invoke 6``: the same against a bare 6-node linear graph (the figure earlier rounds quoted);
- ``astream``: ``astream(stream_mode=["updates", "values"])`` of askai-graph and of the
  same-shape bare graph, the way the HTTP server runs a question. The bare graph's nodes
  and routers are coroutines here, as askai-graph's are in an async run: LangGraph sends
  a plain function through a thread pool in ``astream``, and a baseline paying for that
  hop would flatter askai-graph;
- ``context``: askai-graph's ``invoke`` with a per-run context (``{"top_k": 6}``, the
  default value) vs without one; the ratio is the cost of resolving per-run settings;
- ``replayed``: askai-graph with every node's update replayed from its first run (the
  same state and updates, no node work) vs the bare graph of the same shape: what
  LangGraph, the schemas and the wiring cost beyond the bare graph. ``invoke`` minus this
  is the nodes' own work.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langgraph.graph import END, START, StateGraph  # noqa: E402

from askai_graph import Settings, build_graph, wiring  # noqa: E402

QUESTIONS = [
    "What is semantic caching?",
    "How does BM25 score documents?",
    "What course articles do you have?",
    "How should I handle client disconnects when streaming?",
    "How do I bake sourdough bread?",
]
MODES = ["updates", "values"]


class Bare(TypedDict, total=False):
    question: str
    n: int


def bare_graph() -> Any:
    """Return a 6-node linear graph whose nodes only count."""
    builder = StateGraph(Bare)
    names = [f"n{i}" for i in range(6)]
    for name in names:
        builder.add_node(name, lambda state: {"n": state.get("n", 0) + 1})
    builder.add_edge(START, names[0])
    for a, b in zip(names, names[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder.compile()


def same_shape_graph() -> Any:
    """Return a graph with askai-graph's nodes, edges and routers, whose nodes only count."""

    def step(state: Bare) -> Bare:
        return {"n": state.get("n", 0) + 1}

    def after_condense(state: Bare) -> Literal["research", "fallback"]:
        return "research"

    def after_research(state: Bare) -> Literal["writer", "fallback"]:
        return "writer"

    def after_validation(state: Bare) -> Literal["critic", "research", "fallback"]:
        return "critic"

    def after_critic(state: Bare) -> Literal["accept", "accept_early", "research", "degrade"]:
        return "accept"

    return _shaped(step, (after_condense, after_research, after_validation, after_critic))


def async_same_shape_graph() -> Any:
    """Return the same graph with coroutine nodes and routers: the fair anchor of an ``astream``."""

    async def step(state: Bare) -> Bare:
        return {"n": state.get("n", 0) + 1}

    async def after_condense(state: Bare) -> Literal["research", "fallback"]:
        return "research"

    async def after_research(state: Bare) -> Literal["writer", "fallback"]:
        return "writer"

    async def after_validation(state: Bare) -> Literal["critic", "research", "fallback"]:
        return "critic"

    async def after_critic(state: Bare) -> Literal["accept", "accept_early", "research", "degrade"]:
        return "accept"

    return _shaped(step, (after_condense, after_research, after_validation, after_critic))


def _shaped(step: Any, routers: tuple[Any, Any, Any, Any]) -> Any:
    after_condense, after_research, after_validation, after_critic = routers
    builder = StateGraph(Bare)
    for name in ("condense", "research", "writer", "validation", "critic", "accept", "accept_early", "degrade",
                 "fallback", "source_gate"):
        builder.add_node(name, step)
    builder.add_edge(START, "condense")
    builder.add_conditional_edges("condense", after_condense)
    builder.add_conditional_edges("research", after_research)
    builder.add_edge("writer", "validation")
    builder.add_conditional_edges("validation", after_validation)
    builder.add_conditional_edges("critic", after_critic)
    for end in ("accept", "accept_early", "degrade", "fallback"):
        builder.add_edge(end, "source_gate")
    builder.add_edge("source_gate", END)
    return builder.compile()


def replayed_graph(settings: Settings) -> Any:
    """Return askai-graph whose nodes replay the update they made the first time they saw a state."""
    made: dict[tuple[Any, ...], Any] = {}
    node = wiring.Wiring.node

    def replaying(self: wiring.Wiring, name: str, fn: Any, afn: Any = None) -> Any:
        def replay(state: Any, run_settings: Settings) -> Any:
            key = (name, state.get("question"), state.get("attempts"), state.get("standalone_question"))
            if key not in made:
                made[key] = fn(state, run_settings)
            return made[key]

        return node(self, name, replay)

    wiring.Wiring.node = replaying  # type: ignore[method-assign]
    try:
        return build_graph(settings=settings)
    finally:
        wiring.Wiring.node = node  # type: ignore[method-assign]


def sync_case(graph: Any, **kwargs: Any) -> Callable[[str], Awaitable[None]]:
    """Time ``graph.invoke`` (blocking the loop is fine here: nothing else runs)."""

    async def run(question: str) -> None:
        graph.invoke({"question": question}, **kwargs)

    return run


def stream_case(graph: Any) -> Callable[[str], Awaitable[None]]:
    """Time a full ``astream`` with the server's stream modes."""

    async def run(question: str) -> None:
        async for _ in graph.astream({"question": question}, stream_mode=MODES):
            pass

    return run


async def measure(cases: dict[str, Callable[[str], Awaitable[None]]], runs: int) -> dict[str, float]:
    """Run every case once per round, in turn; return each case's median in ms.

    The order is shuffled every round (seeded), so no case always follows the same one:
    the garbage a streamed run leaves, and the collection it triggers, land on every
    case alike.
    """
    samples: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    order = random.Random(0)
    for i in range(runs):
        question = QUESTIONS[i % len(QUESTIONS)]
        order.shuffle(names)
        for name in names:
            start = time.perf_counter()
            await cases[name](question)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000 for name, values in samples.items()}


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        settings = Settings(index_cache_dir=Path(cache))
        askai, replayed = build_graph(settings=settings), replayed_graph(settings)
        bare, shape, async_shape = bare_graph(), same_shape_graph(), async_same_shape_graph()
        cases = {
            "askai invoke": sync_case(askai),
            "shape invoke": sync_case(shape),
            "bare invoke": sync_case(bare),
            "askai invoke+context": sync_case(askai, context={"top_k": 6}),
            "askai replayed": sync_case(replayed),
            "askai astream": stream_case(askai),
            "shape astream": stream_case(async_shape),
        }
        asyncio.run(measure(cases, 20))  # warm up imports, caches and the stemmer
        m = asyncio.run(measure(cases, args.runs))
    print(f"graph overhead, {args.runs} interleaved rounds, {len(QUESTIONS)} mixed offline questions (median ms)")
    print(f"{'':10}{'askai-graph':>14}{'baseline':>14}{'ratio':>9}   baseline")
    rows = [
        ("invoke", m["askai invoke"], m["shape invoke"], "bare graph of the same shape, invoke"),
        ("invoke 6", m["askai invoke"], m["bare invoke"], "bare 6-node linear invoke"),
        ("astream", m["askai astream"], m["shape astream"], "bare graph of the same shape, async nodes, astream"),
        ("context", m["askai invoke+context"], m["askai invoke"], "askai invoke, no context"),
        ("replayed", m["askai replayed"], m["shape invoke"], "askai invoke with no node work vs the same shape"),
    ]
    for label, value, base, what in rows:
        print(f"{label:10}{value:14.2f}{base:14.2f}{value / base:9.2f}x   {what}")


if __name__ == "__main__":
    main()
