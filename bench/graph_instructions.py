"""Instructions per offline question through the Ask AI graph vs a bare graph of the same shape.

Run: ``.venv/bin/python bench/graph_instructions.py [--invokes N]`` (needs valgrind).
Wall time on a shared machine measures the machine as much as the code (see
``graph_overhead.py``); valgrind's callgrind counts the instructions a process runs,
the same whatever else the machine is doing. Each graph runs in two processes under
callgrind, one answering ``N`` questions and one answering none, after the same warm-up;
the difference over ``N`` is one question's instructions. ``PYTHONHASHSEED=0`` keeps the
two processes' start-up identical (with random string hashing it differs by hundreds of
millions of instructions). Slow: about four minutes a process on one core.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WARM_UP = 10


def run_child(case: str, invokes: int) -> None:
    """Build ``case``'s graph, warm it up, then answer ``invokes`` questions (what callgrind counts)."""
    from graph_overhead import QUESTIONS, same_shape_graph

    from askai_graph import Settings, build_graph

    with tempfile.TemporaryDirectory() as cache:
        graph = same_shape_graph() if case == "shape" else build_graph(settings=Settings(index_cache_dir=Path(cache)))
        for i in range(WARM_UP + invokes):
            graph.invoke({"question": QUESTIONS[i % len(QUESTIONS)]})


def instructions(case: str, invokes: int) -> int:
    """Return the instructions callgrind counted in a child process answering ``invokes`` questions."""
    with tempfile.TemporaryDirectory() as out:
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out",
            sys.executable, __file__, "--child", case, "--invokes", str(invokes),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--invokes", type=int, default=20)
    parser.add_argument("--child", choices=["shape", "askai"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_child(args.child, args.invokes)
        return
    if shutil.which("valgrind") is None:  # `make bench` runs every script: say so and go on
        print("skipped: graph_instructions.py needs valgrind (Debian/Ubuntu: apt-get install valgrind)")
        return
    per_question = {
        case: (instructions(case, args.invokes) - instructions(case, 0)) / args.invokes for case in ("shape", "askai")
    }
    print(f"instructions per question, {args.invokes} questions minus none, PYTHONHASHSEED=0 (millions)")
    print(f"{'askai-graph':>12}{'same shape':>12}{'ratio':>8}")
    shape, askai = per_question["shape"], per_question["askai"]
    print(f"{askai / 1e6:12.2f}{shape / 1e6:12.2f}{askai / shape:7.2f}x")


if __name__ == "__main__":
    main()
