"""Whether a local chat model, reading the Writer's best sections against the question, picks the answering one.

Run: ``.venv/bin/python bench/section_reader.py --corpus IDX --questions evals/SITE.jsonl``
(without them: the bundled sample site and its questions, ``sample_index``)
(``IDX`` from ``askai index``; the ``local`` extra installed). For every labelled answer
question whose answering section (on an expected page, holding every ``must_mention``)
is among the offline Writer's first ``--top`` sections, the model reads each of those
sections (heading and 700 characters) with the question and is asked "Does this section
answer the question?"; a section's score is the margin of its "Yes" over its "No" logit
on the first answer token. It prints how often the Writer's ranking and the model each
put the answering section first, and how often either does: what a reranking model
could add to the offline Writer's choice, the largest cause of false accepts.

``--model`` takes any GGUF chat model; the default is the local extra's Gemma 3 270M.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from sample_index import QUESTIONS, corpus_or_sample

PROMPT = (
    "<start_of_turn>user\nDoes this documentation section answer the question? Reply Yes or No.\n\n"
    "Question: {question}\n\nSection: {heading}\n{text}<end_of_turn>\n<start_of_turn>model\n"
)
SECTION_CHARS = 700


class Reader:
    """A GGUF chat model scoring a section by its first token's "Yes" logit over its "No"."""

    def __init__(self, model: Path) -> None:
        """Load ``model`` on the CPU with a context large enough for one section."""
        from llama_cpp import Llama

        self.llm = Llama(model_path=str(model), n_ctx=1024, n_threads=os.cpu_count() or 1, verbose=False)
        tokens = [self.llm.tokenize(word.encode(), add_bos=False)[-1] for word in ("Yes", " yes", "No", " no")]
        self.yes, self.no = tokens[:2], tokens[2:]

    def score(self, question: str, heading: str, text: str) -> float:
        """Return how much more the model leans to "Yes" than to "No" for this section."""
        import llama_cpp
        import numpy as np

        prompt = PROMPT.format(question=question, heading=heading, text=text[:SECTION_CHARS])
        self.llm.reset()
        self.llm.eval(self.llm.tokenize(prompt.encode(), add_bos=True))
        # The last position's logits (the high-level ``scores`` only keeps them with logits_all).
        pointer = llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        logits = np.ctypeslib.as_array(pointer, shape=(self.llm.n_vocab(),))
        return float(max(logits[t] for t in self.yes) - max(logits[t] for t in self.no))


def main() -> None:
    """Score every judged question's first sections with the model and print the three counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="an askai index folder (default: the sample site's)")
    parser.add_argument(
        "--questions", type=Path, default=QUESTIONS, help="an evals/*.jsonl set (default: the sample site's)"
    )
    parser.add_argument("--top", type=int, default=5, help="sections the model reads per question")
    parser.add_argument("--model", type=Path, help="a GGUF chat model (default: the local extra's)")
    args = parser.parse_args()
    os.environ["ASKAI_CORPUS"] = corpus_or_sample(args.corpus)

    from askai_graph.evaluation.context import answering_rank
    from askai_graph.models.local import LocalModelError, model_file
    from askai_graph.models.offline.writer import ExtractiveWriter
    from askai_graph.models.providers import default_retriever
    from askai_graph.nodes.research import to_search_results
    from askai_graph.settings import Settings

    try:
        reader = Reader(args.model or model_file())
    except (ImportError, LocalModelError) as exc:
        sys.exit(f"section_reader: the local extra is needed ({exc})")
    settings = Settings()
    retriever = default_retriever(settings)
    writer = ExtractiveWriter(embeddings=getattr(retriever, "embeddings", None))
    judged = ranking_first = model_first = either = 0
    started = time.perf_counter()
    for line in args.questions.read_text().splitlines():
        labelled: dict[str, Any] = json.loads(line)
        if labelled.get("kind", "answer") != "answer" or not labelled.get("must_mention"):
            continue
        question = labelled["question"]
        results = to_search_results(retriever.invoke(question, k=settings.top_k), settings.top_k)
        ranked = writer.ranked_sections(question, results)[: args.top]
        rank = answering_rank(ranked, results, labelled["expected_urls"], labelled["must_mention"])
        if rank is None:
            continue
        scores = [reader.score(question, section.heading, section.text) for section, _ in ranked]
        chosen = max(range(len(scores)), key=scores.__getitem__)
        judged += 1
        ranking_first += rank == 0
        model_first += chosen == rank
        either += rank == 0 or chosen == rank
    seconds = time.perf_counter() - started
    print(f"questions whose answering section is in the Writer's first {args.top}: {judged}")
    print(f"  the Writer's ranking puts it first: {ranking_first}")
    print(f"  the model puts it first:            {model_first} (chance: {judged / args.top:.1f})")
    print(f"  either does:                        {either}")
    print(f"  {seconds:.0f} s")


if __name__ == "__main__":
    main()
