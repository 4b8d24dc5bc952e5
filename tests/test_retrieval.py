"""BM25 retrieval: relevance, the on-disk index cache, and the Document contract."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from askai_graph import BM25Retriever, load_corpus
from askai_graph.indexing import build_index

CORPUS = load_corpus()
SITE = Path(__file__).resolve().parents[1] / "askai_graph" / "sample_site"


def test_best_post_ranks_first_and_metadata_carries_the_contract(tmp_path: Path) -> None:
    docs = BM25Retriever(corpus=CORPUS, k=3, cache_dir=tmp_path).invoke("reciprocal rank fusion")
    assert docs[0].metadata["source_url"].endswith("hybrid-search-and-rank-fusion")
    assert {"source_url", "title", "images"} <= set(docs[0].metadata)
    assert len(docs) == 3


def test_posts_sharing_no_term_with_the_query_are_not_returned(tmp_path: Path) -> None:
    assert BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("sourdough bread") == []


def test_query_of_only_stop_words_returns_nothing(tmp_path: Path) -> None:
    assert BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("what is the") == []


def test_index_is_cached_by_corpus_fingerprint_and_reloaded(tmp_path: Path) -> None:
    first = BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("semantic cache")
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith(CORPUS.fingerprint) and (folder / "params.index.json").exists()
    assert BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("semantic cache") == first


def test_corrupt_index_cache_is_rebuilt(tmp_path: Path) -> None:
    BM25Retriever(corpus=CORPUS, cache_dir=tmp_path)
    (folder,) = tmp_path.iterdir()
    (folder / "params.index.json").write_text("{broken")
    assert BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("semantic cache")
    assert list(tmp_path.iterdir()) == [folder]
    assert BM25Retriever(corpus=CORPUS, cache_dir=tmp_path).invoke("semantic cache")


def ranking_thread(retriever: BM25Retriever, query: str) -> str:
    """Return the name of the thread an async query was ranked in."""
    seen: list[str] = []
    rank = retriever._candidates

    def noted(*args: Any) -> Any:
        seen.append(threading.current_thread().name)
        return rank(*args)

    object.__setattr__(retriever, "_candidates", noted)
    assert asyncio.run(retriever.ainvoke(query))
    return seen[0]


def test_an_async_query_of_a_corpus_in_memory_is_ranked_on_the_event_loop(tmp_path: Path) -> None:
    assert ranking_thread(BM25Retriever(corpus=CORPUS, cache_dir=tmp_path), "semantic cache") == "MainThread"


def test_an_async_query_of_a_built_index_is_ranked_off_the_event_loop(tmp_path: Path) -> None:
    build_index(SITE, tmp_path / "index")
    retriever = BM25Retriever(corpus=load_corpus(tmp_path / "index"))
    assert ranking_thread(retriever, "semantic cache") != "MainThread"
