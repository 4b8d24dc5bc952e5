"""Soak: N clients of mixed traffic against a real ``askai serve`` for a while; what grows?

Run: ``.venv/bin/python bench/soak.py [--clients 50] [--seconds 600] [--think 2.0]
[--postgres postgresql://postgres@127.0.0.1:5432] [--thread-ttl-hours 0.05]
[--prune-seconds 30]``. Loopback only; it stops by itself after ``--seconds`` (every
request is bounded by ``--timeout``, the server gets SIGTERM, then SIGKILL after 30 s).

The server is ``askai serve`` as a subprocess on a free 127.0.0.1 port, over the bundled
sample site with the offline Writer and Critic, its threads and run log in a SQLite file
of its own (the default deployment), or, with ``--postgres``, in a PostgreSQL database
created for the run and dropped after it. The per-client rate limit is off (every client
is 127.0.0.1), and so is the feedback limit. Threads expire after ``--thread-ttl-hours`` (3 minutes by default, so
background pruning runs within the soak; pass 168 for the shipped default) and are
pruned every ``--prune-seconds``.

Each client, after a random pause of mean ``--think`` seconds, does one of (weights in
``MIX``): a new question no one asked (the whole graph runs), a follow-up on its own
latest thread, a question every client asks (an answer-cache hit once answered),
feedback on its latest answer, or ``GET /healthz``. Every ``--sample-seconds`` the
server's RSS, open file descriptors and the disk its stores use are sampled.

It prints, for the first and the last window (``--window`` seconds, after the first
``--warmup``): requests per second, p50/p99 latency of answers (request to ``done``) and
of all requests, and failures (non-2xx other than a feedback 404, ``error`` events,
transport errors and timeouts); then RSS, fds and disk at the start, the end of the
first window (the end of the warm-up) and the end, with the growth per answered question
and the least-squares RSS slope (per answer and per minute) after the first window and
over the second half alone (a plateau reads about 0 there); and the server's own pruning
counts from ``/healthz``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from askai_graph.models.local import free_port  # noqa: E402

QUESTIONS = [
    "What is semantic caching?",
    "How does BM25 rank documents?",
    "What is reciprocal rank fusion?",
    "How do I evaluate retrieval with MRR and nDCG?",
    "How should I chunk documents for retrieval?",
    "What is prompt injection?",
    "How do cross-encoder rerankers work?",
    "How do I handle client disconnects?",
]
FOLLOW_UPS = ["How do I tune its parameters?", "Can you give an example?", "Why does it matter?"]
MIX = {"question": 35, "follow_up": 25, "cache_hit": 20, "feedback": 10, "healthz": 10}
ANSWERS = frozenset({"question", "follow_up", "cache_hit"})


@dataclass
class Sample:
    """One reading of the server process and its stores."""

    at: float
    rss_mb: float
    fds: int
    disk_mb: float


@dataclass
class Call:
    """One request: what it was, when it started (seconds into the soak), how long it took, whether it failed."""

    kind: str
    at: float
    seconds: float
    failure: str | None


@dataclass
class Client:
    """What one simulated reader keeps: its latest thread and answer."""

    thread_id: str | None = None
    thread_token: str | None = None
    run_id: str | None = None
    calls: list[Call] = field(default_factory=list)


async def answer(http: httpx.AsyncClient, base: str, body: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """POST one message, read the stream to its end; return a failure (or ``None``) and the ``done`` data."""
    async with http.stream("POST", f"{base}/api/chat", json=body) as response:
        if response.status_code != 200:
            await response.aread()
            return refusal(response), {}
        event, last, done = "", "", {}
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event in ("done", "error"):
                last, done = event, json.loads(line[5:])
        return (None, done) if last == "done" else (f"ended with {last or 'nothing'}", {})


def refusal(response: httpx.Response) -> str:
    """Name a refused request by its status and ``detail`` (a 503 says which resource was short)."""
    try:
        detail = str(response.json().get("detail", ""))[:60]
    except ValueError:
        detail = ""
    return f"http {response.status_code} {detail}".strip()


async def act(http: httpx.AsyncClient, base: str, client: Client, kind: str, n: int) -> str | None:
    """Do one action of ``kind`` for ``client``; return its failure, if any."""
    if kind == "healthz":
        response = await http.get(f"{base}/healthz")
        return None if response.status_code == 200 else refusal(response)
    if kind == "feedback":
        body = {"run_id": client.run_id, "rating": random.choice(["up", "down"])}
        response = await http.post(f"{base}/api/feedback", json=body)
        # A 404 is an answer the run log has not been given yet: not a failure of the server.
        return None if response.status_code in (200, 404) else refusal(response)
    if kind == "follow_up":
        message: dict[str, Any] = {
            "message": random.choice(FOLLOW_UPS), "thread_id": client.thread_id, "thread_token": client.thread_token
        }
    elif kind == "cache_hit":
        message = {"message": random.choice(QUESTIONS)}
    else:
        message = {"message": f"{random.choice(QUESTIONS)} (reader {uuid.uuid4().hex[:6]}, case {n})"}
    failure, done = await answer(http, base, message)
    if done:
        client.thread_id, client.thread_token = done.get("thread_id"), done.get("thread_token")
        client.run_id = done.get("run_id")
    return failure


async def run_client(base: str, client: Client, start: float, until: float, think: float, timeout: float) -> None:
    """Act until ``until`` (``time.monotonic``), one request at a time, pausing about ``think`` seconds."""
    kinds, weights = list(MIX), list(MIX.values())
    async with httpx.AsyncClient(timeout=timeout) as http:
        n = 0
        while True:
            await asyncio.sleep(random.expovariate(1 / think) if think > 0 else 0)
            if time.monotonic() >= until:
                return
            kind = random.choices(kinds, weights)[0]
            if kind == "follow_up" and client.thread_id is None or kind == "feedback" and client.run_id is None:
                kind = "question"
            n += 1
            began = time.monotonic()
            try:
                failure = await asyncio.wait_for(act(http, base, client, kind, n), timeout)
            except (httpx.HTTPError, TimeoutError) as exc:
                failure = type(exc).__name__
            client.calls.append(Call(kind, began - start, time.monotonic() - began, failure))


def sample(pid: int, disk: Any, at: float) -> Sample:
    """Read the server's RSS and open fds from /proc, and the stores' disk use."""
    rss_kb = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kb = int(line.split()[1])
    return Sample(at, rss_kb / 1024, len(os.listdir(f"/proc/{pid}/fd")), disk() / 1e6)


def folder_bytes(folder: Path) -> int:
    """Bytes of every file under ``folder`` (the SQLite file, its WAL and shared memory)."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` in milliseconds, nearest rank; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def window_line(name: str, calls: list[Call], seconds: float) -> str:
    """One row: throughput, answer and overall latencies, failures."""
    answers = [c.seconds for c in calls if c.kind in ANSWERS and c.failure is None]
    every = [c.seconds for c in calls if c.failure is None]
    failures = Counter(c.failure for c in calls if c.failure is not None)
    return (
        f"{name:<6} {len(calls) / seconds:7.1f} req/s  answers p50 {percentile(answers, 0.5):7.1f} ms"
        f"  p99 {percentile(answers, 0.99):7.1f} ms  all p50 {percentile(every, 0.5):7.1f} ms"
        f"  p99 {percentile(every, 0.99):7.1f} ms  failures {sum(failures.values())} {dict(failures) or ''}"
    )


async def soak(base: str, pid: int, disk: Any, args: argparse.Namespace) -> tuple[list[Call], list[Sample]]:
    """Run the clients and the sampler for ``args.seconds``; return every call and sample."""
    start = time.monotonic()
    until = start + args.seconds
    clients = [Client() for _ in range(args.clients)]
    tasks = [asyncio.create_task(run_client(base, c, start, until, args.think, args.timeout)) for c in clients]
    samples = []
    while time.monotonic() < until:
        samples.append(sample(pid, disk, time.monotonic() - start))
        await asyncio.sleep(min(args.sample_seconds, max(0.0, until - time.monotonic())))
    await asyncio.wait(tasks, timeout=args.timeout + args.think * 10)
    for task in tasks:
        task.cancel()
    samples.append(sample(pid, disk, time.monotonic() - start))
    return [call for client in clients for call in client.calls], samples


def report(calls: list[Call], samples: list[Sample], args: argparse.Namespace, health: dict[str, Any]) -> None:
    """Print the first and last windows, the resource samples and the pruning counts."""
    first = (args.warmup, args.warmup + args.window)
    last = (args.seconds - args.window, args.seconds)
    print(f"{args.clients} clients, {args.seconds:g} s, think {args.think:g} s, {args.store}; {len(calls)} requests")
    for name, (low, high) in (("first", first), ("last", last)):
        print(window_line(name, [c for c in calls if low <= c.at < high], high - low))
    at_window = min(samples, key=lambda s: abs(s.at - first[1]))
    for name, s in (("start", samples[0]), ("window", at_window), ("end", samples[-1])):
        print(f"{name:<6} t={s.at:6.0f} s  RSS {s.rss_mb:7.1f} MB  fds {s.fds:4d}  disk {s.disk_mb:8.2f} MB")
    answered = sum(1 for c in calls if c.kind in ANSWERS and c.failure is None)
    later = [s for s in samples if s.at >= first[1]]
    if answered and len(later) > 1:
        share = sum(1 for c in calls if c.kind in ANSWERS and c.failure is None and c.at >= first[1]) or 1
        grow_rss = (later[-1].rss_mb - later[0].rss_mb) * 1024 / share
        grow_disk = (later[-1].disk_mb - later[0].disk_mb) * 1000 / share
        print(f"after the first window: RSS {grow_rss:+.2f} KB, disk {grow_disk:+.2f} KB per answer ({share} answers)")
    middle = (first[1] + samples[-1].at) / 2
    for name, since in (("after the first window", first[1]), ("second half", middle)):
        fitted = rss_slope(calls, [s for s in samples if s.at >= since])
        if fitted is not None:
            per_answer, per_minute, count = fitted
            print(f"RSS slope, {name} (least squares over {count} samples): "
                  f"{per_answer:+.3f} KB per answer, {per_minute:+.3f} MB per minute")
    print(f"healthz at the end: {json.dumps(health)}")
    print("requests by kind:", dict(Counter(c.kind for c in calls)))


def rss_slope(calls: list[Call], samples: list[Sample]) -> tuple[float, float, int] | None:
    """Fit RSS against answers done and against time: KB per answer, MB per minute, samples used.

    A least-squares line through every sample, not the difference of two: one sample
    caught during a burst of requests (or after a collection) does not decide the slope.
    """
    if len(samples) < 3:
        return None
    ends = sorted(c.at + c.seconds for c in calls if c.kind in ANSWERS and c.failure is None)
    done = [float(bisect.bisect_right(ends, s.at)) for s in samples]
    rss = [s.rss_mb for s in samples]
    minutes = [s.at / 60 for s in samples]
    return _fit(done, rss) * 1024, _fit(minutes, rss), len(samples)


def _fit(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of ``ys`` on ``xs`` (0 when ``xs`` do not vary)."""
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0


def start_server(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``askai serve`` on a free port and wait for ``/healthz``."""
    port = free_port()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    command = [sys.executable, "-m", "askai_graph", "serve", "--port", str(port)]
    out = log.open("ab")
    process = subprocess.Popen(command, cwd=ROOT, env=base_env | env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    give_up = time.monotonic() + 120
    while time.monotonic() < give_up and process.poll() is None:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.2)
    stop_server(process)
    raise SystemExit(f"askai serve did not start: {log.read_text()[-2000:]}")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 30 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=600.0, help="how long the soak lasts (default 600)")
    parser.add_argument("--think", type=float, default=2.0, help="mean pause of a client between requests")
    parser.add_argument("--timeout", type=float, default=30.0, help="bound of one request")
    parser.add_argument("--window", type=float, default=None, help="seconds of each measured window (default: 1/5)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before the first window starts")
    parser.add_argument("--sample-seconds", type=float, default=5.0)
    parser.add_argument("--postgres", default=None, help="PostgreSQL server URL: stores in a database of their own")
    parser.add_argument("--thread-ttl-hours", type=float, default=0.05)
    parser.add_argument("--prune-seconds", type=float, default=30.0)
    args = parser.parse_args()
    args.window = args.window or min(60.0, (args.seconds - args.warmup) / 5)
    with tempfile.TemporaryDirectory(prefix="askai-soak-") as temp:
        folder = Path(temp)
        env = {
            "ASKAI_RATE_LIMIT": "",
            "ASKAI_FEEDBACK_PER_MINUTE": "10000",  # every client is 127.0.0.1: one count for all
            "ASKAI_MAX_STREAMS": str(max(64, args.clients * 2)),
            "ASKAI_MAX_CONNECTIONS_PER_CLIENT": str(max(64, args.clients * 2)),  # every client is 127.0.0.1
            "ASKAI_THREAD_TTL_HOURS": str(args.thread_ttl_hours),
            "ASKAI_THREAD_PRUNE_SECONDS": str(args.prune_seconds),
            "ASKAI_INDEX_CACHE_DIR": str(folder / "index-cache"),
            "XDG_DATA_HOME": str(folder / "data"),
        }
        database = None
        if args.postgres:
            import psycopg

            database = f"askai_soak_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(f"{args.postgres}/postgres", autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{database}"')
            env["ASKAI_DATABASE_URL"] = f"{args.postgres}/{database}"
            args.store = "PostgreSQL"

            def disk() -> int:
                with psycopg.connect(f"{args.postgres}/postgres") as admin:
                    return int(admin.execute("SELECT pg_database_size(%s)", (database,)).fetchone()[0])
        else:
            stores = folder / "stores"
            stores.mkdir()
            env["ASKAI_DATABASE_URL"] = f"sqlite:///{stores / 'threads.sqlite'}"
            args.store = "SQLite"

            def disk() -> int:
                return folder_bytes(stores)

        process, base = start_server(env, folder / "serve.log")
        try:
            calls, samples = asyncio.run(soak(base, process.pid, disk, args))
            health = httpx.get(f"{base}/healthz", timeout=10).json().get("threads_pruned", {})
        finally:
            stop_server(process)
            if database is not None:
                with psycopg.connect(f"{args.postgres}/postgres", autocommit=True) as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        report(calls, samples, args, health)
        tracebacks = (folder / "serve.log").read_text(errors="replace").count("Traceback")
        print(f"server log: {tracebacks} tracebacks")


if __name__ == "__main__":
    main()
