"""How the offline follow-up rewrite does on the bundled site: one question pair per post.

Each pair is a first question and a follow-up that leans on it ("How do I tune its
parameters?" after "What is BM25?"), with the post that answers the follow-up. Both run
on one thread of the default offline graph; the script counts the follow-ups that were
rewritten, that retrieved the right post (first, or anywhere in the results), and whose
accepted answer cites it, next to the same follow-ups asked alone on fresh threads.

    .venv/bin/python bench/followup_rewrite.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from askai_graph import Settings, build_graph
from askai_graph.state import STATE_KEYS

PAIRS = Path(__file__).parent.parent / "evals" / "sample_site-followups.jsonl"


def main() -> None:
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]
    for pair in pairs:  # the post that answers the follow-up, by its slug
        pair["post"] = pair["expected_urls"][0].rsplit("/", 1)[-1]
    with tempfile.TemporaryDirectory() as cache:
        graph = build_graph(settings=Settings(index_cache_dir=Path(cache)), checkpointer=InMemorySaver())
        counts = {"rewritten": 0, "first": 0, "retrieved": 0, "cited": 0, "alone_retrieved": 0, "alone_cited": 0}
        for n, pair in enumerate(pairs):
            thread = {"configurable": {"thread_id": f"pair-{n}"}}
            graph.invoke({"question": pair["question"]}, thread)
            final = graph.invoke({"question": pair["follow_up"]}, thread, output_keys=STATE_KEYS)
            alone = graph.invoke(
                {"question": pair["follow_up"]}, {"configurable": {"thread_id": f"alone-{n}"}}, output_keys=STATE_KEYS
            )
            slugs = [result.source_url.rsplit("/", 1)[-1] for result in final["search_results"]]
            cited = [url.rsplit("/", 1)[-1] for url in final["validation"].cited_urls] if final["validation"] else []
            alone_slugs = [result.source_url.rsplit("/", 1)[-1] for result in alone["search_results"]]
            alone_cited = [source.url.rsplit("/", 1)[-1] for source in alone["sources"]]
            rewritten = final["standalone_question"] != pair["follow_up"]
            counts["rewritten"] += rewritten
            counts["first"] += bool(slugs) and slugs[0] == pair["post"]
            counts["retrieved"] += pair["post"] in slugs
            counts["cited"] += final["outcome"] == "accepted" and pair["post"] in cited
            counts["alone_retrieved"] += pair["post"] in alone_slugs
            counts["alone_cited"] += pair["post"] in alone_cited
            mark = "ok " if slugs[:1] == [pair["post"]] else "-- "
            print(f"{mark}{pair['follow_up']!r:45} -> {final['standalone_question']!r} [{final['outcome']}]")
    total = len(pairs)
    print(f"\n{total} follow-ups on the bundled site (offline lexical rewrite, BM25, extractive writer):")
    print(f"  rewritten into a standalone question:          {counts['rewritten']}/{total}")
    print(f"  right post retrieved first:                    {counts['first']}/{total}")
    print(f"  right post among the retrieved results:        {counts['retrieved']}/{total}")
    print(f"  accepted and citing the right post:            {counts['cited']}/{total}")
    print(f"  asked alone on a fresh thread, right post retrieved: {counts['alone_retrieved']}/{total}")
    print(f"  asked alone on a fresh thread, shown as a source:    {counts['alone_cited']}/{total}")


if __name__ == "__main__":
    main()
