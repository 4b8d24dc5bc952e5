"""The answer cache: same question only, namespaces, accepted-only, LRU bound, failing safe."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from pydantic import ValidationError

from askai_graph import Settings
from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings
from askai_graph.server.answers.cache import (
    DEFAULT_THRESHOLD,
    SPACE_THRESHOLDS,
    CachedAnswer,
    CacheStore,
    InMemoryCacheStore,
    SemanticCache,
    config_digest,
    default_threshold,
    embedding_space,
)
from askai_graph.state import Source

GATES = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


def final(
    question: str, answer: str = "An answer.", outcome: str = "accepted", sources: Sequence[Source] = ()
) -> dict[str, Any]:
    return {"question": question, "answer": answer, "outcome": outcome, "gates": GATES, "sources": list(sources)}


def card(page: str) -> Source:
    url = f"https://site.example/{page}"
    return Source(title=page.title(), url=url, section="Usage", anchor_url=f"{url}#usage", quote=f"{page} quote")


def cache(store: CacheStore | None = None, namespace: str = "corpus-a", **kwargs: Any) -> SemanticCache:
    store = InMemoryCacheStore(8) if store is None else store  # an empty store is falsy (len 0)
    return SemanticCache(store, namespace=namespace, **kwargs)


async def ask(semantic: SemanticCache, question: str, answer: str | None = None, outcome: str = "accepted") -> Any:
    """Look up ``question``; on a miss with an ``answer``, remember it. Return the hit."""
    probe = await semantic.lookup(question)
    if probe.hit is None and answer is not None:
        await semantic.remember(probe, final(question, answer, outcome))
    return probe.hit


def test_the_same_question_spelled_differently_hits() -> None:
    async def scenario() -> None:
        semantic = cache()
        assert await ask(semantic, "What is semantic caching?", "Cached text.") is None
        hit = await ask(semantic, "semantic CACHING -- what is it?")
        assert isinstance(hit, CachedAnswer)
        assert (hit.answer, hit.outcome, hit.question) == ("Cached text.", "accepted", "What is semantic caching?")

    asyncio.run(scenario())


def test_a_different_question_sharing_words_misses() -> None:
    async def scenario() -> None:
        semantic = cache()
        await ask(semantic, "What is semantic caching?", "Semantic.")
        assert await ask(semantic, "What is prompt caching?") is None

    asyncio.run(scenario())


@pytest.mark.parametrize("outcome", ["accepted_early", "degraded", "fallback"])
def test_only_accepted_answers_are_stored(outcome: str) -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        semantic = cache(store)
        await ask(semantic, "What course articles do you have?", "A list.", outcome)
        assert len(store) == 0
        assert await ask(semantic, "What course articles do you have?") is None

    asyncio.run(scenario())


def test_a_hit_carries_the_cards_its_answer_was_streamed_with() -> None:
    async def scenario() -> None:
        semantic = cache()
        probe = await semantic.lookup("What is semantic caching?")
        await semantic.remember(probe, final("What is semantic caching?", sources=[card("caching"), card("keys")]))
        hit = await ask(semantic, "What is semantic caching?")
        assert hit is not None and hit.sources == (card("caching"), card("keys"))

    asyncio.run(scenario())


def test_a_hit_whose_card_page_left_the_index_is_a_miss_and_the_fresh_answer_replaces_it() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        question = "What is semantic caching?"
        probe = await cache(store).lookup(question)
        await cache(store).remember(probe, final(question, sources=[card("caching"), card("keys")]))
        gone = card("keys").url
        served = cache(store, pages=lambda urls: [url for url in urls if url == gone])
        probe = await served.lookup(question)
        assert probe.hit is None
        await served.remember(probe, final(question, "Fresh.", sources=[card("caching")]))
        hit = await ask(served, question)
        assert hit is not None and (hit.answer, hit.sources) == ("Fresh.", (card("caching"),))
        assert len(store) == 1

    asyncio.run(scenario())


def test_an_entry_stored_without_its_cards_is_a_miss_and_the_fresh_answer_replaces_it() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        semantic = cache(store)
        question = "What is semantic caching?"
        probe = await semantic.lookup(question)
        # What a version that kept no cards stored: ``sources`` absent.
        old = CachedAnswer(question=question, answer="Old.", outcome="accepted", gates=GATES)
        await store.add(semantic.namespace, probe.key, old)
        probe = await semantic.lookup(question)
        assert old.sources is None and probe.hit is None
        await semantic.remember(probe, final(question, "Fresh.", sources=[card("caching")]))
        hit = await ask(semantic, question)
        assert hit is not None and (hit.answer, hit.sources) == ("Fresh.", (card("caching"),))

    asyncio.run(scenario())


def test_an_entry_never_holds_cards_under_an_answer_that_failed_a_gate() -> None:
    failed: Any = GATES | {"critic": "failed"}
    with pytest.raises(ValidationError, match="only when every gate passed"):
        CachedAnswer(question="q", answer="a", outcome="accepted", gates=failed, sources=(card("caching"),))


def test_another_corpus_fingerprint_never_sees_the_answer() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        await ask(cache(store, "corpus-a"), "What is semantic caching?", "Old corpus answer.")
        assert await ask(cache(store, "corpus-b"), "What is semantic caching?") is None
        assert await ask(cache(store, "corpus-a"), "What is semantic caching?") is not None

    asyncio.run(scenario())


def test_the_namespace_includes_the_embedding_space() -> None:
    keys_only = cache()
    lexical = cache(embeddings=LexicalEmbeddings())
    wider = cache(embeddings=LexicalEmbeddings(dimensions=4096 * 2))
    assert len({keys_only.namespace, lexical.namespace, wider.namespace}) == 3


@pytest.mark.parametrize(
    "change",
    [
        {"model": "gpt-4.1-mini"},
        {"writer_model": "llama3.2"},
        {"critic_model": "gpt-4.1"},
        {"base_url": "http://127.0.0.1:11434/v1"},
        {"temperature": 0.9},
        {"max_attempts": 1},
        {"min_confidence": 0.1},
        {"min_answer_relevance": 0.9},
        {"min_intent_alignment": 0.1},
        {"catalog_min_sources": 2},
        {"top_k": 3},
        {"critic_evidence_chars": 1000},
        {"writer_evidence_chars": 1000},
        {"max_tokens": 100},
    ],
    ids=lambda change: next(iter(change)),
)
def test_the_config_digest_changes_with_everything_an_answer_depends_on(change: dict[str, Any]) -> None:
    base = Settings()
    assert config_digest(base.model_copy(update=change)) != config_digest(base)


def test_the_config_digest_ignores_how_the_server_talks() -> None:
    base = Settings()
    serving = {"port": 9999, "heartbeat_seconds": 1.0, "token_chars": 5, "max_streams": 2, "rate_limit": ""}
    assert config_digest(base.model_copy(update=serving)) == config_digest(base)


def test_the_config_digest_changes_with_the_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    from askai_graph.models import prompts

    before = config_digest(Settings())
    monkeypatch.setattr(prompts, "WRITER_SYSTEM", prompts.WRITER_SYSTEM + " Be brief.")
    assert config_digest(Settings()) != before


def test_least_recently_used_answer_is_evicted_at_the_bound() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(2)
        semantic = cache(store)
        await ask(semantic, "What is BM25?", "bm25")
        await ask(semantic, "What is reranking?", "rerank")
        assert await ask(semantic, "What is BM25?") is not None  # now most recently used
        await ask(semantic, "What is chunking?", "chunk")
        assert len(store) == 2
        assert await ask(semantic, "What is reranking?") is None
        assert await ask(semantic, "What is BM25?") is not None
        assert await ask(semantic, "What is chunking?") is not None

    asyncio.run(scenario())


def test_the_same_question_answered_twice_keeps_one_entry() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        semantic = cache(store)
        for answer in ("first", "second"):
            probe = await semantic.lookup("What is BM25?")
            await semantic.remember(probe, final("What is BM25?", answer))
        assert len(store) == 1
        hit = await ask(semantic, "What is BM25?")
        assert hit is not None and hit.answer == "second"

    asyncio.run(scenario())


def test_a_question_without_content_words_is_never_stored_or_hit() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        semantic = cache(store)
        await ask(semantic, "What is it?", "Anything.")
        assert len(store) == 0 and await ask(semantic, "What is it?") is None

    asyncio.run(scenario())


def test_a_question_whose_only_topic_words_have_antonyms_is_stored_and_hit() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(8)
        semantic = cache(store)
        await ask(semantic, "How do I make async requests?", "Use the async client.")
        hit = await ask(semantic, "How do I make async requests?")
        assert len(store) == 1 and hit is not None and hit.answer == "Use the async client."
        assert await ask(semantic, "How do I make sync requests?") is None

    asyncio.run(scenario())


class ConstantEmbeddings(Embeddings):
    """The worst paraphrase model: every question is identical to every other."""

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0, 0.0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]


def test_an_embedding_candidate_is_still_refused_on_a_contrast() -> None:
    async def scenario() -> None:
        semantic = cache(embeddings=ConstantEmbeddings())
        await ask(semantic, "How do I turn caching on?", "On.")
        assert await ask(semantic, "How do I turn caching off?") is None

    asyncio.run(scenario())


def test_an_embedding_finds_a_paraphrase_with_other_content_words() -> None:
    async def scenario() -> None:
        semantic = cache(embeddings=ConstantEmbeddings())
        await ask(semantic, "How do I shrink the index?", "Shrink.")
        hit = await ask(semantic, "How do I compact the index?")
        assert hit is not None and hit.answer == "Shrink."

    asyncio.run(scenario())


class BrokenEmbeddings(Embeddings):
    def embed_query(self, text: str) -> list[float]:
        raise ConnectionError("embedding service down")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embedding service down")


class BrokenStore:
    async def get(self, namespace: str, key: str) -> CachedAnswer | None:
        raise ConnectionError("redis down")

    async def nearest(self, namespace: str, vector: Sequence[float]) -> tuple[float, CachedAnswer] | None:
        raise ConnectionError("redis down")

    async def add(self, namespace: str, key: str, entry: CachedAnswer, vector: Sequence[float] | None = None) -> None:
        raise ConnectionError("redis down")


def test_a_failing_embedder_or_store_is_a_miss_not_an_error() -> None:
    async def scenario() -> None:
        assert isinstance(BrokenStore(), CacheStore)
        broken_embeddings = cache(embeddings=BrokenEmbeddings())
        assert await ask(broken_embeddings, "What is BM25?") is None
        broken_store = cache(BrokenStore())
        probe = await broken_store.lookup("What is BM25?")
        assert probe.hit is None
        assert await broken_store.remember(probe, final("What is BM25?")) is False

    asyncio.run(scenario())


def test_store_rejects_vectors_of_another_size() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(4)
        entry = CachedAnswer(question="q", answer="a", outcome="accepted", gates={})
        await store.add("ns", "q", entry, [1.0, 0.0, 0.0])
        with pytest.raises(ValueError, match="3-d vectors"):
            await store.nearest("ns", [1.0, 0.0])

    asyncio.run(scenario())


def test_store_and_threshold_bounds_are_checked() -> None:
    with pytest.raises(ValueError):
        InMemoryCacheStore(0)
    with pytest.raises(ValueError):
        cache(threshold=0)


def test_store_compares_dense_vectors_by_cosine() -> None:
    async def scenario() -> None:
        store = InMemoryCacheStore(4)
        a = CachedAnswer(question="a", answer="a", outcome="accepted", gates={})
        b = CachedAnswer(question="b", answer="b", outcome="accepted", gates={})
        await store.add("ns", "a", a, [1.0, 1.0, 1.0, 1.0])
        await store.add("ns", "b", b, [1.0, -1.0, 1.0, -1.0])
        found = await store.nearest("ns", [2.0, 2.1, 1.9, 2.0])  # not normalised: the store does it
        assert found is not None and found[1] == a and found[0] > 0.99
        assert await store.nearest("other", [1.0, 1.0, 1.0, 1.0]) is None

    asyncio.run(scenario())


class Named(LexicalEmbeddings):
    """Lexical vectors under another model's name (the threshold follows the space, not the class)."""


def test_the_lexical_space_keeps_its_threshold_and_a_measured_space_gets_its_own() -> None:
    assert cache(embeddings=LexicalEmbeddings()).threshold == DEFAULT_THRESHOLD == 0.9
    measured = cache(embeddings=Named(), space="local:all-MiniLM-L6-v2")
    assert measured.threshold == SPACE_THRESHOLDS["local:all-MiniLM-L6-v2"] == default_threshold(measured.space)
    assert cache(embeddings=Named(), space="openai:text-embedding-3-small").threshold == DEFAULT_THRESHOLD


def test_a_configured_threshold_overrides_the_space_default() -> None:
    assert cache(embeddings=Named(), space="local:all-MiniLM-L6-v2", threshold=0.97).threshold == 0.97


def test_the_space_names_the_namespace_and_a_model_object_is_not_a_name() -> None:
    class Wrapped(Embeddings):
        def __init__(self) -> None:
            self.model = object()  # a loaded model, as a sentence-transformers wrapper holds it

        def embed_query(self, text: str) -> list[float]:
            return [1.0]

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] for _ in texts]

    assert embedding_space(Wrapped()) == "Wrapped"
    assert cache(embeddings=Named(), space="local:m").namespace.endswith(":local:m")
    assert cache(space="local:m").namespace.endswith(":keys-only")  # no embeddings, no vectors compared
