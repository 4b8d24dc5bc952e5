"""Median latency of one offline question through the Ask AI graph vs a bare LangGraph graph.

Run: ``.venv/bin/python bench/graph_overhead.py [--runs N]``. Prints medians (ms) for
sync ``invoke`` and async ``ainvoke`` of both graphs, measured in the same run, and the
ratios. The bare baseline is a 6-node linear graph of trivial nodes (LangGraph's own
overhead); the difference is askai-graph's work (BM25, extraction, validation, review).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langgraph.graph import END, START, StateGraph  # noqa: E402

from askai_graph import Settings, build_graph  # noqa: E402

QUESTIONS = [
    "What is semantic caching?",
    "How does BM25 score documents?",
    "What course articles do you have?",
    "How should I handle client disconnects when streaming?",
    "How do I bake sourdough bread?",
]


class Bare(TypedDict, total=False):
    question: str
    n: int


def bare_graph() -> Any:
    builder = StateGraph(Bare)
    names = [f"n{i}" for i in range(6)]
    for name in names:
        builder.add_node(name, lambda state: {"n": state.get("n", 0) + 1})
    builder.add_edge(START, names[0])
    for a, b in zip(names, names[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder.compile()


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure_sync(graph: Any, runs: int) -> float:
    samples = []
    for i in range(runs):
        question = QUESTIONS[i % len(QUESTIONS)]
        start = time.perf_counter()
        graph.invoke({"question": question})
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


async def measure_async(graph: Any, runs: int) -> float:
    samples = []
    for i in range(runs):
        question = QUESTIONS[i % len(QUESTIONS)]
        start = time.perf_counter()
        await graph.ainvoke({"question": question})
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        askai = build_graph(settings=Settings(index_cache_dir=Path(cache)))
        bare = bare_graph()
        for graph in (askai, bare):  # warm up imports, caches and the stemmer
            measure_sync(graph, 10)
        askai_sync, bare_sync = measure_sync(askai, args.runs), measure_sync(bare, args.runs)
        askai_async = asyncio.run(measure_async(askai, args.runs))
        bare_async = asyncio.run(measure_async(bare, args.runs))
    print(f"graph overhead, {args.runs} runs each, {len(QUESTIONS)} mixed offline questions (median ms)")
    print(f"{'':10}{'askai-graph':>14}{'bare 6-node':>14}{'ratio':>9}")
    print(f"{'invoke':10}{askai_sync:14.2f}{bare_sync:14.2f}{askai_sync / bare_sync:9.1f}x")
    print(f"{'ainvoke':10}{askai_async:14.2f}{bare_async:14.2f}{askai_async / bare_async:9.1f}x")


if __name__ == "__main__":
    main()
