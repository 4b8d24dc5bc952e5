"""BM25 retrieval: relevance, the on-disk index cache, and the Document contract."""

from __future__ import annotations

from pathlib import Path

from askai_graph import BM25Retriever, load_corpus

CORPUS = load_corpus()


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
