"""The cache against a labelled set: paraphrases that should hit, contrasts that must never hit.

``tests/data/cache_pairs.jsonl`` holds question pairs, each labelled ``paraphrase`` (the
same question, spelled differently: should hit) or ``contrast`` (a different question
sharing most words: negations, antonyms, modal verbs, quantifiers, numbers, roles,
comparatives, tense, pronouns, symbols, other scripts, sibling terms; must never hit).
The contrast rule is absolute, whatever finds the candidates: the exact key, a
deterministic fake embedding, or the real all-MiniLM-L6-v2 at its space's threshold.
The paraphrase hit rate is a floor that guards against the cache becoming useless.
``bench/cache_pairs.py`` prints both figures.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings

from askai_graph import Settings, build_graph
from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings
from askai_graph.server.answers.cache import InMemoryCacheStore, SemanticCache
from askai_graph.server.answers.same_question import clean_question

PAIRS = [json.loads(line) for line in (Path(__file__).parent / "data" / "cache_pairs.jsonl").read_text().splitlines()]
PARAPHRASES = [pair for pair in PAIRS if pair["kind"] == "paraphrase"]
CONTRASTS = [pair for pair in PAIRS if pair["kind"] == "contrast"]
GATES = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def hits(first: str, second: str, embeddings: Embeddings | None = None, space: str | None = None) -> bool:
    """Cache an accepted answer to ``first``; say whether ``second`` is served it (as the server asks)."""

    async def scenario() -> bool:
        semantic = SemanticCache(InMemoryCacheStore(4), namespace="pairs", embeddings=embeddings, space=space)
        question = clean_question(first)
        probe = await semantic.lookup(question)
        final = {"question": question, "answer": "A.", "outcome": "accepted", "gates": GATES}
        await semantic.remember(probe, final)
        return (await semantic.lookup(clean_question(second))).hit is not None

    return asyncio.run(scenario())


def test_the_labelled_set_covers_every_kind_of_contrast_the_cache_must_refuse() -> None:
    categories = {pair["category"] for pair in CONTRASTS}
    wanted = {"negation", "antonym", "modal", "quantifier", "number", "roles", "non-latin", "comparative", "tense"}
    wanted |= {"name-case", "acronym-case", "plural-name", "ing-noun", "superscript", "list-marker"}
    assert wanted <= categories | {"sibling"}
    assert len(CONTRASTS) >= 60 and len(PARAPHRASES) >= 40
    # What an embedding model is for (different words, one meaning), and what it confuses.
    assert sum(pair["category"] == "synonym" for pair in PARAPHRASES) >= 12
    assert sum(pair["category"] == "sibling" for pair in CONTRASTS) >= 12


@pytest.mark.parametrize("pair", CONTRASTS, ids=lambda pair: f"{pair['category']}:{pair['b'][:40]}")
def test_a_contrast_pair_never_hits_either_way(pair: dict[str, Any]) -> None:
    assert not hits(pair["a"], pair["b"])
    assert not hits(pair["b"], pair["a"])


def test_the_paraphrase_hit_rate_stays_above_three_quarters() -> None:
    # Synonyms are beyond an exact key by definition: they are the embedding model's job.
    spelled = [pair for pair in PARAPHRASES if pair["category"] != "synonym"]
    hit = [pair for pair in spelled if hits(pair["a"], pair["b"])]
    assert len(hit) / len(spelled) >= 0.75, [p["b"] for p in spelled if p not in hit]


class SynonymEmbeddings(LexicalEmbeddings):
    """A deterministic stand-in for a neural model: the lexical vector after folding known synonyms."""

    SYNONYMS = {"pick": "choose", "assess": "measure", "spot": "detect", "save": "store", "reranking": "rerankers"}

    def embed_query(self, text: str) -> list[float]:
        words = [self.SYNONYMS.get(word.strip("?").lower(), word) for word in text.split()]
        return super().embed_query(" ".join(words))


def test_an_embedding_that_folds_synonyms_serves_the_synonym_paraphrase() -> None:
    assert hits("How do I choose a chunk size?", "How do I pick a chunk size?", SynonymEmbeddings())
    assert not hits("How do I choose a chunk size?", "How do I pick a chunk size?")


class Identical(Embeddings):
    """The worst paraphrase model: every question is the same point."""

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]


def test_whatever_the_embedding_says_the_contrast_check_refuses_all_but_same_shaped_word_swaps() -> None:
    # Only pairs that differ in one content word at the same place get past the check: the
    # threshold of the embedding space must keep those apart ("semantic"/"prompt" caching).
    leaked = {
        pair["category"]
        for pair in CONTRASTS
        if hits(pair["a"], pair["b"], Identical()) or hits(pair["b"], pair["a"], Identical())
    }
    assert leaked <= {"sibling", "shared-words", "inflection-trap"}


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


@pytest.fixture(scope="module")
def local_model(neural_extra: None) -> tuple[Embeddings, str]:
    """The neural extra's all-MiniLM-L6-v2, each question embedded once, and its space name."""
    from askai_graph.retrieval.embeddings import embeddings_for, model_key

    settings = Settings(embeddings="local")
    model = embeddings_for(settings)
    assert model is not None
    vectors: dict[str, list[float]] = {}

    class Once(Embeddings):
        def embed_query(self, text: str) -> list[float]:
            if text not in vectors:
                vectors[text] = model.embed_query(text)
            return vectors[text]

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [self.embed_query(text) for text in texts]

        async def aembed_query(self, text: str) -> list[float]:
            return self.embed_query(text)

    return Once(), str(model_key(settings))


def test_with_the_local_model_no_contrast_pair_hits_and_more_paraphrases_do(
    local_model: tuple[Embeddings, str],
) -> None:
    model, space = local_model
    leaks = [
        pair
        for pair in CONTRASTS
        if hits(pair["a"], pair["b"], model, space) or hits(pair["b"], pair["a"], model, space)
    ]
    assert not leaks
    neural = sum(hits(pair["a"], pair["b"], model, space) for pair in PARAPHRASES)
    keys = sum(hits(pair["a"], pair["b"]) for pair in PARAPHRASES)
    assert neural >= keys + 3, (neural, keys)


def test_the_servers_cache_shares_the_retrievers_local_model_and_serves_its_synonyms(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, neural_extra: None
) -> None:
    import askai_graph.retrieval.embeddings
    from askai_graph.models.providers import default_retriever
    from askai_graph.server.app import answer_cache

    def second_copy(_: Settings) -> None:
        raise AssertionError("the cache loaded a second copy of the retriever's model")

    local = settings.model_copy(update={"embeddings": "local"})
    retriever = default_retriever(local)  # what create_app builds the graph and the cache from
    # The retriever has its model; from here on, loading one would be the cache's second copy.
    monkeypatch.setattr(askai_graph.retrieval.embeddings, "embeddings_for", second_copy)
    cache = answer_cache(local, InMemoryCacheStore(8), namespace="corpus-fp", retriever=retriever)
    assert (cache.space, cache.threshold) == ("local:all-MiniLM-L6-v2", 0.88)

    async def scenario() -> tuple[bool, bool]:
        probe = await cache.lookup("How do I choose a chunk size?")
        await cache.remember(probe, {"answer": "A.", "outcome": "accepted", "gates": GATES})
        synonym = await cache.lookup("How do I pick a chunk size?")
        sibling = await cache.lookup("How do I choose a page size?")
        return synonym.hit is not None, sibling.hit is not None

    assert asyncio.run(scenario()) == (True, False)
