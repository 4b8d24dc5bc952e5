"""Whether a refused follow-up tells a stranger anything: the 404 of a wrong token vs an unknown id.

Run: ``.venv/bin/python bench/thread_token_refusal.py [--runs N]``.

A real ``askai serve`` app (uvicorn on 127.0.0.1, threads in a SQLite file in a
temporary folder, the bundled sample site) answers three questions on one thread, so
the thread has a checkpoint with history. Then, interleaved so machine load hits them
alike, it is sent follow-ups that must all be refused with the same 404: a thread id
nobody issued, the real id with a wrong token, and the real id with no token. Prints
the median and p90 response time of each and the ratios to the unknown id: a ratio
near 1 is the point (the thread is stored under a hash of id and token, so a wrong
token is one index lookup that finds nothing, like an unknown id).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from askai_graph import Settings  # noqa: E402
from askai_graph.server import create_app  # noqa: E402
from askai_graph.stores.thread_tokens import new_thread_token  # noqa: E402

QUESTIONS = ["What is BM25?", "How do I tune its parameters?", "What does k1 change?"]


def serve(settings: Settings) -> tuple[uvicorn.Server, str]:
    """Start the app on a free port in a thread; return the server and its URL."""
    config = uvicorn.Config(create_app(settings=settings), host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"


def ask(client: httpx.Client, base: str, body: dict[str, str]) -> tuple[int, str, dict[str, str]]:
    """POST ``body``; return the status, the body text and the ``done`` event's data (if any)."""
    response = client.post(f"{base}/api/chat", json=body)
    done = {}
    if response.status_code == 200:
        import json

        last = [line for line in response.text.splitlines() if line.startswith("data: ")][-1]
        done = json.loads(last[6:])
    return response.status_code, response.text, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="refusals per case (default 200)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{Path(folder) / 'threads.sqlite'}", rate_limit="")
        server, base = serve(settings)
        try:
            with httpx.Client(timeout=30) as client:
                _, _, done = ask(client, base, {"message": QUESTIONS[0]})
                owned = {"thread_id": done["thread_id"], "thread_token": done["thread_token"]}
                for question in QUESTIONS[1:]:
                    assert ask(client, base, {"message": question, **owned})[0] == 200
                cases = {
                    "unknown id": lambda: {"thread_id": str(uuid.uuid4()), "thread_token": new_thread_token()},
                    "wrong token": lambda: {"thread_id": owned["thread_id"], "thread_token": new_thread_token()},
                    "no token": lambda: {"thread_id": owned["thread_id"]},
                }
                times: dict[str, list[float]] = {name: [] for name in cases}
                bodies: set[str] = set()
                for _ in range(args.runs):
                    for name, body in cases.items():
                        start = time.perf_counter()
                        status, text, _ = ask(client, base, {"message": "And its defaults?", **body()})
                        times[name].append((time.perf_counter() - start) * 1000)
                        assert status == 404, (name, status, text)
                        bodies.add(text)
        finally:
            server.should_exit = True
    base_median = statistics.median(times["unknown id"])
    print(f"404 bodies seen: {len(bodies)} (one means every refusal reads the same)")
    print(f"{'case':<12} {'median ms':>10} {'p90 ms':>8} {'ratio':>6}")
    for name, samples in times.items():
        median, p90 = statistics.median(samples), statistics.quantiles(samples, n=10)[-1]
        print(f"{name:<12} {median:>10.2f} {p90:>8.2f} {median / base_median:>6.2f}")


if __name__ == "__main__":
    main()
