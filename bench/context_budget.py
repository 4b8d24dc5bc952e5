"""Share of questions whose answering section lands in a model Writer's context, per character budget.

A model Writer reads ``section_slice(question, results, writer_evidence_chars)``. For each
labelled answer question, this retrieves as Research does and checks, per budget, whether
a slice of an expected page holds every ``must_mention`` term. A question whose answering
section no retrieved page holds counts as out of reach for every budget (a retrieval miss).

Usage: ASKAI_CORPUS=IDX [ASKAI_EMBEDDINGS=local] python bench/context_budget.py evals/jest.jsonl
(``--corpus IDX`` does what ``ASKAI_CORPUS`` does; with neither, and no questions, the bundled
sample site and its questions: ``sample_index``)
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from sample_index import QUESTIONS, corpus_or_sample

from askai_graph.evaluation.context import holds_answer
from askai_graph.models.providers import default_retriever
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.sections import page_sections, section_slice
from askai_graph.settings import Settings

BUDGETS = (8000, 12000, 16000, 24000, 32000)


def main() -> None:
    """Print, per budget, the share of labelled answer questions whose answering section is in the context."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, nargs="?", default=QUESTIONS, help="an eval JSONL file")
    parser.add_argument("--corpus", default=os.environ.get("ASKAI_CORPUS"), help="an index built by askai index")
    args = parser.parse_args()
    settings = Settings(corpus=corpus_or_sample(args.corpus))
    retriever = default_retriever(settings)
    reached = dict.fromkeys(BUDGETS, 0)
    judged = 0
    for line in args.questions.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        mentions, urls = item.get("must_mention"), item.get("expected_urls")
        if item.get("kind", "answer") != "answer" or not mentions or not urls:
            continue
        judged += 1
        results = to_search_results(retriever.invoke(item["question"]), settings.top_k)
        expected = {url.rstrip("/") for url in urls}
        if not any(holds_answer(section, results, expected, mentions) for section in page_sections(results)):
            continue
        for budget in BUDGETS:
            sliced = section_slice(item["question"], results, budget)
            reached[budget] += any(
                result.source_url.rstrip("/") in expected and all(m.lower() in text.lower() for m in mentions)
                for result, text in sliced
            )
    shares = " ".join(f"{budget}: {reached[budget] / judged:.0%}" for budget in BUDGETS) if judged else "-"
    print(f"{args.questions.name} ({settings.retrieval}, {judged} questions) {shares}")


if __name__ == "__main__":
    main()
