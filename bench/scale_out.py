"""Scale-out figures: answers/s with 1 vs 2 `askai serve` workers; cache-hit first byte, Redis vs in process.

Runs the real ``askai serve`` (offline models, the bundled corpus) with threads in a
PostgreSQL database of its own (created and dropped here) and a ``redis-server`` of its
own on a free port. Phase 1: cache off, ``--workers 1`` then ``--workers 2``, CLIENTS
concurrent clients asking distinct questions for ``--seconds``; prints answers/s and
the ratio (the ceiling is the number of cores the machine gives the workers). Phase 2:
one worker with the answer cache in process vs in Redis, one client asking the same
cached question; prints the median time to the first byte of the stream and the ratio.

    .venv/bin/python bench/scale_out.py [--seconds 8] [--clients 16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.live import free_port  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

POSTGRES = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
LOG = open(os.environ.get("ASKAI_BENCH_LOG", os.devnull), "ab")  # noqa: SIM115
TOPICS = ["BM25", "semantic caching", "retrieval", "embeddings", "streaming", "reranking", "chunking", "evaluation"]


def start(env: dict[str, str], *args: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    base_env = {name: value for name, value in os.environ.items() if not name.startswith("ASKAI_")}
    command = [sys.executable, "-m", "askai_graph", "serve", "--port", str(port), *args]
    process = subprocess.Popen(command, cwd=ROOT, env=base_env | env, stdout=LOG, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("askai serve did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(30)


async def ask(client: httpx.AsyncClient, base: str, question: str) -> float:
    """Stream one answer to its end; return the seconds to the first byte."""
    started = time.perf_counter()
    first = None
    async with client.stream("POST", f"{base}/api/chat", json={"message": question}) as response:
        response.raise_for_status()
        async for _ in response.aiter_bytes():
            first = first if first is not None else time.perf_counter() - started
    return first or 0.0


async def throughput(base: str, clients: int, seconds: float) -> float:
    done = 0
    deadline = time.monotonic() + seconds

    async def user(number: int) -> None:
        nonlocal done
        async with httpx.AsyncClient(timeout=120) as client:
            turn = 0
            while time.monotonic() < deadline:
                await ask(client, base, f"How does {TOPICS[(number + turn) % len(TOPICS)]} work? ({number}.{turn})")
                done += 1
                turn += 1

    started = time.monotonic()
    await asyncio.gather(*(user(n) for n in range(clients)))
    return done / (time.monotonic() - started)


async def hit_ttfb(base: str, requests: int) -> float:
    async with httpx.AsyncClient(timeout=60) as client:
        await ask(client, base, "What is BM25?")  # stores it
        return statistics.median([await ask(client, base, "What is BM25?") for _ in range(requests)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="load duration per worker count")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients in phase 1")
    parser.add_argument("--hits", type=int, default=200, help="cache hits timed per store in phase 2")
    args = parser.parse_args()
    import psycopg

    name = f"askai_bench_{uuid.uuid4().hex[:12]}"
    folder = Path(tempfile.mkdtemp(prefix="askai-bench-"))
    redis = RedisServer(folder)
    redis.start()
    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            env = {"ASKAI_DATABASE_URL": f"{POSTGRES}/{name}", "ASKAI_RATE_LIMIT": "", "ASKAI_MAX_STREAMS": "1000"}
            env["ASKAI_INDEX_CACHE_DIR"] = str(folder / "index")
            print(f"phase 1: cache off, {args.clients} clients, {args.seconds:g} s per run, {os.cpu_count()} cores")
            rates = {}
            for workers in (1, 2):
                process, base = start(env | {"ASKAI_CACHE_ENABLED": "false"}, "--workers", str(workers))
                try:
                    rates[workers] = asyncio.run(throughput(base, args.clients, args.seconds))
                finally:
                    stop(process)
                print(f"  {workers} worker(s): {rates[workers]:.1f} answers/s")
            print(f"  ratio 2 workers / 1 worker: {rates[2] / rates[1]:.2f}")
            print(f"phase 2: median time to first byte of a cache hit over {args.hits} requests")
            times = {}
            for store, extra in (("in process", {}), ("Redis", {"ASKAI_CACHE_URL": redis.url})):
                process, base = start(env | extra)
                try:
                    times[store] = asyncio.run(hit_ttfb(base, args.hits))
                finally:
                    stop(process)
                print(f"  {store}: {times[store] * 1000:.2f} ms")
            print(f"  ratio Redis / in process: {times['Redis'] / times['in process']:.2f}")
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            redis.stop()


if __name__ == "__main__":
    main()
