"""Passage vectors stored with a built index: embedded once, re-embedded only where a page changed or the model did."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from askai_graph import CorpusError, load_corpus
from askai_graph.indexing import build_index
from askai_graph.retrieval.dense import check_embedded_with
from askai_graph.retrieval.hybrid import DenseRetriever, HybridRetriever
from tests.fakes import ConceptEmbeddings

SITE = Path(__file__).parent / "data" / "sites" / "hugo"
BASE = "https://trail.example/"
PAGES = 7  # the hugo site's posts, drafts left out; each is one passage


@pytest.fixture
def hugo(tmp_path: Path) -> Path:
    shutil.copytree(SITE, tmp_path / "hugo")
    return tmp_path / "hugo"


def build(source: Path, out: Path, embeddings: ConceptEmbeddings | None, model: str | None = "fake:a") -> int:
    summary = build_index(source, out, base_url=BASE, embeddings=embeddings, embeddings_model=model)
    return summary.embedded


def vectors(index: Path) -> np.ndarray:
    return np.load(index / "embeddings.npy")


def vector_of_page(index: Path) -> dict[str, bytes]:
    """Each page's (single passage's) stored vector, by URL: rows follow passage ids, which move."""
    with sqlite3.connect(index / "pages.sqlite3") as db:
        rows = db.execute("SELECT po.url FROM passages p JOIN posts po ON po.id = p.post_id ORDER BY p.id").fetchall()
    return {url: row.tobytes() for (url,), row in zip(rows, vectors(index), strict=True)}


def test_first_build_embeds_every_passage_and_records_the_model(hugo: Path, tmp_path: Path) -> None:
    embeddings = ConceptEmbeddings()
    assert build(hugo, tmp_path / "index", embeddings) == PAGES
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert manifest["embeddings"] == {"model": "fake:a", "dimensions": 10, "dtype": "float16"}
    assert vectors(tmp_path / "index").shape == (PAGES, 10)
    assert vectors(tmp_path / "index").dtype == np.float16
    assert len(embeddings.texts) == PAGES


def test_a_changed_page_re_embeds_its_passage_alone(hugo: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build(hugo, index, ConceptEmbeddings())
    before = vector_of_page(index)
    page = hugo / "posts" / "first-aid-kit.md"
    page.write_text(page.read_text().replace("foil blanket", "foil blanket and warm winter layers"))
    embeddings = ConceptEmbeddings()
    assert build(hugo, index, embeddings) == 1
    (text,) = embeddings.texts
    assert "warm winter layers" in text
    after = vector_of_page(index)
    assert [url for url in before if before[url] != after[url]] == ["https://trail.example/posts/first-aid-kit/"]


def test_an_unchanged_rebuild_embeds_nothing(hugo: Path, tmp_path: Path) -> None:
    build(hugo, tmp_path / "index", ConceptEmbeddings())
    embeddings = ConceptEmbeddings()
    assert build(hugo, tmp_path / "index", embeddings) == 0
    assert embeddings.texts == []


def test_another_model_re_embeds_every_passage(hugo: Path, tmp_path: Path) -> None:
    build(hugo, tmp_path / "index", ConceptEmbeddings(), model="fake:a")
    embeddings = ConceptEmbeddings()
    assert build(hugo, tmp_path / "index", embeddings, model="fake:b") == PAGES
    assert len(embeddings.texts) == PAGES
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert manifest["embeddings"]["model"] == "fake:b"


def test_the_same_model_reading_another_length_re_embeds_every_passage(hugo: Path, tmp_path: Path) -> None:
    class Reading(ConceptEmbeddings):
        def __init__(self, max_tokens: int) -> None:
            super().__init__()
            self.max_tokens = max_tokens

    build(hugo, tmp_path / "index", Reading(256))
    assert build(hugo, tmp_path / "index", Reading(256)) == 0
    assert build(hugo, tmp_path / "index", Reading(128)) == PAGES
    assert build(hugo, tmp_path / "index", Reading(128)) == 0
    assert build(hugo, tmp_path / "index", ConceptEmbeddings()) == PAGES  # a length unknown is no match


def test_a_build_without_a_model_drops_the_vectors(hugo: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build(hugo, index, ConceptEmbeddings())
    build(hugo, index, None, model=None)
    assert json.loads((index / "askai-index.json").read_text())["embeddings"] is None
    assert not (index / "embeddings.npy").exists()
    with sqlite3.connect(index / "pages.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM embeddings").fetchone() == (0,)
    # Back to the model: every passage is embedded again, none is trusted from before.
    assert build(hugo, index, ConceptEmbeddings()) == PAGES


@pytest.mark.parametrize(("model", "stored"), [(None, "no model"), ("fake:b", "fake:b")])
def test_an_index_embedded_otherwise_is_refused_in_one_line_naming_the_fix(
    hugo: Path, tmp_path: Path, model: str | None, stored: str
) -> None:
    build(hugo, tmp_path / "index", ConceptEmbeddings() if model else None, model=model)
    with pytest.raises(CorpusError) as refused:
        check_embedded_with(load_corpus(tmp_path / "index"), "fake:a")
    message = str(refused.value)
    assert "\n" not in message
    assert f"embedded with {stored}, not fake:a" in message and "askai index" in message
    with pytest.raises(ValueError, match=f"embedded with {stored}, not fake:a"):  # the retriever checks it too
        DenseRetriever(corpus=load_corpus(tmp_path / "index"), embeddings=ConceptEmbeddings(),
                       embeddings_model="fake:a")


def test_hybrid_over_a_built_index_ranks_as_over_the_same_site_in_memory(hugo: Path, tmp_path: Path) -> None:
    build(hugo, tmp_path / "index", ConceptEmbeddings())
    question = "drink water in warm weather before the storm"
    built = HybridRetriever(corpus=load_corpus(tmp_path / "index"), embeddings=ConceptEmbeddings(),
                            embeddings_model="fake:a", k=10)
    memory = HybridRetriever(corpus=load_corpus(hugo, base_url=BASE), embeddings=ConceptEmbeddings(),
                             embeddings_model="fake:a", k=10, cache_dir=tmp_path / "cache")
    assert [d.metadata["source_url"] for d in built.invoke(question)] == [
        d.metadata["source_url"] for d in memory.invoke(question)
    ]


def test_a_model_needs_a_name_to_be_stored_under(hugo: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="model name"):
        build(hugo, tmp_path / "index", ConceptEmbeddings(), model=None)
