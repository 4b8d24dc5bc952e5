"""Instant search (``GET /api/search``): server time per query at scale, and its quality on real sites.

Run: ``.venv/bin/python bench/search.py [--sizes 10000,100000] [--sites fastapi,pydantic,jest] [--queries 300]
[--rounds N] [--work DIR] [--profile]`` (``--work`` keeps the synthetic trees and built indexes there for the next
run; ``--rounds`` times each size N times and prints the median of each figure; ``--profile`` prints cProfile's
view of the search loop instead of timing it).

**Time.** For each size, a synthetic docs tree (``bench/index_scale.py``'s: Zipf-like
words, three sections a page) is built with ``askai index``; then, in one process over
the built index, ``retrieval.search.search`` (what the route runs) answers ``--queries``
queries *as typed*: 1 to 3 site words, the last cut to a prefix of two letters or more,
one in ten with a misspelt word of five letters or more (one letter swapped). Printed:
p50 and p99 in ms, and the baseline measured in the same process on the same finished
queries: the Research step's ``BM25Retriever.invoke`` (``k=6``), with the ratio. With
``--rounds`` above one, also the p99 over the queries of each query's median time across
the rounds: on a shared machine a stall during one timing makes a round's p99, and the
median of three p99s still moves with the load (the baseline's with it).
Targets at 100k pages: p50 <= 5 ms, p99 <= 20 ms. The lexicon (the sorted vocabulary,
built on an index's first search) is timed apart.

**Quality.** For each shared site (``/work/shared/realsites``, indexed as
``docs/benchmarks.md`` says), each labelled question of ``evals/<site>.jsonl``: the rank of
its expected page among the search's pages (MRR@10), beside the rank among the Research
step's pages (the retriever's ``k=10``) on the same questions.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from index_scale import _BUILD, run, site_words, write_site  # noqa: E402

from askai_graph import load_corpus  # noqa: E402
from askai_graph.indexing import build_index  # noqa: E402
from askai_graph.retrieval.lexicon import Lexicon  # noqa: E402
from askai_graph.retrieval.pages import BM25Retriever  # noqa: E402
from askai_graph.retrieval.search import search  # noqa: E402

# The shared snapshots sit beside the main checkout (/work/shared) or two levels up from a worktree.
REALSITES = next((p for p in (ROOT.parent / "shared" / "realsites", ROOT.parent.parent / "shared" / "realsites")
                  if p.is_dir()), ROOT.parent / "shared" / "realsites")  # fmt: skip
SITES = {
    "fastapi": ("fastapi/docs/en/docs", "https://fastapi.tiangolo.com/"),
    "pydantic": ("pydantic/docs", "https://docs.pydantic.dev/latest/"),
    "jest": ("jest/docs", "https://jestjs.io/docs/"),
}


def typed_queries(words: list[str], n: int) -> list[tuple[str, str]]:
    """Return ``n`` pairs (as typed, finished): a prefix for the last word, a swapped letter in one of ten."""
    rng = random.Random(11)
    common = words[:1500]  # the Zipf head: words readers would type
    pairs = []
    for i in range(n):
        chosen = rng.sample(common, rng.randint(1, 3))
        finished = " ".join(chosen)
        if i % 10 == 0:
            long = [w for w in chosen[:-1] if len(w) >= 5] or ([chosen[-1]] if len(chosen[-1]) >= 5 else [])
            if long:
                word = long[0]
                at = rng.randint(1, len(word) - 2)
                swapped = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
                chosen = [swapped if w == word else w for w in chosen]
        last = chosen[-1]
        cut = last[: rng.randint(min(2, len(last)), len(last))]
        pairs.append((" ".join([*chosen[:-1], cut]), finished))
    return pairs


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def timed(retriever: BM25Retriever, pairs: list[tuple[str, str]]) -> tuple[dict[str, float], list[float], list[float]]:
    """Return the figures of one round, and each query's search and Research times (ms) in order."""
    started = time.perf_counter()
    Lexicon.of(retriever._lexical_index())  # type: ignore[arg-type]
    lexicon_s = time.perf_counter() - started
    for typed, finished in pairs[:20]:  # warm: page cache, memory maps
        search(retriever, typed, 8)
        retriever.invoke(finished)
    searches, research = [], []
    for typed, finished in pairs:
        t = time.perf_counter()
        search(retriever, typed, 8)
        searches.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        retriever.invoke(finished, k=6)
        research.append((time.perf_counter() - t) * 1000)
    figures = {
        "lexicon_s": lexicon_s,
        "p50": statistics.median(searches),
        "p99": percentile(searches, 0.99),
        "research_p50": statistics.median(research),
        "research_p99": percentile(research, 0.99),
    }
    return figures, searches, research


def profiled(retriever: BM25Retriever, pairs: list[tuple[str, str]], top: int = 25) -> None:
    """Print where a search's time goes: cProfile over the timed loop, by own time, then cumulative."""
    import cProfile
    import pstats

    for typed, _ in pairs[:20]:
        search(retriever, typed, 8)
    profile = cProfile.Profile()
    profile.enable()
    for typed, _ in pairs:
        search(retriever, typed, 8)
    profile.disable()
    stats = pstats.Stats(profile, stream=sys.stdout).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def reciprocal_rank(urls: list[str], expected: set[str]) -> float:
    return next((1 / rank for rank, url in enumerate(urls[:10], 1) if url in expected), 0.0)


def quality(site: str, work: Path) -> dict[str, float]:
    tree, base = SITES[site]
    index = work / f"idx-{site}"
    if not index.exists():
        build_index(REALSITES / tree, index, base_url=base)
    retriever = BM25Retriever(corpus=load_corpus(index), k=10)
    rows = [json.loads(line) for line in (ROOT / "evals" / f"{site}.jsonl").read_text("utf-8").splitlines() if line]
    rows = [row for row in rows if row.get("expected_urls")]
    by_search, by_research = [], []
    for row in rows:
        expected = set(row["expected_urls"])
        by_search.append(reciprocal_rank([page.url for page in search(retriever, row["question"], 10)], expected))
        found = retriever.invoke(row["question"], k=10)
        by_research.append(reciprocal_rank([d.metadata["source_url"] for d in found], expected))
    mrr = {"search_mrr": statistics.mean(by_search), "research_mrr": statistics.mean(by_research)}
    return {"questions": len(rows), **mrr}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--sites", default="fastapi,pydantic,jest")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--work", type=Path, help="keep trees and indexes here (reused when present)")
    parser.add_argument("--rounds", type=int, default=1, help="time each size this many times (the median is printed)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's view of the search loop instead")
    args = parser.parse_args()
    words = site_words()
    with tempfile.TemporaryDirectory(prefix="askai-search-bench-") as folder:
        work = args.work or Path(folder)
        work.mkdir(parents=True, exist_ok=True)
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        if sizes:
            print("| pages | lexicon s | search p50 ms | p99 ms | Research p50 ms | p99 ms | p50 ratio "
                  "| search p99, each query's median ms | Research, same |")
            print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for size in sizes:
            tree, index = work / f"site-{size}", work / f"idx-{size}"
            if not index.exists():
                write_site(tree, size, words)
                run(_BUILD, str(tree), str(index))
            retriever, pairs = BM25Retriever(corpus=load_corpus(index), k=6), typed_queries(words, args.queries)
            if args.profile:
                profiled(retriever, pairs)
                continue
            timings = [timed(retriever, pairs) for _ in range(args.rounds)]
            rounds = [figures for figures, _, _ in timings]
            for n, one in enumerate(rounds, 1):
                if args.rounds > 1:
                    print(f"<!-- round {n}: p50 {one['p50']:.2f} p99 {one['p99']:.2f} "
                          f"research p50 {one['research_p50']:.2f} -->", flush=True)  # fmt: skip
            got = {key: statistics.median(one[key] for one in rounds) for key in rounds[0]}
            got["lexicon_s"] = rounds[0]["lexicon_s"]  # built on the first round's first search only
            # A query's own median over the rounds: a stall of the shared machine during one timing
            # (the Research baseline's p99 moves with it) is not the query's cost.
            steady = [statistics.median(times) for times in zip(*(t[1] for t in timings), strict=True)]
            steady_research = [statistics.median(times) for times in zip(*(t[2] for t in timings), strict=True)]
            print(
                f"| {size:,} | {got['lexicon_s']:.2f} | {got['p50']:.2f} | {got['p99']:.2f} | "
                f"{got['research_p50']:.2f} | {got['research_p99']:.2f} | {got['p50'] / got['research_p50']:.2f}x | "
                f"{percentile(steady, 0.99):.2f} | {percentile(steady_research, 0.99):.2f} |",
                flush=True,
            )
        sites = [s for s in args.sites.split(",") if s.strip()]
        if sites:
            print("\n| site | questions | search MRR@10 | Research MRR@10 |")
            print("|---|---:|---:|---:|")
        for site in sites:
            if not (REALSITES / SITES[site][0]).is_dir():  # the shared snapshots are not in a clone
                print(f"| {site} | skipped: no {REALSITES / SITES[site][0]} | | |", flush=True)
                continue
            got = quality(site, work)
            row = f"| {site} | {got['questions']:.0f} | {got['search_mrr']:.3f} | {got['research_mrr']:.3f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
