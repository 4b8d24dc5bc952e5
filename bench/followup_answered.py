"""Follow-up answered on an indexed site: a first question, then a follow-up that leans on it.

Run: ``.venv/bin/python bench/followup_answered.py --corpus IDX --pairs evals/SITE-followups.jsonl``
(``IDX`` from ``askai index``). Each line is ``{"question", "follow_up", "expected_urls",
"must_mention"}``. Both questions run on one thread of the default offline graph; a
follow-up counts as *answered* when it is accepted, cites an expected page and holds every
``must_mention`` (``askai eval``'s "answered", for the follow-up). It also prints how the
condensed question read, so a miss can be told apart: a rewrite that lost the topic, or
an answer the Critic refused.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path


def main() -> None:
    """Ask each pair on its own thread and print the follow-ups answered."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="an index built by askai index")
    parser.add_argument("--pairs", required=True, type=Path, help="follow-up pairs (JSONL)")
    args = parser.parse_args()
    os.environ["ASKAI_CORPUS"] = args.corpus

    from langgraph.checkpoint.memory import InMemorySaver

    from askai_graph import Settings, build_graph
    from askai_graph.state import STATE_KEYS

    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    answered = accepted = 0
    with tempfile.TemporaryDirectory() as cache:
        graph = build_graph(settings=Settings(index_cache_dir=Path(cache)), checkpointer=InMemorySaver())
        for n, pair in enumerate(pairs):
            thread = {"configurable": {"thread_id": f"pair-{n}"}}
            graph.invoke({"question": pair["question"]}, thread)
            final = graph.invoke({"question": pair["follow_up"]}, thread, output_keys=STATE_KEYS)
            cited = set(final["validation"].cited_urls) if final["validation"] else set()
            ok = final["outcome"] in ("accepted", "accepted_early")
            hit = ok and bool(cited & set(pair["expected_urls"])) and all(
                term.lower() in final["answer"].lower() for term in pair["must_mention"]
            )
            accepted += ok
            answered += hit
            mark = "ok " if hit else "-- "
            print(f"{mark}{pair['follow_up']!r:50} -> {final['standalone_question']!r} [{final['outcome']}]")
    total = len(pairs)
    print(f"\n{total} follow-ups: accepted {accepted}/{total}, answered {answered}/{total} ({answered / total:.0%})")


if __name__ == "__main__":
    main()
