"""Answers/s of ``askai serve`` as users run it, against bare anchors on the same stack, in one run.

Run: ``.venv/bin/python bench/serve_throughput.py [--levels 1,50] [--seconds 3] [--rounds 3]
[--kinds ...] [--baseline-tree DIR] [--profile FILE]``. Loopback only; about 2 minutes
with the defaults. Each server is a process on a free 127.0.0.1 port, accepting on a
socket bound like ``askai serve``'s (``serving.bind``, ``serving.uvicorn_config``: the
same uvicorn protocol, limits and ``TCP_NODELAY``). The kinds (``--kinds``):

- ``askai``: ``askai serve`` itself, as users run it: threads in SQLite (a file of this
  run's), the run log on, its access log, offline models, the bundled sample site, answer
  cache *off*, so every request runs the whole graph. Only the per-client limits are
  lifted (every simulated user is 127.0.0.1): rate limit, stream cap, connections per client;
- ``askai+cache``: the same with the answer cache on (the default). Every mixed question
  and paraphrase is asked once first; its load then asks the paraphrases that come back
  as cache hits (an answer that was not accepted is never cached);
- ``bare-graph``: the fair anchor of ``askai``: FastAPI + sse-starlette, a 7-node
  LangGraph graph of trivial async nodes streamed with the server's stream modes
  (``updates``, ``values``), a ``step`` event per node, then a fixed 1,000-character
  answer in the server's ``token`` chunks and ``done`` (no access log);
- ``bare-sse``: the anchor of a cache hit: the same endpoint without the graph;
- ``askai-nolog``, ``askai+cache-nolog``: with the run log off, to tell its cost apart;
- any ``askai`` kind ending in ``@before`` runs the code of ``--baseline-tree`` (a source
  tree holding ``askai_graph``, e.g. ``git archive REV askai_graph | tar -x -C DIR``).

For each level (concurrent clients, each on one kept-alive connection asking back to back,
``server_load.load``'s minimal client), every server is loaded for ``--seconds`` in turn,
for ``--rounds`` rounds (the order rotates each round). Printed per level: each server's
median answers/s over the rounds, its CPU milliseconds per answer (its process tree's user
+ system time over its turns, which background load moves least), split between the
event loop's thread and the others, errors and cache hits; then the ratios ``askai`` /
``bare-graph`` and ``askai+cache`` / ``bare-sse`` (and their ``@before`` twins), of the
medians and the median of each round's ratio. The load average before and after is
printed: the machine is shared. With ``--profile FILE``, the first ``askai`` kind runs
under cProfile, timing its event loop thread's CPU (``time.thread_time``) from the end of
the warm-up; the stats are written to FILE when it stops (its figures are slowed by the
profiler: read where the time went, not the rates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from sse_starlette import EventSourceResponse, ServerSentEvent  # noqa: E402

from bench.server_load import (  # noqa: E402
    ACCEPTED,
    FIXED_ANSWER,
    MIXED,
    PARAPHRASES,
    Connection,
    free_port,
    load,
    tree_cpu_seconds,
)

NODES = 7
KINDS = ("askai", "askai+cache", "bare-graph", "bare-sse")
ANCHOR = {"askai": "bare-graph", "askai+cache": "bare-sse"}
UNLIMITED = {
    "ASKAI_RATE_LIMIT": "",
    "ASKAI_MAX_STREAMS": "100000",
    "ASKAI_MAX_CONNECTIONS_PER_CLIENT": "100000",
}


class Counted(TypedDict, total=False):
    question: str
    n: int


def seven_node_graph() -> Any:
    """Return a linear graph of ``NODES`` async nodes that only count (async: no thread hop per node)."""
    from langgraph.graph import END, START, StateGraph

    async def step(state: Counted) -> Counted:
        return {"n": state.get("n", 0) + 1}

    builder = StateGraph(Counted)
    names = [f"n{i}" for i in range(NODES)]
    for name in names:
        builder.add_node(name, step)
    builder.add_edge(START, names[0])
    for a, b in zip(names, names[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder.compile()


def anchor_app(with_graph: bool) -> Any:
    """The bare SSE endpoint; ``with_graph``: it first streams the 7-node graph, a ``step`` per node."""
    from askai_graph.server.answers.events import token_chunks

    graph = seven_node_graph() if with_graph else None
    app = FastAPI()

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/api/chat", response_model=None)
    async def chat(request: Request) -> EventSourceResponse:
        body = await request.json()

        async def stream() -> AsyncIterator[ServerSentEvent]:
            n = 0
            if graph is not None:
                modes = ["updates", "values"]
                async for mode, chunk in graph.astream({"question": body["message"]}, stream_mode=modes):
                    if mode == "updates":
                        for node in chunk:
                            n += 1
                            yield ServerSentEvent(event="step", data=json.dumps({"node": node}), id=str(n), sep="\n")
            for text in token_chunks(FIXED_ANSWER, 24):
                n += 1
                yield ServerSentEvent(event="token", data=json.dumps({"text": text}), id=str(n), sep="\n")
            done = {"outcome": "accepted", "attempts": 1, "cached": False, "gates": {}}
            yield ServerSentEvent(event="done", data=json.dumps(done), id=str(n + 1), sep="\n")

        return EventSourceResponse(stream(), sep="\n")

    return app


def serve_anchor(kind: str, port: int) -> None:
    """Child process: serve an anchor as ``askai serve`` serves (its socket, protocol and limits)."""
    import uvicorn

    from askai_graph import Settings
    from askai_graph.server.serving import bind, uvicorn_config

    settings = Settings(max_connections_per_client=100_000)
    config = uvicorn_config(anchor_app(kind == "bare-graph"), settings, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[bind("127.0.0.1", port)])


PROFILED = """
import cProfile, signal, sys, time
from askai_graph.cli import main
# uvicorn raises the SIGTERM it caught again once it has stopped: exit, so the stats are written.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
sys.argv = ["askai", *sys.argv[2:]]
profile = cProfile.Profile(time.thread_time)  # the event loop's own CPU, not the wall clock
# Enabled by SIGUSR1, once the server is started and warmed: the answers, not the start-up.
signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
try:
    main()
finally:
    profile.disable()
    profile.dump_stats(OUT)
"""


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds used so far by ``pid``'s main thread (the event loop) and by its other threads (Linux ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {"event loop": 0.0, "other threads": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a thread that ended meanwhile
        used["event loop" if int(task.name) == pid else "other threads"] += (int(fields[11]) + int(fields[12])) / tick
    return used


def start(
    kind: str, folder: Path, profile: Path | None, log: Any, baseline: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start one server; return its process and base URL once ``/healthz`` answers.

    A kind ending in ``@before`` runs ``baseline``'s code (a source tree holding ``askai_graph``).
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    if kind.startswith("askai"):
        env |= UNLIMITED | {
            "ASKAI_DATABASE_URL": f"sqlite:///{folder / kind.replace('@', '-') / 'threads.sqlite'}",
            "ASKAI_INDEX_CACHE_DIR": str(folder / "index"),
            "ASKAI_CACHE_ENABLED": "true" if kind.startswith("askai+cache") else "false",
            # ``-nolog``: the run log off, to tell its cost apart (not how users run it).
            "ASKAI_RUN_LOG": "false" if kind.removesuffix("@before").endswith("-nolog") else "true",
        }
        args = ["serve", "--port", str(port)]
        if profile is not None and kind.startswith("askai"):
            command = [sys.executable, "-c", PROFILED.replace("OUT", repr(str(profile))), "-", *args]
        else:
            command = [sys.executable, "-m", "askai_graph", *args]
    else:
        command = [sys.executable, __file__, "--serve", kind, "--port", str(port)]
    root = Path(__file__).resolve().parent.parent
    if kind.endswith("@before") and baseline is not None:
        root, env["PYTHONPATH"] = baseline, str(baseline)  # ``-m`` imports from the working folder first
    process = subprocess.Popen(command, env=env, cwd=root, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{kind} server did not start")


async def warm(base: str) -> list[str]:
    """Ask every mixed question and paraphrase once; return the paraphrases then served from the cache.

    A paraphrase whose answer was not accepted is never cached: it would run the graph
    on every request of the cache-hit load, so it is left out of that load.
    """
    host, port = base.removeprefix("http://").split(":")
    connection = Connection(host, int(port))
    hits = []
    try:
        for question in [*ACCEPTED, *MIXED, *PARAPHRASES]:
            async for _ in connection.ask(question):
                pass
        for question in PARAPHRASES:
            async for event, data in connection.ask(question):
                if event == "done" and json.loads(data)["cached"]:
                    hits.append(question)
    finally:
        connection.close()
    return hits


async def measure(
    bases: dict[str, str], pids: dict[str, int], levels: list[int], seconds: float, rounds: int, profiled: str | None
) -> None:
    hits = {kind: await warm(base) for kind, base in bases.items()}
    for kind, served in hits.items():
        if kind.startswith("askai+cache"):
            print(f"{kind}: {len(served)} of {len(PARAPHRASES)} paraphrases are cache hits, asked in its load")
    if profiled is not None:
        os.kill(pids[profiled], signal.SIGUSR1)
    load_before = os.getloadavg()[0]
    for clients in levels:
        rates: dict[str, list[float]] = {kind: [] for kind in bases}
        cpu, answers, errors = dict.fromkeys(bases, 0.0), dict.fromkeys(bases, 0), dict.fromkeys(bases, 0)
        cached = dict.fromkeys(bases, 0)
        by_thread: dict[str, dict[str, float]] = {}
        order = list(bases)
        for turn in range(rounds):
            for kind in order[turn % len(order) :] + order[: turn % len(order)]:
                questions = hits[kind] if kind.startswith("askai+cache") else MIXED
                used, threads = tree_cpu_seconds(pids[kind]), thread_cpu(pids[kind])
                result = await load(bases[kind], questions, clients, seconds)
                cpu[kind] += tree_cpu_seconds(pids[kind]) - used
                for name, seconds_used in thread_cpu(pids[kind]).items():
                    spent = by_thread.setdefault(kind, {})
                    spent[name] = spent.get(name, 0.0) + seconds_used - threads.get(name, 0.0)
                rates[kind].append(result.answers / result.seconds)
                answers[kind] += result.answers
                cached[kind] += result.cached
                errors[kind] += result.errors
        print(f"\n{clients} client(s), {seconds:g} s per server x {rounds} rounds")
        for kind, samples in rates.items():
            per_answer = cpu[kind] * 1000 / answers[kind] if answers[kind] else float("nan")
            print(f"  {kind:<12} median {statistics.median(samples):7.1f} answers/s"
                  f"   (rounds {' '.join(f'{rate:.1f}' for rate in samples)})"
                  f"   server cpu {per_answer:6.2f} ms/answer   errors {errors[kind]}"
                  f"   cached {cached[kind]}/{answers[kind]}")  # fmt: skip
            if answers[kind]:
                shares = sorted(by_thread.get(kind, {}).items(), key=lambda item: -item[1])
                print("      by thread, ms/answer: " + ", ".join(
                    f"{name} {spent * 1000 / answers[kind]:.2f}" for name, spent in shares if spent > 0))  # fmt: skip
        pairs = [*ANCHOR.items(), *((f"{kind}@before", anchor) for kind, anchor in ANCHOR.items())]
        for kind, anchor in pairs:
            if kind in rates and anchor in rates:
                of_medians = statistics.median(rates[kind]) / statistics.median(rates[anchor])
                paired = statistics.median(a / b for a, b in zip(rates[kind], rates[anchor], strict=True))
                print(f"  {kind} / {anchor}: {of_medians:.2f} of the medians, {paired:.2f} median of the rounds'")
    print(f"\nload average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after ({os.cpu_count()} cpus)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,50", help="comma-separated client counts")
    parser.add_argument("--seconds", type=float, default=3.0, help="load per server, level and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per level")
    parser.add_argument("--kinds", default=",".join(KINDS), help="which servers (comma separated)")
    parser.add_argument("--baseline-tree", type=Path, help="a source tree run by the kinds ending in @before")
    parser.add_argument("--profile", type=Path, help="run the askai server under cProfile; stats to this file")
    parser.add_argument("--log", default=os.devnull, help="the servers' output goes here")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_anchor(args.serve, args.port)
        return
    kinds = args.kinds.split(",")
    with tempfile.TemporaryDirectory() as folder:
        log = open(args.log, "ab")  # noqa: SIM115 - open while the servers run
        baseline = args.baseline_tree.resolve() if args.baseline_tree else None
        servers = {kind: start(kind, Path(folder), args.profile, log, baseline) for kind in kinds}
        try:
            bases = {kind: base for kind, (_, base) in servers.items()}
            pids = {kind: process.pid for kind, (process, _) in servers.items()}
            levels = [int(n) for n in args.levels.split(",")]
            profiled = next((kind for kind in bases if kind.startswith("askai")), None) if args.profile else None
            asyncio.run(measure(bases, pids, levels, args.seconds, args.rounds, profiled))
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(30)
            log.close()


if __name__ == "__main__":
    main()
