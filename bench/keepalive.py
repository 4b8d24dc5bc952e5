"""Kept-alive requests to ``askai serve``'s listener: ``GET /api/search`` one after another on one connection.

Run: ``.venv/bin/python bench/keepalive.py [--requests 200] [--rounds 3] [--loops asyncio,uvloop]
[--baseline-tree DIR]``.

Each run starts a server process the way ``askai serve`` does (``serving.bind``, then
uvicorn on that socket with ``serving.uvicorn_config``) over the bundled sample site,
on a free 127.0.0.1 port, with the event loop given (uvicorn picks uvloop when it is
installed, asyncio otherwise). One client (the standard library's ``http.client``, one
kept-alive connection) sends ``--requests`` searches back to back after ten to warm up,
and the run's p50 and p90 are taken.
With ``--baseline-tree`` (another checkout, e.g. before a change), each round runs that
tree's server and this one's in turn, so background load falls on both alike; printed:
the median over the rounds of each figure. A p50 near 40 ms is the delayed-ACK stall of
a connection without ``TCP_NODELAY``.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["cache", "retrieval", "stream", "graph", "token", "bm25", "answer", "index"]

SERVER = """
import sys, uvicorn
from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.server.serving import bind, uvicorn_config
settings = Settings()
sock = bind("127.0.0.1", 0)
app = create_app(settings=settings)
print(sock.getsockname()[1], flush=True)
uvicorn.Server(uvicorn_config(app, settings, log_level="warning", loop=sys.argv[1])).run(sockets=[sock])
"""


def measure(tree: Path, loop: str, requests: int) -> tuple[float, float]:
    """Return (p50, p90) in ms of ``requests`` kept-alive searches to a server of ``tree``'s code."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    env |= {"PYTHONPATH": str(tree), "ASKAI_SEARCH_PER_MINUTE": "100000", "ASKAI_RUN_LOG": "false"}
    # In the tree's folder: ``python -c`` puts the working folder first on the path, before PYTHONPATH.
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, loop], cwd=tree, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        times = []
        for _ in range(600):  # uvicorn starts serving after the port is printed
            try:
                client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                client.request("GET", "/healthz")
                client.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        try:
            for i in range(10 + requests):
                started = time.perf_counter()
                client.request("GET", f"/api/search?q={QUERIES[i % len(QUERIES)]}")
                response = client.getresponse()
                response.read()
                elapsed = (time.perf_counter() - started) * 1000
                if response.status != 200:
                    raise RuntimeError(f"GET /api/search: {response.status}")
                if i >= 10:
                    times.append(elapsed)
        finally:
            client.close()
        cuts = statistics.quantiles(times, n=10)
        return statistics.median(times), cuts[8]
    finally:
        server.terminate()
        server.wait(20)


def main() -> None:
    """Measure each loop (and the baseline tree, if given) in alternating rounds; print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    installed = "asyncio,uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    parser.add_argument("--loops", default=installed, help=f"event loops to serve with (default {installed})")
    parser.add_argument("--baseline-tree", type=Path, help="another checkout, run in the same rounds")
    args = parser.parse_args()
    trees = {"this tree": ROOT} | ({"baseline": args.baseline_tree.resolve()} if args.baseline_tree else {})
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for loop in args.loops.split(","):
            for name, tree in trees.items():
                results.setdefault((name, loop), []).append(measure(tree, loop, args.requests))
    print(f"{'server':<12} {'loop':<8} {'p50 ms':>8} {'p90 ms':>8}   (median of {args.rounds} rounds, "
          f"{args.requests} kept-alive GET /api/search each)")
    for (name, loop), runs in results.items():
        p50 = statistics.median(run[0] for run in runs)
        p90 = statistics.median(run[1] for run in runs)
        print(f"{name:<12} {loop:<8} {p50:>8.2f} {p90:>8.2f}")


if __name__ == "__main__":
    main()
