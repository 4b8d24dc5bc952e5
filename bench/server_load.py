"""Load on POST /api/chat: N concurrent SSE clients against askai serve vs a bare SSE ceiling.

Run: ``.venv/bin/python bench/server_load.py [--levels 50,200] [--seconds 4] [--capacity 8]
[--phases load,overload,workers,shared-cache]``. Loopback only, every loop bounded in
time; about 2 minutes with the defaults on 2 cores. The ``load`` and ``overload`` phases
start four servers, each a uvicorn subprocess on a free 127.0.0.1 port (so the clients,
in this process, do not share a GIL with them):

- ``askai``: ``create_app`` over the bundled sample site, offline writer and critic,
  semantic cache *off*, so every request runs the whole graph;
- ``askai+cache``: the same with the cache on, warmed with the accepted questions, then
  asked paraphrases of them (every request should be a hit);
- ``bare``: a FastAPI endpoint with the same SSE stack (sse-starlette) that streams a
  fixed 1,000-character answer in the same ``token`` chunks, then ``done``: the ceiling;
- ``askai+limits``: cache off, ``max_streams`` = ``--capacity``, a per-client rate limit
  (``--rate``), and 127.0.0.1 as a trusted proxy, so each simulated user is a distinct
  client by its ``X-Forwarded-For`` (TEST-NET addresses: a header value, never contacted).

The first two askai servers run with the stream cap and rate limit off: they measure
throughput, not refusals.

For each concurrency level, each of N clients asks back to back for ``--seconds`` (one
keep-alive connection per client, a minimal asyncio SSE client so the client is never the
bottleneck) over a mixed question set (accepted, catalog early acceptance, degraded,
fallback). It prints throughput (answers/s), p50/p99 time to the first ``token`` event,
the server's CPU milliseconds per answer (its process's user + system time over the level,
which background load on a shared machine hardly moves, unlike answers/s), errors
(non-200, ``error`` events, a missing ``done``, transport failures, timeouts), the
cache-hit p50 time to first byte (the first SSE event: a hit streams tokens at once), the
client's own CPU share, and the ratios to the bare ceiling measured in the same run.

The overload phase runs ``--capacity`` users (the server at capacity, nothing refused:
the baseline) and 3x as many against ``askai+limits``, in three alternating rounds whose
samples are pooled per level (background load on a shared machine drifts). A refused user (503 or 429)
waits ``--retry-pause`` (50 ms) and asks again (far sooner than ``Retry-After``, to keep
the pressure on). It
prints answers/s, the share of requests refused with 503 and with 429, and the p99 time
to first token of the *admitted* requests next to the baseline's: admission control
should keep it near the baseline instead of growing with the offered load.

The ``workers`` and ``shared-cache`` phases run the real ``askai serve`` as deployed for
several workers: threads in a PostgreSQL database of their own (created on
``ASKAI_TEST_POSTGRES``, default ``postgresql://postgres@127.0.0.1:5432``, and dropped),
and a ``redis-server`` of their own on a free port (``ASKAI_CACHE_URL``, which also
counts the stream cap across workers).

- ``workers``: cache off, ``askai serve --workers 1`` and ``--workers 2`` side by side;
  ``--worker-clients`` users (16) ask the mixed set, alternating between the two
  servers for ``WORKER_ROUNDS`` rounds. It prints each one's median answers/s over the
  rounds and the ratio 2 workers / 1 worker, of the medians and the median of each
  round's ratio (the ceiling is the cores the machine gives them).
- ``shared-cache``: one worker with the cache in process and one with it in Redis, both
  warmed with the same question; one client then asks it of each in turn ``--hits``
  times. It prints each store's median time to the first byte of the hit and the ratio
  Redis / in process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from httpx_sse import aconnect_sse  # noqa: E402
from sse_starlette import EventSourceResponse, ServerSentEvent  # noqa: E402

MIXED = [
    "What is semantic caching?",
    "How does BM25 rank documents?",
    "What is reciprocal rank fusion?",
    "How do I evaluate retrieval with MRR and nDCG?",
    "How should I chunk documents for retrieval?",
    "What is prompt injection?",
    "How do cross-encoder rerankers work?",
    "How do I handle client disconnects?",
    "What course articles do you have?",
    "List all the posts",
    "How do I deploy BM25 on Kubernetes with Redis?",
    "How do I cache embeddings in Postgres?",
    "How do I bake sourdough bread?",
    "What is the capital of France?",
]
ACCEPTED = MIXED[:8]
PARAPHRASES = [
    "semantic caching -- what is it?",
    "BM25: how does it rank documents",
    "reciprocal rank fusion, what is it",
    "How should retrieval be evaluated with nDCG and MRR?",
    "how do you chunk documents for retrieval?",
    "PROMPT INJECTION: WHAT IS IT?",
    "how does a cross-encoder reranker work",
    "handling client disconnects: how?",
]
FIXED_ANSWER = (
    "A semantic cache stores accepted answers keyed by the embedding of the question and "
    "returns a cached answer when a new question is similar enough. "
) * 7
PHASE_TIMEOUT = 60.0
CAPACITY = 8
RATE = "120/minute"
retry_pause = 0.05


# --- the servers (child processes) -------------------------------------------------------


def bare_app() -> Any:
    """A FastAPI SSE endpoint streaming a fixed answer: the same stack minus askai-graph."""
    from askai_graph.server.answers.events import token_chunks

    app = FastAPI()

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/api/chat", response_model=None)
    async def chat(request: Request) -> EventSourceResponse:
        await request.json()

        async def stream() -> AsyncIterator[ServerSentEvent]:
            n = 0
            for n, text in enumerate(token_chunks(FIXED_ANSWER, 24), start=1):
                yield ServerSentEvent(event="token", data=json.dumps({"text": text}), id=str(n), sep="\n")
            done = {"outcome": "accepted", "attempts": 1, "cached": False, "gates": {}}
            yield ServerSentEvent(event="done", data=json.dumps(done), id=str(n + 1), sep="\n")

        return EventSourceResponse(stream(), sep="\n")

    return app


def serve(kind: str, port: int, index_cache: str, capacity: int = CAPACITY, rate: str = RATE) -> None:
    """Child process: run one server until terminated."""
    import uvicorn

    if kind == "bare":
        app = bare_app()
    else:
        from askai_graph import Settings
        from askai_graph.server import create_app
        from askai_graph.server.serving import uvicorn_config

        if kind == "askai+limits":
            limits = {"max_streams": capacity, "rate_limit": rate, "trusted_proxies": "127.0.0.1"}
        else:
            # Every simulated user connects from 127.0.0.1: one address, not capped per client here.
            limits = {"max_streams": 100_000, "rate_limit": "", "max_connections_per_client": 100_000}
        settings = Settings(index_cache_dir=Path(index_cache), cache_enabled=kind == "askai+cache", **limits)
        app = create_app(settings=settings)
        config = uvicorn_config(app, settings, host="127.0.0.1", port=port, log_level="warning", access_log=False)
        uvicorn.Server(config).run()
        return
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, ws="none")


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(kind: str, index_cache: str, capacity: int, rate: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, __file__, "--serve", kind, "--port", str(port), "--index-cache", index_cache,
               "--capacity", str(capacity), "--rate", rate]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    process = subprocess.Popen(command, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{kind} server did not start")


# --- the clients --------------------------------------------------------------------------


@dataclass
class Result:
    """One level's measurements."""

    seconds: float = 0.0
    answers: int = 0
    errors: int = 0
    first_event: list[float] = field(default_factory=list)
    first_token: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    cached: int = 0
    client_cpu: float = 0.0
    refused: Counter[int] = field(default_factory=Counter)


class Refused(Exception):
    """The server answered with a status other than 200 (503, 429...)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Connection:
    """A minimal keep-alive HTTP/1.1 SSE client on raw asyncio streams.

    httpx + httpx-sse (what the tests use) cost the client more CPU than the bare server
    spends, which would cap the ceiling at the client's speed; this reads chunked SSE
    with a few string operations per chunk.
    """

    def __init__(self, host: str, port: int, forwarded_for: str | None = None) -> None:
        self.host, self.port = host, port
        self.forwarded = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def ask(self, question: str) -> AsyncIterator[tuple[str, str]]:
        """POST the question; yield ``(event, data)`` as each SSE event completes."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        body = json.dumps({"message": question}).encode()
        head = (
            f"POST /api/chat HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{self.forwarded}\r\n"
        )
        self.writer.write(head.encode() + body)
        status = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        if b" 200 " not in status:
            await self.reader.readexactly(length)  # a JSON refusal: read it, keep the connection
            raise Refused(int(status.split(b" ", 2)[1]))
        buffer = ""
        while True:
            size = int((await self.reader.readline()).strip(), 16)
            chunk = await self.reader.readexactly(size + 2)
            if size == 0:
                return
            buffer += chunk[:-2].decode().replace("\r\n", "\n")
            *blocks, buffer = buffer.split("\n\n")
            for block in blocks:
                fields = dict(line.split(": ", 1) for line in block.split("\n") if line and line[0] != ":")
                if "event" in fields:
                    yield fields["event"], fields.get("data", "")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def one_request(connection: Connection, question: str, result: Result) -> None:
    started = time.perf_counter()
    first_event = first_token = None
    done: dict[str, Any] | None = None
    try:
        async for event, data in connection.ask(question):
            now = time.perf_counter() - started
            first_event = now if first_event is None else first_event
            if event == "token" and first_token is None:
                first_token = now
            elif event == "done":
                done = json.loads(data)
    except Refused as refusal:
        result.refused[refusal.status] += 1
        await asyncio.sleep(retry_pause)
        return
    except (OSError, ValueError, asyncio.IncompleteReadError):
        connection.close()
        connection.writer = None
    if done is None or first_event is None or first_token is None:
        return  # counted as an error: a failure, an ``error`` event or a missing ``done``
    result.answers += 1
    result.first_event.append(first_event)
    result.first_token.append(first_token)
    result.outcomes[done["outcome"]] += 1
    result.cached += bool(done["cached"])


async def load(base: str, questions: list[str], clients: int, seconds: float, *, distinct: bool = False) -> Result:
    """Run ``clients`` users, each on its own keep-alive connection, asking back to back for ``seconds``.

    With ``distinct``, each user names itself by ``X-Forwarded-For`` (a TEST-NET address).
    """
    result = Result()
    host, port = base.removeprefix("http://").split(":")
    deadline = time.perf_counter() + seconds
    sent = 0

    async def user(number: int) -> None:
        nonlocal sent
        connection = Connection(host, int(port), f"192.0.2.{number % 250 + 1}" if distinct else None)
        try:
            turn = 0
            while time.perf_counter() < deadline:
                sent += 1
                await one_request(connection, questions[(number + turn) % len(questions)], result)
                turn += 1
        finally:
            connection.close()

    started, cpu = time.perf_counter(), time.process_time()
    tasks = [asyncio.create_task(user(n)) for n in range(clients)]
    _, pending = await asyncio.wait(tasks, timeout=seconds + PHASE_TIMEOUT)
    for task in pending:
        task.cancel()
    result.seconds = time.perf_counter() - started
    result.client_cpu = (time.process_time() - cpu) / result.seconds
    # Failed, an ``error`` event, no ``done``, or timed out; a refusal is counted apart.
    result.errors = sent - result.answers - sum(result.refused.values())
    return result


def pct(samples: list[float], q: float) -> float:
    """The q-th percentile in milliseconds (nearest rank)."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))] * 1000


def report(name: str, result: Result) -> str:
    throughput = result.answers / result.seconds if result.seconds else 0.0
    return (
        f"  {name:<24} {throughput:8.1f} answers/s   first token p50 {pct(result.first_token, 50):7.1f} ms"
        f"  p99 {pct(result.first_token, 99):7.1f} ms   errors {result.errors}   client cpu {result.client_cpu:4.0%}"
    )


ROUNDS = 3


def merge(into: Result, result: Result) -> None:
    """Pool ``result``'s samples and counts into ``into``."""
    into.seconds += result.seconds
    into.answers += result.answers
    into.errors += result.errors
    into.first_event += result.first_event
    into.first_token += result.first_token
    into.outcomes.update(result.outcomes)
    into.refused.update(result.refused)
    into.cached += result.cached
    into.client_cpu = max(into.client_cpu, result.client_cpu)


async def overload(base: str, capacity: int, seconds: float, rate: str) -> None:
    """Offer 1x then 3x the stream capacity; compare admitted first-token p99 (see module docstring)."""
    # Alternate the levels and pool each one's samples: on a shared machine, background
    # load drifts, and measuring one level after the other would bias the ratio.
    at_capacity, over = Result(), Result()
    for _ in range(ROUNDS):
        for pooled, users in ((at_capacity, capacity), (over, 3 * capacity)):
            merge(pooled, await load(base, MIXED, users, seconds / ROUNDS, distinct=True))
    print(f"\noverload: max_streams {capacity}, rate limit {rate} per client, {seconds:g} s per level"
          f" in {ROUNDS} alternating rounds")  # fmt: skip
    for name, result in (("1x capacity (baseline)", at_capacity), ("3x capacity", over)):
        sent = result.answers + result.errors + sum(result.refused.values())
        share = {status: result.refused[status] / sent if sent else 0.0 for status in (503, 429)}
        print(
            f"  {name:<24} {result.answers / result.seconds:8.1f} answers/s   refused 503 {share[503]:6.1%}"
            f"  429 {share[429]:6.1%}   admitted first token p50 {pct(result.first_token, 50):7.1f} ms"
            f"  p99 {pct(result.first_token, 99):7.1f} ms   errors {result.errors}"
            f"   client cpu {result.client_cpu:4.0%}"
        )
    ratio = pct(over.first_token, 99) / pct(at_capacity.first_token, 99)
    print(f"  admitted p99 first token at 3x / at 1x: {ratio:.2f}")


def cpu_per_answer(pid: int, result: Result, used_before: float) -> float:
    """Server CPU milliseconds per answer since ``used_before`` (``tree_cpu_seconds``)."""
    return (tree_cpu_seconds(pid) - used_before) * 1000 / result.answers if result.answers else float("nan")


async def measured(base: str, pid: int, questions: list[str], clients: int, seconds: float) -> tuple[Result, float]:
    """``load`` one server; also return its CPU milliseconds per answer (a figure background load hardly moves)."""
    used = tree_cpu_seconds(pid)
    result = await load(base, questions, clients, seconds)
    return result, cpu_per_answer(pid, result, used)


async def run(levels: list[int], seconds: float, bases: dict[str, str], pids: dict[str, int]) -> None:
    async with httpx.AsyncClient(timeout=30) as client:  # warm the cache with accepted answers
        for question in ACCEPTED:
            url = f"{bases['askai+cache']}/api/chat"
            async with aconnect_sse(client, "POST", url, json={"message": question}) as source:
                async for _ in source.aiter_sse():
                    pass
    for clients in levels:
        bare, bare_cpu = await measured(bases["bare"], pids["bare"], MIXED, clients, seconds)
        askai, askai_cpu = await measured(bases["askai"], pids["askai"], MIXED, clients, seconds)
        hits, hits_cpu = await measured(bases["askai+cache"], pids["askai+cache"], PARAPHRASES, clients, seconds)
        print(f"\n{clients} concurrent clients, each asking back to back for {seconds:g} s per server")
        print(report("bare SSE (ceiling)", bare) + f"   server cpu {bare_cpu:.2f} ms/answer")
        print(report("askai, cache off", askai) + f"   server cpu {askai_cpu:.2f} ms/answer"
              f"   outcomes {dict(askai.outcomes)}")  # fmt: skip
        print(report("askai, cache hits", hits) + f"   server cpu {hits_cpu:.2f} ms/answer"
              f"   hits {hits.cached}/{hits.answers}")  # fmt: skip
        print(
            f"  cache-hit first byte p50 {pct(hits.first_event, 50):.1f} ms"
            f" (bare {pct(bare.first_event, 50):.1f} ms)"
        )
        print(
            "  ratios to bare: throughput "
            f"{askai.answers / askai.seconds / (bare.answers / bare.seconds):.2f} (graph), "
            f"{hits.answers / hits.seconds / (bare.answers / bare.seconds):.2f} (cache hits); "
            f"p50 first token {pct(askai.first_token, 50) / pct(bare.first_token, 50):.1f}x (graph), "
            f"{pct(hits.first_event, 50) / pct(bare.first_event, 50):.1f}x (cache-hit first byte); "
            f"server cpu per answer {askai_cpu / bare_cpu:.2f}x (graph), {hits_cpu / bare_cpu:.2f}x (cache hits)"
        )


# --- several workers: askai serve on PostgreSQL and Redis --------------------------------


WORKER_ROUNDS = 5


async def workers_phase(servers: dict[int, tuple[str, int]], clients: int, seconds: float) -> None:
    """Answers/s of 1 vs 2 workers, cache off, interleaved rounds (see module docstring).

    ``servers`` maps a worker count to the server's URL and the ``askai serve`` parent pid.
    """
    rates: dict[int, list[float]] = {1: [], 2: []}
    errors, answers, cpu = dict.fromkeys(rates, 0), dict.fromkeys(rates, 0), dict.fromkeys(rates, 0.0)
    load_before = os.getloadavg()[0]
    for _ in range(WORKER_ROUNDS):
        for workers, (base, pid) in servers.items():
            used = tree_cpu_seconds(pid)
            result = await load(base, MIXED, clients, seconds)
            cpu[workers] += tree_cpu_seconds(pid) - used
            rates[workers].append(result.answers / result.seconds)
            errors[workers] += result.errors
            answers[workers] += result.answers
    print(f"\nworkers: cache off, threads in PostgreSQL, {clients} clients, {seconds:g} s x {WORKER_ROUNDS} rounds"
          f" (load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after,"
          f" {os.cpu_count()} cpus)")  # fmt: skip
    for workers, samples in rates.items():
        rounds = " ".join(f"{rate:.1f}" for rate in samples)
        per_answer = cpu[workers] / answers[workers] if answers[workers] else float("nan")
        print(f"  askai serve --workers {workers}   median {statistics.median(samples):6.1f} answers/s"
              f"   (rounds {rounds})   errors {errors[workers]}"
              f"   server CPU {per_answer * 1000:.1f} ms/answer"
              f" = {1 / per_answer:.0f} answers/s per busy core")  # fmt: skip
    ratio = statistics.median(rates[2]) / statistics.median(rates[1])
    # Each round's pair ran back to back: its ratio is the least exposed to drifting background load.
    paired = statistics.median(two / one for one, two in zip(rates[1], rates[2], strict=True))
    print(f"  ratio 2 workers / 1 worker: {ratio:.2f} of the medians, {paired:.2f} median of the rounds'")


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its live children (Linux ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def shared_cache_phase(bases: dict[str, str], hits: int) -> None:
    """Cache-hit time to first byte, Redis store vs in process, interleaved (see module docstring)."""
    question = ACCEPTED[0]
    times: dict[str, list[float]] = {store: [] for store in bases}
    cached = dict.fromkeys(bases, 0)
    connections = {store: Connection(*_host_port(base)) for store, base in bases.items()}
    try:
        for connection in connections.values():  # store the answer
            async for _ in connection.ask(question):
                pass
        for _ in range(hits):
            for store, connection in connections.items():
                result = Result()
                await one_request(connection, question, result)
                times[store] += result.first_event
                cached[store] += result.cached
    finally:
        for connection in connections.values():
            connection.close()
    print(f"\nshared cache: time to first byte of a cache hit, {hits} requests per store, alternating")
    for store, samples in times.items():
        print(f"  cache {store:<12} median {statistics.median(samples) * 1000:6.2f} ms"
              f"   p99 {pct(samples, 99):6.2f} ms   hits {cached[store]}/{len(samples)}")  # fmt: skip
    ratio = statistics.median(times["in Redis"]) / statistics.median(times["in process"])
    print(f"  ratio Redis / in process: {ratio:.2f}")


def _host_port(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


@contextlib.contextmanager
def deployed_engines() -> Iterator[dict[str, str]]:
    """A PostgreSQL database and a redis-server of this run's own; yields the askai env for them."""
    import psycopg

    from tests.redis_server import RedisServer

    postgres = os.environ.get("ASKAI_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
    name = f"askai_bench_{uuid.uuid4().hex[:12]}"
    with tempfile.TemporaryDirectory() as folder:
        redis = RedisServer(Path(folder))
        redis.start()
        try:
            with psycopg.connect(f"{postgres}/postgres", autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
                try:
                    yield {
                        "ASKAI_DATABASE_URL": f"{postgres}/{name}",
                        "ASKAI_CACHE_URL": redis.url,
                        "ASKAI_INDEX_CACHE_DIR": str(Path(folder) / "index"),
                        "ASKAI_RATE_LIMIT": "",
                        "ASKAI_MAX_STREAMS": "100000",
                        "ASKAI_MAX_CONNECTIONS_PER_CLIENT": "100000",  # every user is 127.0.0.1
                        "ASKAI_RUN_LOG": "false",
                    }
                finally:
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            redis.stop()


def scale_out(phases: set[str], clients: int, seconds: float, hits: int) -> None:
    """Run the ``workers`` and ``shared-cache`` phases against real ``askai serve`` processes."""
    from tests.live import AskaiServe

    log = Path(os.environ.get("ASKAI_BENCH_LOG", os.devnull))
    with deployed_engines() as env, contextlib.ExitStack() as stack:
        if "workers" in phases:
            off = env | {"ASKAI_CACHE_ENABLED": "false"}
            serves = {n: AskaiServe(off, log, "--workers", str(n)) for n in (1, 2)}
            servers = {n: (stack.enter_context(serve), serve.process.pid) for n, serve in serves.items()}
            asyncio.run(workers_phase(servers, clients, seconds))
            stack.close()
        if "shared-cache" in phases:
            local = {name: value for name, value in env.items() if name != "ASKAI_CACHE_URL"}
            stores = {"in process": AskaiServe(local, log), "in Redis": AskaiServe(env, log)}
            asyncio.run(shared_cache_phase({store: stack.enter_context(s) for store, s in stores.items()}, hits))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="50,200", help="comma-separated client counts")
    parser.add_argument("--seconds", type=float, default=4.0, help="load duration per server and level")
    parser.add_argument("--capacity", type=int, default=CAPACITY, help="max_streams of the overload server")
    parser.add_argument("--rate", default=RATE, help="per-client rate limit of the overload server")
    parser.add_argument("--retry-pause", type=float, default=0.05, help="seconds a refused user waits to ask again")
    parser.add_argument(
        "--phases", default="load,overload,workers,shared-cache", help="which phases to run (comma separated)"
    )
    parser.add_argument("--worker-clients", type=int, default=16, help="concurrent clients of the workers phase")
    parser.add_argument("--hits", type=int, default=300, help="cache hits timed per store (shared-cache phase)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--index-cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global retry_pause
    retry_pause = args.retry_pause
    if args.serve:
        serve(args.serve, args.port, args.index_cache, args.capacity, args.rate)
        return
    levels = [int(level) for level in args.levels.split(",")]
    phases = set(args.phases.split(","))
    kinds = (["askai", "askai+cache", "bare"] if "load" in phases else []) + (
        ["askai+limits"] if "overload" in phases else []
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as index_cache:
        servers = {kind: start(kind, index_cache, args.capacity, args.rate) for kind in kinds}
        try:
            if servers:
                names = ", ".join(f"{kind} {base}" for kind, (_, base) in servers.items())
                print(f"servers: {names} ({os.cpu_count()} cpus)")
            bases = {kind: base for kind, (_, base) in servers.items()}
            if "load" in phases:
                pids = {kind: process.pid for kind, (process, _) in servers.items()}
                asyncio.run(run(levels, args.seconds, bases, pids))
            if "overload" in phases:
                asyncio.run(overload(bases["askai+limits"], args.capacity, max(args.seconds, 9.0), args.rate))
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(10)
    if phases & {"workers", "shared-cache"}:
        scale_out(phases, args.worker_clients, max(args.seconds, 5.0), args.hits)
    print(f"\ntotal {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
