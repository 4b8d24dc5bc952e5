"""Apps sharing a cache store never serve each other's answers when their configurations differ."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from askai_graph import Settings, build_graph
from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings
from askai_graph.retrieval.question_cache import CachedQuestions
from askai_graph.server import InMemoryCacheStore, SemanticCache, create_app
from askai_graph.server.app import answer_cache
from askai_graph.state import Source
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do retrieval and caching work?"


def app(settings: Settings, store: InMemoryCacheStore) -> tuple[Any, Any]:
    writer = replies(cited_draft(1))
    graph = build_graph(writer=writer, critic=replies(PASSING), retriever=retriever(1), settings=settings)
    return create_app(graph, settings, namespace="corpus-fp", cache_store=store), writer


@pytest.mark.parametrize("change", [{"min_confidence": 0.95}, {"model": "gpt-4.1-mini"}, {"max_attempts": 1}])
def test_a_differently_configured_app_sharing_the_store_runs_its_own_graph(
    settings: Settings, change: dict[str, Any]
) -> None:
    store = InMemoryCacheStore(8)
    first, _ = app(settings, store)
    second, writer = app(settings.model_copy(update=change), store)
    with LiveServer(first) as base:
        assert sse_events(base, QUESTION)[-1][1]["outcome"] == "accepted"
    with LiveServer(second) as base:
        done = sse_events(base, QUESTION)[-1][1]
    # The strict app earns its own verdict (a stricter Critic degrades it), never the lax app's.
    assert done["cached"] is False and writer.calls >= 1


def test_an_identically_configured_app_sharing_the_store_serves_the_cached_answer(settings: Settings) -> None:
    store = InMemoryCacheStore(8)
    first, _ = app(settings, store)
    second, writer = app(settings, store)
    with LiveServer(first) as base:
        sse_events(base, QUESTION)
    with LiveServer(second) as base:
        done = sse_events(base, QUESTION)[-1][1]
    assert done["cached"] is True
    assert done["gates"] == {"retrieval": "passed", "validation": "passed", "critic": "passed"}
    assert writer.calls == 0


def app_cache(settings: Settings, **kwargs: Any) -> SemanticCache:
    """The answer cache ``create_app`` builds for these settings (no model is called)."""
    return answer_cache(settings, InMemoryCacheStore(8), namespace="corpus-fp", **kwargs)


def test_a_configured_embedding_model_finds_the_caches_paraphrases_in_its_own_space(settings: Settings) -> None:
    configured = settings.model_copy(update={"embeddings": "openai", "base_url": "http://127.0.0.1:9/v1"})
    cache = app_cache(configured)
    # Built, never called here; question vectors are cached per canonical question around it.
    assert isinstance(cache.embeddings, CachedQuestions)
    assert type(cache.embeddings.inner).__name__ == "OpenAIEmbeddings"
    assert cache.space == "openai:text-embedding-3-small" and cache.threshold == 0.9
    assert cache.namespace.endswith(":openai:text-embedding-3-small")


def test_without_paraphrases_or_embeddings_the_cache_serves_the_same_question_only(settings: Settings) -> None:
    off = settings.model_copy(update={"embeddings": "openai", "cache_paraphrases": False})
    assert app_cache(off).embeddings is None
    assert app_cache(settings).embeddings is None


def test_embeddings_given_to_the_app_win_over_the_configured_model(settings: Settings) -> None:
    given = LexicalEmbeddings()
    configured = settings.model_copy(update={"embeddings": "openai"})
    cache = app_cache(configured, embeddings=given)
    assert cache.embeddings is given and cache.threshold == 0.9


def ask(client: Any, base: str, message: str, thread: dict[str, Any] | None = None) -> dict[str, Any]:
    """Ask ``message``, on the thread of an earlier answer's ``done`` if given; return ``done`` and the text."""
    from httpx_sse import connect_sse

    body = {"message": message} | ({k: thread[k] for k in ("thread_id", "thread_token")} if thread else {})
    with connect_sse(client, "POST", f"{base}/api/chat", json=body) as source:
        source.response.raise_for_status()
        events = [(sse.event, json.loads(sse.data)) for sse in source.iter_sse()]
    done = events[-1][1]
    return done | {"text": "".join(data["text"] for event, data in events if event == "token")}


def test_an_answer_written_with_one_readers_history_is_never_served_to_another(settings: Settings) -> None:
    import httpx
    from langgraph.checkpoint.memory import InMemorySaver

    # A model Writer that reads the thread: its second answer greets the reader by the
    # name their first question gave.
    writer = replies(cited_draft(1), "Zelda, r" + cited_draft(1)[1:], cited_draft(1))
    graph = build_graph(
        writer=writer, critic=replies(PASSING), retriever=retriever(1), settings=settings, checkpointer=InMemorySaver()
    )
    with LiveServer(create_app(graph, settings, namespace="corpus-fp")) as base, httpx.Client(timeout=20) as client:
        first = ask(client, base, "I am Zelda. How does BM25 rank pages?")
        mine = ask(client, base, QUESTION, thread=first)
        assert "I am Zelda" in writer.prompts[1]  # the Writer's prompt carried the reader's earlier turn
        assert mine["outcome"] == "accepted" and mine["text"].startswith("Zelda")
        theirs = ask(client, base, QUESTION)  # another reader, a new thread, the same question
    assert theirs["cached"] is False and "Zelda" not in theirs["text"]
    assert writer.calls == 3


def cards(events: list[tuple[str, Any, str]]) -> list[Any]:
    return [data for name, data, _ in events if name == "sources"]


def test_a_repeated_question_gets_the_cards_of_its_first_answer_before_done(settings: Settings) -> None:
    served, _ = app(settings, InMemoryCacheStore(8))
    with LiveServer(served) as base:
        first = sse_events(base, QUESTION)
        again = sse_events(base, QUESTION)
    assert first[-1][1]["cached"] is False and again[-1][1]["cached"] is True
    assert cards(first) and cards(again) == cards(first)
    assert [name for name, _, _ in again][-2:] == ["sources", "done"]


def test_the_apps_cache_serves_a_hit_only_while_each_card_page_is_in_the_index_it_serves(
    settings: Settings, tmp_path: Path
) -> None:
    from askai_graph.indexing import build_index
    from askai_graph.models.providers import default_retriever

    site = tmp_path / "site"
    site.mkdir()
    for page in ("descaling", "lid"):
        (site / f"{page}.md").write_text(f"---\ntitle: {page}\n---\n\nHow the kettle's {page} works.\n")
    build_index(site, tmp_path / "both", base_url="https://kettle.example/")
    (site / "lid.md").unlink()
    build_index(site, tmp_path / "smaller", base_url="https://kettle.example/")
    store = InMemoryCacheStore(8)

    def served(index: str) -> SemanticCache:
        """The cache the app builds for the corpus it serves (one namespace for both, as a shared one may be)."""
        retriever = default_retriever(settings.model_copy(update={"corpus": tmp_path / index}))
        return answer_cache(settings, store, namespace="kettle", retriever=retriever)

    urls = [f"https://kettle.example/{page}/" for page in ("descaling", "lid")]
    cards = [Source(title=url, url=url) for url in urls]
    gates = {"retrieval": "passed", "validation": "passed", "critic": "passed"}
    final = {"question": QUESTION, "answer": "Both.", "outcome": "accepted", "gates": gates, "sources": cards}

    async def scenario() -> tuple[Any, Any]:
        probe = await served("both").lookup(QUESTION)
        await served("both").remember(probe, final)
        return (await served("both").lookup(QUESTION)).hit, (await served("smaller").lookup(QUESTION)).hit

    on_both, on_smaller = asyncio.run(scenario())
    assert on_both is not None and [card.url for card in on_both.sources] == urls
    assert on_smaller is None  # the lid page is gone: a miss, never a dead card
