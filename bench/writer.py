"""The offline Writer's cost per question on a built index, against Validation of the same drafts.

Run: ``.venv/bin/python bench/writer.py --corpus IDX --questions evals/SITE.jsonl [--rounds 3]``
(without them: the bundled sample site and its questions, ``sample_index``)
(``IDX`` from ``askai index``). Each question is retrieved once; then, per round, the
extractive Writer drafts it and ``validate_draft`` checks the draft, timed apart.
Prints medians (ms), their ratio, and the median characters of evidence a question
hands the Writer. For a before/after, run it from an earlier checkout with
``PYTHONPATH=DIR`` on an index that checkout built, in the same session.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from sample_index import QUESTIONS, corpus_or_sample


def main() -> None:
    """Retrieve every question once, then time the Writer and Validation over the rounds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="an index built by askai index (default: the sample site's)")
    parser.add_argument(
        "--questions", type=Path, default=QUESTIONS, help="labelled questions (JSONL; default: the sample site's)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ["ASKAI_CORPUS"] = corpus_or_sample(args.corpus)

    from askai_graph.models.offline.writer import ExtractiveWriter
    from askai_graph.models.providers import default_retriever
    from askai_graph.models.writing import DraftRequest
    from askai_graph.nodes.research import to_search_results
    from askai_graph.settings import Settings
    from askai_graph.validation import validate_draft

    settings = Settings()
    retriever = default_retriever(settings)
    writer = ExtractiveWriter()
    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines() if line.strip()]
    found = {q: to_search_results(retriever.invoke(q, k=settings.top_k), settings.top_k) for q in questions}
    for question in questions:  # warm the per-page caches, as a serving process has them
        writer.write(DraftRequest(question=question, search_results=found[question]))
    writing, validating = [], []
    for _ in range(args.rounds):
        for question in questions:
            started = time.perf_counter()
            draft = writer.write(DraftRequest(question=question, search_results=found[question]))
            writing.append(time.perf_counter() - started)
            started = time.perf_counter()
            validate_draft(draft, found[question])
            validating.append(time.perf_counter() - started)
    write_ms, validate_ms = statistics.median(writing) * 1000, statistics.median(validating) * 1000
    evidence = statistics.median(sum(len(r.content) for r in found[q]) for q in questions)
    print(f"{len(questions)} questions x {args.rounds} rounds")
    print(f"writer p50      {write_ms:.2f} ms")
    print(f"validation p50  {validate_ms:.2f} ms  (writer / validation {write_ms / validate_ms:.2f}x)")
    print(f"evidence p50    {evidence:.0f} characters per question")


if __name__ == "__main__":
    main()
