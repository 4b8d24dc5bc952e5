"""Where the section that answers a question ranks among the sections the offline Writer sees.

Run: ``.venv/bin/python bench/section_rank.py --corpus IDX --questions evals/SITE.jsonl``
(without them: the bundled sample site and its questions, ``sample_index``)
(``IDX`` from ``askai index``; set ``ASKAI_RETRIEVAL=hybrid ASKAI_EMBEDDINGS=local`` for
hybrid, on an index built with them). For every labelled answer question it retrieves
as the graph's first Research pass does, ranks the sections the way the extractive
Writer does (``ExtractiveWriter.ranked_sections``) and finds the first section that is
on an expected page and holds every ``must_mention``. The Writer leads with rank 1; its
retries lead with the next ones. So the table bounds what a better choice among the
ranked sections could win, and what retrieval (page not retrieved) or the passages
handed on (answer not among the sections) lose before the Writer starts.

With ``--context`` it ranks the sections as a model Writer's context is filled instead
(``retrieval.sections.section_slice``'s order: BM25 over the sections, no API-name
weight, weighed by the retriever's passage order): "rank 1" to "rank 4-5" together are
the answering section's presence in the first five sections a model Writer receives
(``askai eval`` prints that share as "answering section in the Writer's first 5", from
the run's own first Research pass).
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

from sample_index import QUESTIONS, corpus_or_sample

BUCKETS = ("rank 1", "rank 2-3", "rank 4-5", "rank 6+", "not among the sections", "page not retrieved")


def bucket(rank: int | None, page_retrieved: bool) -> str:
    """Name where the answering section ranks (``rank`` counts from 0; None when no section holds it)."""
    if rank is None:
        return "not among the sections" if page_retrieved else "page not retrieved"
    if rank == 0:
        return "rank 1"
    return "rank 2-3" if rank < 3 else "rank 4-5" if rank < 5 else "rank 6+"


def main() -> None:
    """Rank each question's sections and print how many answering sections land in each bucket."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="an index built by askai index (default: the sample site's)")
    parser.add_argument(
        "--questions", type=Path, default=QUESTIONS, help="a labelled set (JSONL; default: the sample site's)"
    )
    parser.add_argument("--list", action="store_true", help="print each question's bucket")
    parser.add_argument("--context", action="store_true", help="rank as a model Writer's context is filled")
    args = parser.parse_args()
    os.environ["ASKAI_CORPUS"] = corpus_or_sample(args.corpus)

    from askai_graph.evaluation.context import answering_rank, context_ranking
    from askai_graph.models.offline.writer import ExtractiveWriter
    from askai_graph.models.providers import default_retriever
    from askai_graph.nodes.research import to_search_results
    from askai_graph.settings import Settings

    settings = Settings()
    retriever = default_retriever(settings)
    writer = ExtractiveWriter(embeddings=getattr(retriever, "embeddings", None))
    cases = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    counts: Counter[str] = Counter()
    for case in cases:
        if case.get("kind", "answer") != "answer" or not case.get("must_mention"):
            continue
        results = to_search_results(retriever.invoke(case["question"], k=settings.top_k), settings.top_k)
        expected = {url.rstrip("/") for url in case["expected_urls"]}
        if args.context:
            ranked = context_ranking(case["question"], results)
        else:
            ranked = writer.ranked_sections(case["question"], results)
        rank = answering_rank(ranked, results, case["expected_urls"], case["must_mention"])
        where = bucket(rank, any(r.source_url.rstrip("/") in expected for r in results))
        counts[where] += 1
        if args.list:
            print(f"{where:24} {case['question']}")
    total = sum(counts.values())
    mode = settings.retrieval if settings.retrieval != "auto" else ("hybrid" if settings.embeddings else "bm25")
    ranking = "a model Writer's context" if args.context else "the extractive Writer's ranking"
    print(f"{total} answer questions, {mode} retrieval, {ranking}")
    for name in BUCKETS:
        print(f"  {name:24} {counts[name]:3}  {counts[name] / total:6.1%}")


if __name__ == "__main__":
    main()
