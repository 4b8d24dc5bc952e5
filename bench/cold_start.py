"""Cold start of hybrid retrieval (``ASKAI_EMBEDDINGS=local``) against BM25, on the CLI and in a server.

Run: ``.venv/bin/python bench/cold_start.py [--runs N] [--baseline-tree DIR] [--server-only]``.
Two tables (``--server-only``: the second alone):

1. **Cold ``askai ask``**: a new process per question, BM25 and hybrid in turn (interleaved),
   over the bundled sample site with its index (and embedding vectors) already cached:
   the cost of every ``askai ask`` after the first. The first-ever hybrid run, which
   embeds the corpus, is printed apart.
2. **First vs tenth answer of a started server**: ``askai serve``'s app on a free
   127.0.0.1 port, hybrid, answer cache off; once ``/healthz`` answers, ten different
   questions through ``POST /api/chat``, each read to its last event. Round ``r`` starts
   at question ``r``: over ten rounds each question is asked first once and tenth once,
   so first and tenth are medians over the same questions. Also printed: the median time
   from the server's spawn to its first ``/healthz`` answer (start-up, where the section
   vectors are now read or embedded), and the ratio first / tenth.

With ``--baseline-tree`` (a checkout of an earlier commit, e.g. ``git archive main | tar
-x -C DIR``), that tree's code runs in the same rounds, for a before/after on one loaded
machine. Prints medians (ms) and ratios from this one run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
QUESTION = "What is hybrid search?"
QUESTIONS = [
    "What is hybrid search?",
    "How does BM25 score documents?",
    "Why cache answers?",
    "How do embeddings find paraphrases?",
    "What does reciprocal rank fusion do?",
    "How are answers streamed to the browser?",
    "What is a source card?",
    "How do I chunk long pages?",
    "What does the critic check?",
    "How is retrieval evaluated?",
]
SERVER = """
import sys, uvicorn
from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.server.serving import bind, uvicorn_config
settings = Settings()
sock = bind("127.0.0.1", 0)
app = create_app(settings=settings)
print(sock.getsockname()[1], flush=True)
uvicorn.Server(uvicorn_config(app, settings, log_level="warning")).run(sockets=[sock])
"""
COMPILE = "import askai_graph, compileall; compileall.compile_dir(askai_graph.__path__[0], quiet=1)"


def cli_rounds(trees: dict[str, Path | None], runs: int, cache: str) -> dict[str, list[float]]:
    """Return seconds per cold ``askai ask``, per (tree, retrieval), interleaved over ``runs`` rounds."""
    base = {**os.environ, "ASKAI_INDEX_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1"}
    envs: dict[str, dict[str, str]] = {}
    for tree, path in trees.items():
        env = {**base, "PYTHONPATH": str(path)} if path else dict(base)
        envs[f"{tree} bm25"] = env
        envs[f"{tree} hybrid"] = {**env, "ASKAI_EMBEDDINGS": "local"}
    command = [str(BIN / "askai"), "ask", QUESTION]
    for name, env in envs.items():  # bytecode as an install has it, then the index and its vectors
        subprocess.run([sys.executable, "-P", "-c", COMPILE], env=env, check=True, capture_output=True)
        if name.endswith("hybrid"):  # once in an empty cache of its own: builds the index, embeds the corpus
            with tempfile.TemporaryDirectory() as empty:
                started = time.perf_counter()
                subprocess.run(command, env={**env, "ASKAI_INDEX_CACHE_DIR": empty}, check=True, capture_output=True)
                print(f"{name}: first-ever run (embeds the corpus) {(time.perf_counter() - started) * 1000:.0f} ms")
        subprocess.run(command, env=env, check=True, capture_output=True)
    samples: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(runs):
        for name, env in envs.items():
            started = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            samples[name].append(time.perf_counter() - started)
    return samples


def ask(port: int, question: str) -> float:
    """Return the seconds ``POST /api/chat`` takes to stream its whole answer."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        started = time.perf_counter()
        client.request(
            "POST", "/api/chat", body=json.dumps({"message": question}), headers={"Content-Type": "application/json"}
        )
        response = client.getresponse()
        body = response.read()
        elapsed = time.perf_counter() - started
    finally:
        client.close()
    if response.status != 200 or not body:
        raise RuntimeError(f"POST /api/chat: {response.status}")
    return elapsed


def server_answers(path: Path | None, cache: str, start: int) -> tuple[float, list[float]]:
    """Return a new hybrid server's seconds to start, and of ten different questions' answers (from ``start`` on).

    Started: from the process' spawn to ``/healthz`` answering (the model loaded, the
    corpus' section vectors read or embedded).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    env |= {
        "ASKAI_INDEX_CACHE_DIR": cache,
        "ASKAI_EMBEDDINGS": "local",
        "ASKAI_CACHE_ENABLED": "false",
        "ASKAI_RUN_LOG": "false",
        "ASKAI_RATE_LIMIT": "10000/minute",
        "HF_HUB_OFFLINE": "1",
    }
    if path:
        env["PYTHONPATH"] = str(path)
    # In the tree's folder: ``python -c`` puts the working folder first on the path, before PYTHONPATH.
    spawned = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], cwd=path or ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        for _ in range(600):  # uvicorn serves a moment after the port is printed
            try:
                client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                client.request("GET", "/healthz")
                client.getresponse().read()
                client.close()
                break
            except OSError:
                client.close()
                time.sleep(0.1)
        started = time.perf_counter() - spawned
        return started, [ask(port, QUESTIONS[(start + n) % len(QUESTIONS)]) for n in range(len(QUESTIONS))]
    finally:
        server.terminate()
        server.wait(20)
        server.stdout.close()  # type: ignore[union-attr]


def cli_table(trees: dict[str, Path | None], runs: int, cache: str) -> None:
    """Time and print cold ``askai ask`` (table 1)."""
    samples = cli_rounds(trees, runs, cache)
    print(f"\ncold `askai ask`, index cached, {runs} interleaved rounds (median ms; hybrid / bm25)")
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    for tree in trees:
        bm25, hybrid = medians[f"{tree} bm25"], medians[f"{tree} hybrid"]
        print(f"{tree:12} bm25 {bm25:8.0f}   hybrid {hybrid:8.0f}   {hybrid / bm25:5.2f}x")


def main() -> None:
    """Measure and print both tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds of cold `askai ask`")
    parser.add_argument("--server-rounds", type=int, default=len(QUESTIONS), help="servers started per tree")
    parser.add_argument("--baseline-tree", type=Path, help="also time this source tree's code")
    parser.add_argument("--server-only", action="store_true", help="only the started server's table")
    args = parser.parse_args()
    trees: dict[str, Path | None] = {"this tree": None}
    if args.baseline_tree:
        trees = {"baseline": args.baseline_tree.resolve(), "this tree": ROOT}
    with tempfile.TemporaryDirectory() as cache:
        if not args.server_only:
            cli_table(trees, args.runs, cache)
        answers: dict[str, list[list[float]]] = {tree: [] for tree in trees}
        starts: dict[str, list[float]] = {tree: [] for tree in trees}
        for start in range(args.server_rounds):
            for tree, path in trees.items():
                started, times = server_answers(path, cache, start)
                starts[tree].append(started)
                answers[tree].append(times)
    print(
        f"\nhybrid server, answers 1 and 10 after start, {args.server_rounds} interleaved rounds "
        "(median ms; first / tenth)"
    )
    for tree, rounds in answers.items():
        first = statistics.median(r[0] for r in rounds) * 1000
        tenth = statistics.median(r[9] for r in rounds) * 1000
        rest = statistics.median(statistics.median(r[1:]) for r in rounds) * 1000
        began = statistics.median(starts[tree]) * 1000
        print(f"{tree:12} start {began:8.0f}   first {first:8.0f}   tenth {tenth:8.0f}   2nd-10th {rest:8.0f}"
              f"   first / tenth {first / tenth:5.2f}x")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end ({os.cpu_count()} cpus)")


if __name__ == "__main__":
    main()
