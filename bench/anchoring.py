"""What anchored citations cost per answer: anchoring and its Validation rule, against Validation alone.

Run: ``.venv/bin/python bench/anchoring.py [--corpus INDEX] [--questions evals/sample_site.jsonl] [--rounds 20]``

Each question of the set is answered once by the default (offline) graph to get its
final draft and retrieved pages. Then, per draft, interleaved so load on the machine
hits both alike, ``rounds`` times each:

- **baseline**: ``validate_draft(draft, results)``, the Validation node before anchoring;
- **anchored**: ``anchor_citations(draft, results)`` then ``validate_draft(..., citations=...)``,
  the Validation node now.

It prints the median and p95 per draft of each, and the ratio anchored / baseline;
then the same for the offline Critic's review, whose grounding now anchors each claim
(no baseline: the review as a whole is timed, for scale). The anchoring caches page
sections per page text, as the Writer does: the first draft of a page pays the split.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from askai_graph import build_graph  # noqa: E402
from askai_graph.evidence.results import EvidencePassage  # noqa: E402
from askai_graph.models.offline.critic import LexicalCritic  # noqa: E402
from askai_graph.models.reviewing import ReviewRequest  # noqa: E402
from askai_graph.retrieval.anchoring import anchor_citations  # noqa: E402
from askai_graph.state import STATE_KEYS  # noqa: E402
from askai_graph.validation import validate_draft  # noqa: E402


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:.3f} ms, p95 {p95 * 1000:.3f} ms"


def main() -> None:
    """Answer the questions, then time Validation with and without anchoring, interleaved."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="a built index or docs tree (ASKAI_CORPUS); default the sample site")
    parser.add_argument("--questions", default=str(ROOT / "evals" / "sample_site.jsonl"))
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    if args.corpus:
        os.environ["ASKAI_CORPUS"] = args.corpus
    graph = build_graph()
    questions = [json.loads(line)["question"] for line in Path(args.questions).read_text().splitlines() if line]
    runs = []
    for question in questions:
        final = graph.invoke({"question": question}, output_keys=STATE_KEYS)
        if final.get("draft") and final.get("search_results"):
            runs.append((question, final["draft"], final["search_results"]))
    base: list[float] = []
    anchored: list[float] = []
    review: list[float] = []
    critic = LexicalCritic()
    for _ in range(args.rounds):
        for question, draft, results in runs:
            start = time.perf_counter()
            validate_draft(draft, results)
            middle = time.perf_counter()
            validate_draft(draft, results, citations=anchor_citations(draft, results))
            end = time.perf_counter()
            evidence = [EvidencePassage(result=r, text=r.content) for r in results]
            critic.review(ReviewRequest(question=question, draft=draft, evidence=evidence))
            base.append(middle - start)
            anchored.append(end - middle)
            review.append(time.perf_counter() - end)
    ratio = statistics.median(anchored) / statistics.median(base)
    print(f"drafts: {len(runs)} of {len(questions)} questions, {args.rounds} rounds each")
    print(f"validation alone (baseline):     {_ms(base)}")
    print(f"anchoring + validation (now):    {_ms(anchored)}   ratio {ratio:.2f}x")
    print(f"offline critic review (for scale): {_ms(review)}")


if __name__ == "__main__":
    main()
