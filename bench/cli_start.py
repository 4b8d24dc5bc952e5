"""Start-up cost of ``askai`` as a new process vs a bare LangGraph CLI.

Run: ``.venv/bin/python bench/cli_start.py [--runs N] [--baseline-tree DIR]``. Each round
starts, in turn (interleaved), ``askai --help``, ``askai ask QUESTION`` (offline defaults,
index cached) and a bare script that imports LangGraph, builds a one-node graph, invokes
it and prints the result: the floor any LangGraph command line pays. With
``--baseline-tree`` (a checkout of an earlier commit, e.g. ``git archive main | tar -x -C
DIR``), ``askai ask`` from that tree runs in the same rounds, for a before/after on one
loaded machine. Prints medians (ms) and ratios from this one run.

Each tree's ``askai_graph`` is compiled to bytecode first, as ``pip install`` does: with
``PYTHONDONTWRITEBYTECODE`` set in the environment, every run would otherwise compile
the package's sources again (about 60 ms here), a cost no installed copy pays.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
BARE = """
from typing import TypedDict
from langgraph.graph import END, START, StateGraph
class S(TypedDict):
    question: str
    answer: str
builder = StateGraph(S)
builder.add_node("answer", lambda state: {"answer": state["question"].upper()})
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
print(builder.compile().invoke({"question": "hello", "answer": ""})["answer"])
"""

# Writes __pycache__ beside the sources of the askai_graph this environment imports (-P: not the one in the
# current folder).
COMPILE = "import askai_graph, compileall; compileall.compile_dir(askai_graph.__path__[0], quiet=1)"


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline-tree", type=Path, help="also time `askai ask` from this source tree")
    args = parser.parse_args()
    askai = str(BIN / "askai")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "ASKAI_INDEX_CACHE_DIR": cache}
        cases = {
            "bare LangGraph CLI": [sys.executable, "-c", BARE],
            "askai --help": [askai, "--help"],
            "askai ask": [askai, "ask", "How does BM25 score documents?"],
        }
        envs = {name: env for name in cases}
        if args.baseline_tree:
            cases["askai ask (baseline tree)"] = cases["askai ask"]
            envs["askai ask (baseline tree)"] = {**env, "PYTHONPATH": str(args.baseline_tree.resolve())}
        for name in ("askai ask", "askai ask (baseline tree)"):
            if name in cases:  # compile the tree's bytecode, then build the index
                subprocess.run([sys.executable, "-P", "-c", COMPILE], env=envs[name], check=True, capture_output=True)
                subprocess.run(cases[name], env=envs[name], check=True, capture_output=True)
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, command in cases.items():
                start = time.perf_counter()
                subprocess.run(command, env=envs[name], check=True, capture_output=True)
                samples[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    base = medians["bare LangGraph CLI"]
    print(f"process start, {args.runs} interleaved rounds (median ms; ratio vs the bare LangGraph CLI)")
    for name, value in medians.items():
        print(f"{name:28}{value:10.0f}{value / base:8.2f}x")


if __name__ == "__main__":
    main()
