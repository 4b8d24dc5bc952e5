"""Section vectors: one embedding per section for the Writer and anchoring, warmed before a first question."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from askai_graph import Settings, load_corpus
from askai_graph.models.offline.writer import ExtractiveWriter
from askai_graph.models.writing import DraftRequest
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval import section_vectors
from askai_graph.retrieval.anchoring import Meaning
from askai_graph.retrieval.section_vectors import site_sections, warm, warm_retriever
from askai_graph.retrieval.sections import page_sections
from tests.fakes import ConceptEmbeddings, post

TRAIL = """Pack the tent and the stove for the trip; pack the trip map too.

## Hydration

Pack a filter for the trip: thirsty hikers drink from streams on every trip.

## Streams

After the rain, mountain streams run muddy and thirsty hikers wait.
"""
QUESTION = "What should I pack for water on the trip?"


def test_the_writer_and_anchoring_embed_each_section_once_between_them() -> None:
    model = ConceptEmbeddings()
    found = to_search_results([post(1, TRAIL)], top_k=6)
    ExtractiveWriter(embeddings=model).write(DraftRequest(question=QUESTION, search_results=found))
    embedded = list(model.texts)
    Meaning(model).closest("Pack a filter for the trip.", page_sections(found))
    assert embedded and model.texts == embedded  # anchoring found the Writer's vectors


def test_an_answer_over_a_warmed_site_embeds_no_section(tmp_path: Path) -> None:
    model = ConceptEmbeddings()
    assert warm(model, [("Page 1", TRAIL)], "fake", tmp_path) == 3
    warmed = len(model.texts)
    found = to_search_results([post(1, TRAIL)], top_k=6)
    ExtractiveWriter(embeddings=model).write(DraftRequest(question=QUESTION, search_results=found))
    assert len(model.texts) == warmed


def test_a_restart_reads_the_warmed_vectors_from_disk(tmp_path: Path) -> None:
    pages = [("Page 1", TRAIL)]
    warm(ConceptEmbeddings(), pages, "fake", tmp_path)
    again = ConceptEmbeddings()  # a new process' model: nothing in memory
    assert warm(again, pages, "fake", tmp_path) == 3
    assert again.texts == []
    assert len(section_vectors.shared(again)) == 3


def test_a_changed_page_re_embeds_only_its_own_sections(tmp_path: Path) -> None:
    before = [("Page 1", TRAIL), ("Page 2", "Boots need breaking in before the trip.")]
    warm(ConceptEmbeddings(), before, "fake", tmp_path)
    after = [before[0], ("Page 2", "Boots and shoes need breaking in before the trip.")]
    again = ConceptEmbeddings()
    warm(again, after, "fake", tmp_path)
    assert again.texts == site_sections(after[1:])


def test_another_model_does_not_read_the_cached_vectors(tmp_path: Path) -> None:
    pages = [("Page 1", TRAIL)]
    warm(ConceptEmbeddings(), pages, "fake", tmp_path)
    other = ConceptEmbeddings()
    warm(other, pages, "another model", tmp_path)
    assert sorted(other.texts) == sorted(site_sections(pages))


def test_a_site_larger_than_the_bound_is_left_to_the_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(section_vectors, "WARM_SECTIONS", 2)
    model = ConceptEmbeddings()
    assert warm(model, [("Page 1", TRAIL)], "fake", tmp_path) == 0
    assert model.texts == []


def test_a_retriever_without_an_embedding_model_warms_nothing(tmp_path: Path) -> None:
    from askai_graph.retrieval.pages import BM25Retriever

    assert warm_retriever(BM25Retriever(corpus=load_corpus(None), cache_dir=tmp_path)) == 0


def test_a_model_that_fails_while_warming_leaves_the_sections_to_the_answers(tmp_path: Path) -> None:
    class Failing(ConceptEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            raise RuntimeError("provider down")

    retriever = SimpleNamespace(
        embeddings=Failing(), corpus=load_corpus(None), cache_dir=tmp_path, embeddings_model="fake"
    )
    assert warm_retriever(retriever) == 0


def test_the_server_warms_the_sections_of_the_corpus_it_builds_a_graph_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from askai_graph.server.answers.reload import default_reloader

    warmed: list[Any] = []
    monkeypatch.setattr(section_vectors, "warm_retriever", warmed.append)
    reloader = default_reloader(Settings(index_cache_dir=tmp_path), None, lambda *_: None)
    reloader.attach(InMemorySaver())
    assert warmed == [reloader.retriever]
