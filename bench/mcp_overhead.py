"""One answer through ``/mcp`` (``ask_docs``) vs through ``POST /api/chat`` (SSE), on one real server.

Starts ``askai serve`` on a free port (offline models, the bundled corpus, the answer
cache and rate limit off, so every question runs the graph) and asks the same questions
alternately over each face, one at a time: an SSE stream read to ``done``, and an
``ask_docs`` call on one MCP client session. Prints the median seconds of each and their
ratio, and the time to import the MCP SDK in a fresh process (what ``askai serve`` and
``askai mcp`` pay once at start).

    .venv/bin/python bench/mcp_overhead.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.live import AskaiServe  # noqa: E402

QUESTIONS = ["How does BM25 rank documents?", "What is semantic caching?", "How do I stream tokens with SSE?"]


async def sse_answer(client: httpx.AsyncClient, base: str, question: str) -> float:
    started = time.perf_counter()
    async with client.stream("POST", f"{base}/api/chat", json={"message": question}) as response:
        async for line in response.aiter_lines():
            if line == "event: done":
                break
    return time.perf_counter() - started


async def rounds(base: str, count: int) -> dict[str, list[float]]:
    from mcp import Client

    times: dict[str, list[float]] = {"sse": [], "mcp": []}
    async with httpx.AsyncClient(timeout=60) as http, Client(f"{base}/mcp") as mcp:
        for n in range(count):
            question = f"{QUESTIONS[n % len(QUESTIONS)]} ({n})"
            times["sse"].append(await sse_answer(http, base, question))
            started = time.perf_counter()
            reply = await mcp.call_tool("ask_docs", {"question": question})
            assert not reply.is_error, reply.content
            times["mcp"].append(time.perf_counter() - started)
    return times


def sdk_import_seconds(runs: int = 5) -> float:
    code = "import time; t = time.perf_counter(); import mcp.server.mcpserver; print(time.perf_counter() - t)"
    return statistics.median(
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"ASKAI_CACHE_ENABLED": "false", "ASKAI_RATE_LIMIT": "", "ASKAI_INDEX_CACHE_DIR": f"{tmp}/bm25",
               "ASKAI_DATABASE_URL": f"sqlite:///{tmp}/threads.sqlite"}
        with AskaiServe(env, Path(tmp) / "serve.log") as base:
            asyncio.run(rounds(base, 3))  # warm-up
            times = asyncio.run(rounds(base, args.rounds))
    sse, mcp = statistics.median(times["sse"]), statistics.median(times["mcp"])
    print(f"answer via POST /api/chat (SSE to done): median {sse * 1000:.1f} ms")
    print(f"answer via /mcp ask_docs:                median {mcp * 1000:.1f} ms   ratio {mcp / sse:.2f}x")
    print(f"importing the MCP SDK (fresh process):   median {sdk_import_seconds() * 1000:.0f} ms")


if __name__ == "__main__":
    main()
