"""How ``askai index`` and a built index scale: 1k, 10k and 100k synthetic pages.

Run: ``.venv/bin/python bench/index_scale.py [--sizes 1000,10000,100000] [--baseline-max 10000]``.

For each size it writes a synthetic Markdown docs tree (nested folders, front matter
with title/date/weight, ~300 words in three sections, so some pages split into
passages) and prints, each step in a fresh process so peak RSS is that step's own:

- cold build: ``askai index`` into an empty folder (seconds, CPU seconds, peak RSS);
- incremental build with 1% of the pages changed (seconds, and its ratio to cold);
- retriever p50 per query over the built index (200 queries of 2-4 site words);
- ``askai serve`` over the built index: seconds from start until ``/healthz`` answers,
  next to the same for the bundled 26-page sample (the floor: process start, imports);
- baseline (sizes up to ``--baseline-max``): the same site loaded on the fly from its
  source folder (``ASKAI_CORPUS=SOURCE``: parse, tokenise, index in memory), seconds
  and peak RSS, and the ratio of the built index's start-up to it.

Targets at 100k pages: build <= 60 s, peak RSS <= 2 GB, p50 <= 10 ms, incremental 1%
<= 10% of cold, /healthz <= 2 s.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

_BUILD = """
import json, resource, sys, time
from pathlib import Path
from askai_graph.indexing import build_index
started, cpu = time.perf_counter(), time.process_time()
summary = build_index(Path(sys.argv[1]), Path(sys.argv[2]), base_url="https://bench.example/")
print(json.dumps({"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
                  "parsed": summary.parsed, "posts": summary.posts,
                  "passages": summary.passages, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_QUERY = """
import json, random, resource, statistics, sys, time
from pathlib import Path
from askai_graph import load_corpus
from askai_graph.retrieval.pages import BM25Retriever
started = time.perf_counter()
retriever = BM25Retriever(corpus=load_corpus(Path(sys.argv[1])), k=6)
opened = time.perf_counter() - started
words = sys.argv[2].split()
rng = random.Random(7)
queries = [" ".join(rng.sample(words, rng.randint(2, 4))) for _ in range(200)]
for query in queries[:10]:
    retriever.invoke(query)
times = []
for query in queries:
    t = time.perf_counter()
    retriever.invoke(query)
    times.append((time.perf_counter() - t) * 1000)
print(json.dumps({"open_seconds": opened, "p50_ms": statistics.median(times),
                  "p95_ms": sorted(times)[int(len(times) * 0.95)],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_ON_THE_FLY = """
import json, resource, sys, time
from pathlib import Path
from askai_graph import load_corpus
from askai_graph.retrieval.pages import BM25Retriever
started = time.perf_counter()
corpus = load_corpus(Path(sys.argv[1]), base_url="https://bench.example/")
BM25Retriever(corpus=corpus, k=6, cache_dir=Path(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - started,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SECTIONS = ["Overview", "Configuration", "Troubleshooting", "Examples", "Limits", "Security", "Upgrading"]


def site_words(count: int = 6000) -> list[str]:
    rng = random.Random(1)
    syllables = ["ka", "lo", "mi", "ter", "van", "sol", "rin", "dex", "pra", "tu", "gor", "bel", "qui", "nos"]
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def write_site(root: Path, pages: int, words: list[str]) -> None:
    rng = random.Random(pages)
    # Zipf-like word frequencies, as in real text (cumulative once: choices() is then O(log n)).
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    for n in range(pages):
        folder = root / f"section-{n % 50:02d}" / f"topic-{(n // 50) % 40:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            "---",
            f'title: "Page {n}: {" ".join(rng.choices(words, cum_weights=cumulative, k=3))}"',
            f"date: 20{10 + n % 15:02d}-{1 + n % 12:02d}-{1 + n % 28:02d}" if n % 3 else f"weight: {n % 100}",
            "---",
            "",
        ]
        for heading in rng.sample(SECTIONS, 3):
            lines.append(f"## {heading}\n")
            for _ in range(rng.randint(4, 8)):
                sentence = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(8, 16)))
                lines.append(sentence.capitalize() + ".")
            lines.append("")
        (folder / f"page-{n}.md").write_text("\n".join(lines), "utf-8")


def touch_one_percent(root: Path, pages: int) -> None:
    for n in range(0, pages, 100):
        path = root / f"section-{n % 50:02d}" / f"topic-{(n // 50) % 40:02d}" / f"page-{n}.md"
        path.write_text(path.read_text("utf-8") + "\nA sentence added for the incremental run.\n", "utf-8")


def run(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, float]:
    result = subprocess.run(
        [PYTHON, "-c", script, *args], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def healthz_seconds(index: Path | None) -> float:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {key: value for key, value in os.environ.items() if key != "ASKAI_CORPUS"}
    if index is not None:
        env["ASKAI_CORPUS"] = str(index)
    started = time.perf_counter()
    server = subprocess.Popen(
        [str(Path(PYTHON).parent / "askai"), "serve", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        while time.perf_counter() - started < 120:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("the server did not answer /healthz within 120 s")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated page counts (e.g. 1000,10000,100000)")
    parser.add_argument("--baseline-max", type=int, default=10000, help="largest size to load on the fly too")
    args = parser.parse_args()
    words = site_words()
    query_words = " ".join(words[:400])
    floor = statistics.median(healthz_seconds(None) for _ in range(3))
    print(f"askai serve over the bundled 26-page sample answers /healthz in {floor:.2f} s (median of 3):"
          " the floor of process start and imports on this machine, measured in this run")
    print(f"{'pages':>7} {'cold s':>7} {'cold MB':>8} {'incr s':>7} {'incr/cold':>9} {'p50 ms':>7} {'p95 ms':>7}"
          f" {'healthz s':>9} {'fly s':>7} {'fly MB':>7} {'healthz/fly':>11}")
    for size in (int(s) for s in args.sizes.split(",")):
        work = Path(tempfile.mkdtemp(prefix=f"askai-bench-{size}-"))
        try:
            source, index = work / "site", work / "index"
            write_site(source, size, words)
            cold = run(_BUILD, str(source), str(index))
            touch_one_percent(source, size)
            incremental = run(_BUILD, str(source), str(index))
            query = run(_QUERY, str(index), query_words)
            health = healthz_seconds(index)
            fly: dict[str, float] = {}
            if size <= args.baseline_max:
                fly = run(_ON_THE_FLY, str(source), str(work / "cache"))
            print(
                f"{size:>7} {cold['seconds']:>7.1f} {max(cold['rss_mb'], incremental['rss_mb']):>8.0f}"
                f" {incremental['seconds']:>7.2f} {incremental['seconds'] / cold['seconds']:>9.1%}"
                f" {query['p50_ms']:>7.2f} {query['p95_ms']:>7.2f} {health:>9.2f}"
                + (f" {fly['seconds']:>7.1f} {fly['rss_mb']:>7.0f} {health / fly['seconds']:>11.2f}" if fly else "")
            )
            print(f"        ({cold['posts']:.0f} posts, {cold['passages']:.0f} passages; CPU seconds: cold"
                  f" {cold['cpu']:.1f}, incremental {incremental['cpu']:.2f} ({incremental['cpu'] / cold['cpu']:.1%});"
                  f" incremental parsed {incremental['parsed']:.0f} files; query process peak {query['rss_mb']:.0f} MB;"
                  f" index opened in {query['open_seconds']:.2f} s)")
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
