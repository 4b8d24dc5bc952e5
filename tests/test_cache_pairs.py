"""The cache against a labelled set: paraphrases that should hit, contrasts that must never hit.

``tests/data/cache_pairs.jsonl`` holds question pairs, each labelled ``paraphrase`` (the
same question, spelled differently: should hit) or ``contrast`` (a different question
sharing most words: negations, antonyms, modal verbs, quantifiers, numbers, roles,
comparatives, tense, pronouns, symbols, other scripts; must never hit). The contrast
rule is absolute; the paraphrase hit rate is a floor that guards against the cache
becoming useless. ``bench/cache_pairs.py`` prints both figures.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from askai_graph import Settings, build_graph
from askai_graph.server.cache import InMemoryCacheStore, SemanticCache
from askai_graph.server.questions import clean_question

PAIRS = [json.loads(line) for line in (Path(__file__).parent / "data" / "cache_pairs.jsonl").read_text().splitlines()]
PARAPHRASES = [pair for pair in PAIRS if pair["kind"] == "paraphrase"]
CONTRASTS = [pair for pair in PAIRS if pair["kind"] == "contrast"]
GATES = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def hits(first: str, second: str) -> bool:
    """Cache an accepted answer to ``first``; say whether ``second`` is served it (as the server asks)."""

    async def scenario() -> bool:
        semantic = SemanticCache(InMemoryCacheStore(4), namespace="pairs")
        question = clean_question(first)
        probe = await semantic.lookup(question)
        final = {"question": question, "answer": "A.", "outcome": "accepted", "gates": GATES}
        await semantic.remember(probe, final)
        return (await semantic.lookup(clean_question(second))).hit is not None

    return asyncio.run(scenario())


def test_the_labelled_set_covers_every_kind_of_contrast_the_cache_must_refuse() -> None:
    categories = {pair["category"] for pair in CONTRASTS}
    wanted = {"negation", "antonym", "modal", "quantifier", "number", "roles", "non-latin", "comparative", "tense"}
    assert wanted <= categories
    assert len(CONTRASTS) >= 60 and len(PARAPHRASES) >= 40


@pytest.mark.parametrize("pair", CONTRASTS, ids=lambda pair: f"{pair['category']}:{pair['b'][:40]}")
def test_a_contrast_pair_never_hits_either_way(pair: dict[str, Any]) -> None:
    assert not hits(pair["a"], pair["b"])
    assert not hits(pair["b"], pair["a"])


def test_the_paraphrase_hit_rate_stays_above_three_quarters() -> None:
    hit = [pair for pair in PARAPHRASES if hits(pair["a"], pair["b"])]
    assert len(hit) / len(PARAPHRASES) >= 0.75, [p["b"] for p in PARAPHRASES if p not in hit]


def test_every_cache_hit_carries_the_verdict_a_fresh_run_of_that_question_earns(settings: Settings) -> None:
    graph = build_graph(settings=settings)
    checked = 0
    for pair in PARAPHRASES:
        if not hits(pair["a"], pair["b"]):
            continue
        first = graph.invoke({"question": clean_question(pair["a"])})
        if first["outcome"] != "accepted":
            continue  # never cached
        fresh = graph.invoke({"question": clean_question(pair["b"])})
        assert (fresh["outcome"], fresh["gates"]) == ("accepted", first["gates"]), pair
        checked += 1
    assert checked >= 30
