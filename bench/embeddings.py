"""What the local embedding model costs: index build time and size, and embedding a question.

Run: ``.venv/bin/python bench/embeddings.py [--sizes 1000,10000] [--queries 100]`` (default 1000; needs
the ``neural`` extra).

For each size it writes the synthetic docs tree of ``bench/index_scale.py`` (~300 words a
page, in three sections) and builds, each in a fresh process (so peak RSS is its own):

- BM25 only (the baseline, measured in the same run), then the same site with
  ``ASKAI_EMBEDDINGS=local`` (all-MiniLM-L6-v2 on the CPU): seconds, passages embedded
  per second, peak RSS, and the index's size on disk (the vectors' share apart);
- an incremental build with 1% of the pages changed, with the model: seconds, passages
  re-embedded.

Then, over the largest built index, per question (interleaved, so load on the machine
hits all three alike): embedding the question alone, BM25 retrieval, and hybrid retrieval
(embedding + both rankings + fusion), as medians and p95 with the ratio hybrid / BM25.

``--keep DIR`` keeps the largest index built (the model's) in ``DIR``; ``--index DIR``
then times only the questions over it, without building anything: the build takes
minutes, and the per-question figures want a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_scale import site_words, touch_one_percent, write_site  # noqa: E402

from askai_graph.indexing.store import is_built_index  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

_BUILD = """
import json, os, resource, sys, time
from pathlib import Path
from askai_graph import Settings
from askai_graph.retrieval.embeddings import embeddings_for, model_key
from askai_graph.indexing import build_index
settings = Settings(embeddings=sys.argv[3])
loaded = time.perf_counter()
embeddings = embeddings_for(settings, batch=True)
loaded = time.perf_counter() - loaded
started, cpu = time.perf_counter(), time.process_time()
summary = build_index(Path(sys.argv[1]), Path(sys.argv[2]), base_url="https://bench.example/",
                      embeddings=embeddings, embeddings_model=model_key(settings))
seconds = time.perf_counter() - started
out = Path(sys.argv[2])
size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
vectors = out / "embeddings.npy"
print(json.dumps({"seconds": seconds, "cpu": time.process_time() - cpu, "load_seconds": loaded,
                  "posts": summary.posts, "passages": summary.passages, "embedded": summary.embedded,
                  "bytes": size, "npy_bytes": vectors.stat().st_size if vectors.exists() else 0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_QUERY = """
import json, random, statistics, sys, time
from pathlib import Path
from askai_graph import load_corpus
from askai_graph.retrieval.embeddings import LocalEmbeddings, model_key
from askai_graph.retrieval.hybrid import HybridRetriever
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph import Settings
corpus = load_corpus(Path(sys.argv[1]))
model = LocalEmbeddings.load()
bm25 = BM25Retriever(corpus=corpus, k=6)
hybrid = HybridRetriever(corpus=corpus, k=6, embeddings=model, embeddings_model=model_key(Settings(embeddings="local")))
words = sys.argv[2].split()
rng = random.Random(7)
questions = [" ".join(rng.sample(words, rng.randint(4, 9))) for _ in range(int(sys.argv[3]))]
for question in questions[:5]:
    hybrid.invoke(question)
times = {"embed": [], "bm25": [], "hybrid": []}
for question in questions:
    for name, call in (("embed", lambda: model.embed_query(question)), ("bm25", lambda: bm25.invoke(question)),
                       ("hybrid", lambda: hybrid.invoke(question))):
        t = time.perf_counter()
        call()
        times[name].append((time.perf_counter() - t) * 1000)
print(json.dumps({name: {"p50": statistics.median(v), "p95": sorted(v)[int(len(v) * 0.95)]}
                  for name, v in times.items()}))
"""


def run(script: str, *args: str) -> dict[str, Any]:
    result = subprocess.run([PYTHON, "-c", script, *args], capture_output=True, text=True, check=True, cwd=ROOT,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    parsed: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return parsed


def mb(n: float) -> str:
    return f"{n / 1e6:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000", help="comma-separated page counts (e.g. 1000,10000)")
    parser.add_argument("--queries", type=int, default=100, help="questions timed over the largest index")
    parser.add_argument("--keep", type=Path, help="keep the largest index built (with the model) in this folder")
    parser.add_argument("--index", type=Path, help="time the questions over this kept index; build nothing")
    args = parser.parse_args()
    if args.keep is not None and args.keep.exists() and not is_built_index(args.keep) and any(args.keep.iterdir()):
        parser.error(f"--keep {args.keep}: exists and is not an askai index; it would be replaced")
    words = site_words()
    if args.index is not None:
        time_questions(args.index, words, args.queries)
        return
    print(f"{'pages':>6} {'passages':>8} {'bm25 s':>7} {'local s':>8} {'ratio':>6} {'psg/s':>6} {'load s':>6}"
          f" {'bm25 MB':>8} {'local MB':>9} {'vectors MB':>10} {'RSS MB':>7} {'1% s':>6} {'1% embedded':>11}")
    work = Path(tempfile.mkdtemp(prefix="askai-bench-embeddings-"))
    try:
        last_index: Path | None = None
        for size in (int(s) for s in args.sizes.split(",")):
            source = work / f"site-{size}"
            write_site(source, size, words)
            bm25 = run(_BUILD, str(source), str(work / f"bm25-{size}"), "")
            local = run(_BUILD, str(source), str(work / f"local-{size}"), "local")
            touch_one_percent(source, size)
            incremental = run(_BUILD, str(source), str(work / f"local-{size}"), "local")
            shutil.rmtree(work / f"bm25-{size}")
            print(f"{size:>6} {local['passages']:>8} {bm25['seconds']:>7.1f} {local['seconds']:>8.1f}"
                  f" {local['seconds'] / bm25['seconds']:>6.0f}"
                  f" {local['embedded'] / local['seconds']:>6.1f}"
                  f" {local['load_seconds']:>6.1f} {mb(bm25['bytes']):>8} {mb(local['bytes']):>9}"
                  f" {mb(local['npy_bytes']):>10} {local['rss_mb']:>7.0f} {incremental['seconds']:>6.1f}"
                  f" {incremental['embedded']:>11}", flush=True)
            last_index = work / f"local-{size}"
        if last_index is not None:
            time_questions(last_index, words, args.queries)
            if args.keep is not None:
                shutil.rmtree(args.keep, ignore_errors=True)
                shutil.copytree(last_index, args.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def time_questions(index: Path, words: list[str], queries: int) -> None:
    """Print the per-question medians and p95 over ``index`` (embedding, BM25, hybrid)."""
    query = run(_QUERY, str(index), " ".join(words[:400]), str(queries))
    ratio = query["hybrid"]["p50"] / query["bm25"]["p50"]
    pages = json.loads((index / "askai-index.json").read_text()).get("posts", "?")
    print(f"per question over the {pages}-page index, {queries} questions"
          " (ms, p50 / p95): " + ", ".join(f"{name} {v['p50']:.1f} / {v['p95']:.1f}" for name, v in query.items())
          + f"; hybrid / bm25 p50 = {ratio:.0f}x")


if __name__ == "__main__":
    main()
