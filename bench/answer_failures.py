"""Why each labelled question of an ``askai eval`` report was not answered, counted by cause.

Run: ``.venv/bin/python bench/answer_failures.py --corpus IDX REPORT.json`` (with neither: an
``askai eval`` of the bundled sample site's questions over its index, ``sample_index``) (``REPORT.json``
from ``askai eval evals/SITE.jsonl --out DIR``; set ``ASKAI_RETRIEVAL=hybrid
ASKAI_EMBEDDINGS=local`` for a hybrid report, on an index built with them). Every answer
question with a ``must_mention`` gets one cause:

- ``answered``: accepted, cites an expected page, holds every ``must_mention``;
- ``false accept, wrong section led``: accepted without the ``must_mention``, and the
  section that holds it (on an expected page) ranks below the first in the offline
  Writer's ranking (``ExtractiveWriter.ranked_sections``, as ``bench/section_rank.py``);
- ``false accept, right section, wrong element``: that section ranks first;
- ``false accept, answer not among the sections``: no retrieved section holds it;
- ``accepted, another page``: holds the ``must_mention`` but cites no expected page;
- ``critic refused the answer``: degraded, and the draft shown (the best rejected one)
  cites an expected page and holds the ``must_mention``: the Critic's gaps are listed;
- ``degraded, wrong sections``: degraded without it;
- ``fallback``: the relevance floor turned it away.

With ``--list`` it prints each question's cause, the answering section's rank and the
Critic's last gaps and failure codes.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from sample_index import corpus_or_sample, sample_report


def cause(result: dict[str, Any], rank: int | None) -> str:
    """Name why ``result`` (one ``report.json`` result) was or was not answered; ``rank`` counts from 0."""
    answer = result["answer"].lower()
    holds = all(term.lower() in answer for term in result["must_mention"])
    expected = {url.rstrip("/") for url in result["expected_urls"]}
    cites = any(url.rstrip("/") in expected for url in result["cited"])
    if result["outcome"] in ("accepted", "accepted_early"):
        if holds:
            return "answered" if cites else "accepted, another page"
        if rank is None:
            return "false accept, answer not among the sections"
        return "false accept, right section, wrong element" if rank == 0 else "false accept, wrong section led"
    if result["outcome"] == "fallback":
        return "fallback"
    return "critic refused the answer" if holds and cites else "degraded, wrong sections"


def main() -> None:
    """Classify every labelled answer question of the report and print the counts per cause."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, nargs="?", help="an askai eval report.json")
    parser.add_argument("--corpus", help="the index the report was measured on")
    parser.add_argument("--list", action="store_true", help="print each question's cause")
    args = parser.parse_args()
    if (args.report is None) != (args.corpus is None):
        parser.error("give a report and the --corpus it was measured on, or neither")
    os.environ["ASKAI_CORPUS"] = corpus_or_sample(args.corpus)
    report = args.report or sample_report(os.environ["ASKAI_CORPUS"])

    from askai_graph.evaluation.context import answering_rank
    from askai_graph.models.offline.writer import ExtractiveWriter
    from askai_graph.models.providers import default_retriever
    from askai_graph.nodes.research import to_search_results
    from askai_graph.settings import Settings

    settings = Settings()
    retriever = default_retriever(settings)
    writer = ExtractiveWriter(embeddings=getattr(retriever, "embeddings", None))
    counts: Counter[str] = Counter()
    for result in json.loads(report.read_text())["results"]:
        if result["kind"] != "answer" or not result["must_mention"]:
            continue
        results = to_search_results(retriever.invoke(result["question"], k=settings.top_k), settings.top_k)
        ranked = writer.ranked_sections(result["question"], results)
        rank = answering_rank(ranked, results, result["expected_urls"], result["must_mention"])
        found = cause(result, rank)
        counts[found] += 1
        if args.list and found != "answered":
            codes = [v["codes"] for v in result["verdicts"] if v["gate"] == "critic"]
            where = "-" if rank is None else rank + 1
            print(f"{found:46} rank {where!s:4} {result['question']}")
            print(f"{'':46} gaps {result['gaps'][:5]} codes {codes[-1] if codes else []}")
    total = sum(counts.values())
    for name, count in counts.most_common():
        print(f"  {name:46} {count:3}  {count / total:6.1%}")


if __name__ == "__main__":
    main()
