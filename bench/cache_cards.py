"""What checking a cached answer's cards against the served index costs a cache hit.

Run: ``PYTHONPATH=. .venv/bin/python bench/cache_cards.py [--pages 2000] [--lookups 3000]``

A hit with three cards is looked up ``--lookups`` times through ``SemanticCache`` in
three ways, alternating: without a page check (a graph whose index the server cannot
see), with the check of a built index of ``--pages`` pages (one lookup in its unique
URL index, in the bookkeeping pool), and with the check of the same pages loaded in
memory (a set). It prints the median of each and its ratio to the unchecked lookup.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from askai_graph.indexing import build_index
from askai_graph.indexing.loader import corpus_for
from askai_graph.retrieval.corpus import Corpus, missing_pages
from askai_graph.server.answers.cache import InMemoryCacheStore, SemanticCache
from askai_graph.settings import Settings
from askai_graph.state import Source

QUESTION = "How does topic one work?"
GATES = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def corpora(folder: Path, pages: int) -> tuple[Corpus, Corpus]:
    """Return the same ``pages`` pages as a built index and as a corpus in memory."""
    site = folder / "site"
    site.mkdir()
    for number in range(pages):
        text = f"---\ntitle: Page {number}\n---\n\nPage {number} explains topic {number}.\n"
        (site / f"p{number}.md").write_text(text)
    build_index(site, folder / "index", base_url="https://bench.example/")
    built = corpus_for(Settings(corpus=folder / "index", index_cache_dir=folder / "cache"))
    in_memory = Corpus(posts=tuple(built.posts), fingerprint=built.fingerprint)
    return built, in_memory


async def measure(built: Corpus, in_memory: Corpus, lookups: int) -> dict[str, list[float]]:
    """Time ``lookups`` hits of each cache, alternating; return the seconds of each."""
    store = InMemoryCacheStore(8)
    caches = {
        "unchecked": SemanticCache(store, namespace="bench"),
        "built index": SemanticCache(store, namespace="bench", pages=missing_pages(built)),
        "in memory": SemanticCache(store, namespace="bench", pages=missing_pages(in_memory)),
    }
    urls = [f"https://bench.example/p{number}/" for number in (1, 2, 3)]
    cards = [Source(title=url, url=url) for url in urls]
    final = {"question": QUESTION, "answer": "A.", "outcome": "accepted", "gates": GATES, "sources": cards}
    await caches["unchecked"].remember(await caches["unchecked"].lookup(QUESTION), final)
    times: dict[str, list[float]] = {name: [] for name in caches}
    for round_ in range(lookups + 200):  # the first 200 warm up
        for name, cache in caches.items():
            start = time.perf_counter()
            hit = (await cache.lookup(QUESTION)).hit
            if round_ >= 200:
                times[name].append(time.perf_counter() - start)
            if hit is None:
                raise SystemExit(f"{name}: the cards' pages should all be served")
    return times


def main() -> None:
    """Build the corpus, time the lookups and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--lookups", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        built, in_memory = corpora(Path(folder), args.pages)
        times = asyncio.run(measure(built, in_memory, args.lookups))
    base = statistics.median(times["unchecked"])
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:12} median {median * 1e6:7.1f} us  ({median / base:.2f}x unchecked)")


if __name__ == "__main__":
    main()
