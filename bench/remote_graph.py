"""The graph on LangGraph Server vs in process: time to first event, time to done, answers/s.

Starts a real ``langgraph dev`` on the repo's ``langgraph.json`` and two real ``askai
serve`` processes (offline models, the bundled corpus, the answer cache off so every
question runs the graph): one running the graph in process, one with ``--graph-url``.
Phase 1 asks one question at a time, alternating the two servers, and prints the
medians of the time to the first SSE event and to ``done``, and their ratio. Phase 2
runs CLIENTS concurrent clients for ``--seconds`` against each server, alternating
(in process, remote, in process, remote), and prints the median answers/s and ratio.

``langgraph dev`` is LangGraph Server's in-memory development runtime: its queue
polls for new runs every 0.5 s, so a remote run starts up to half a second late. These
figures bound the front end's own overhead from above; they are not a deployed
LangGraph Server's (PostgreSQL + Redis) latency.

    .venv/bin/python bench/remote_graph.py [--rounds 15] [--seconds 10] [--clients 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.langgraph_server import LangGraphDev  # noqa: E402
from tests.live import AskaiServe  # noqa: E402

TOPICS = ["BM25", "semantic caching", "retrieval", "embeddings", "streaming", "reranking", "chunking", "evaluation"]


async def ask(client: httpx.AsyncClient, base: str, question: str) -> tuple[float, float]:
    """Return seconds to the first SSE event and to the end of the stream."""
    started = time.perf_counter()
    first = None
    async with client.stream("POST", f"{base}/api/chat", json={"message": question}) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if first is None and line.startswith("event:"):
                first = time.perf_counter() - started
            if line == "event: error":
                raise SystemExit(f"{base} answered with an error event")
    return first or 0.0, time.perf_counter() - started


async def sequential(hosts: dict[str, str], rounds: int) -> dict[str, list[tuple[float, float]]]:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in hosts}
    async with httpx.AsyncClient(timeout=60) as client:
        for index in range(rounds):
            for name, base in hosts.items():
                times[name].append(await ask(client, base, f"How does {TOPICS[index % len(TOPICS)]} work? #{index}"))
    return times


async def throughput(base: str, clients: int, seconds: float) -> float:
    done = 0
    stop_at = time.perf_counter() + seconds

    async def client_loop(number: int, client: httpx.AsyncClient) -> None:
        nonlocal done
        index = 0
        while time.perf_counter() < stop_at:
            await ask(client, base, f"What about {TOPICS[(number + index) % len(TOPICS)]}? {number}-{index}")
            done += 1
            index += 1

    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=clients)) as client:
        await asyncio.gather(*(client_loop(number, client) for number in range(clients)))
    return done / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="askai-bench-remote-") as tmp_name:
        tmp = Path(tmp_name)
        env = {"ASKAI_CACHE_ENABLED": "false", "ASKAI_RATE_LIMIT": "", "ASKAI_INDEX_CACHE_DIR": str(tmp / "bm25"),
               "ASKAI_MAX_STREAMS": "1000", "ASKAI_DATABASE_URL": f"sqlite:///{tmp / 'threads.sqlite'}"}  # fmt: skip
        os.environ.pop("ASKAI_GRAPH_URL", None)
        with LangGraphDev(ROOT / "langgraph.json", tmp / "langgraph-dev.log", env, cwd=ROOT) as graph_url:
            with (
                AskaiServe(env, tmp / "in-process.log") as local,
                AskaiServe(env, tmp / "remote.log", "--graph-url", graph_url) as remote,
            ):
                hosts = {"in process": local, "remote": remote}
                asyncio.run(sequential(hosts, 2))  # warm up: indexes, connections, first runs
                times = asyncio.run(sequential(hosts, args.rounds))
                print(f"one question at a time, {args.rounds} rounds interleaved (cache off):")
                medians = {}
                for name, samples in times.items():
                    first = statistics.median(sample[0] for sample in samples) * 1000
                    total = statistics.median(sample[1] for sample in samples) * 1000
                    medians[name] = (first, total)
                    print(f"  {name:<10}  first event {first:7.1f} ms   done {total:7.1f} ms")
                ratio_first = medians["remote"][0] / medians["in process"][0]
                ratio_total = medians["remote"][1] / medians["in process"][1]
                print(f"  remote / in process: first event {ratio_first:.2f}x, done {ratio_total:.2f}x")
                rates: dict[str, list[float]] = {name: [] for name in hosts}
                for _ in range(2):
                    for name, base in hosts.items():
                        rates[name].append(asyncio.run(throughput(base, args.clients, args.seconds)))
                print(f"{args.clients} concurrent clients, {args.seconds:g} s per run, 2 runs each interleaved:")
                for name, values in rates.items():
                    shown = ", ".join(f"{value:.2f}" for value in values)
                    print(f"  {name:<10}  {statistics.median(values):6.2f} answers/s  ({shown})")
                rate_ratio = statistics.median(rates["remote"]) / statistics.median(rates["in process"])
                print(f"  remote / in process: {rate_ratio:.2f}x")


if __name__ == "__main__":
    main()
