"""How many prefixes of common docs words find no page in ``GET /api/search``: search as you type.

Run: ``.venv/bin/python bench/search_prefixes.py [--corpus IDX] [--words w1,w2,...]`` (without
``--corpus``, on the bundled sample site: ``sample_index``)

Every prefix of four letters or more of each word is searched as the reader types it (no
space after it); a prefix that returns no page is a miss. Prints the misses and the
median time of one search, so a change to ``retrieval.lexicon`` shows what it costs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from sample_index import corpus_or_sample

from askai_graph import Settings
from askai_graph.models.providers import default_retriever
from askai_graph.retrieval.search import search

WORDS = (
    "dependencies,authentication,configuration,installation,environment,testing,middleware,response,request,"
    "validation,security,database,parameters,background,websockets,templates,deployment,settings,exceptions,"
    "documentation,path,query,header,cookies,forms,files,routing,tutorial,async,concurrency,docker,proxy,openapi,"
    "schema,models,serialization,generics,version,python,upload"
)


def main() -> None:
    """Search every prefix and print the misses and the median search time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="an index built by askai index (default: the sample site's)")
    parser.add_argument("--words", default=WORDS, help="comma-separated words whose prefixes are typed")
    args = parser.parse_args()
    retriever = default_retriever(Settings(corpus=corpus_or_sample(args.corpus)))
    search(retriever, "warm", 5)
    misses, seconds = [], []
    prefixes = [word[:n] for word in args.words.split(",") for n in range(4, len(word) + 1)]
    for prefix in prefixes:
        start = time.perf_counter()
        found = search(retriever, prefix, 5)
        seconds.append(time.perf_counter() - start)
        if not found:
            misses.append(prefix)
    print(f"{len(misses)} of {len(prefixes)} prefixes find no page: {' '.join(misses) or '-'}")
    print(f"search p50 {statistics.median(seconds) * 1000:.2f} ms over {len(prefixes)} prefixes")


if __name__ == "__main__":
    main()
