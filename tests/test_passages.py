"""Long pages are retrieved by passage (split at headings) but cited and shown as one page."""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np
import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.indexing import build_index
from askai_graph.retrieval.bm25 import K1, B, BM25Index, Vocabulary, build_bm25, top_documents
from askai_graph.retrieval.corpus import Page
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.passages import TITLE_REPEATS, passage_terms, split_passages
from askai_graph.text.terms import content_terms

SITES = Path(__file__).parent / "data" / "sites"
LONG = "Opening words of the page.\n\n" + "\n\n".join(
    f"## Part {n}\n\n" + f"Sentence {n} about part {n} of the page. " * 20 for n in range(1, 5)
)


def test_short_page_is_one_passage() -> None:
    (passage,) = split_passages("# Title\n\nShort body.", max_chars=1500)
    assert passage.text == "# Title\n\nShort body."


def test_long_page_is_split_at_headings_and_each_passage_keeps_its_heading() -> None:
    passages = split_passages(LONG, max_chars=600)
    assert [p.heading for p in passages] == ["", "Part 1", "Part 2", "Part 3", "Part 4"]
    assert all(p.text.startswith(f"## {p.heading}\n\n") for p in passages[1:])


def test_hash_lines_inside_code_fences_are_not_headings() -> None:
    body = "Intro text.\n\n```sh\n# install it\npip install x\n```\n\n" + "filler words " * 200
    assert [p.heading for p in split_passages(body, max_chars=600)] == ["", ""]


def test_overlong_section_is_cut_between_paragraphs_and_repeats_its_heading() -> None:
    body = "## Setup\n\n" + "\n\n".join(f"Paragraph number {n} of the setup section goes on." for n in range(40))
    passages = split_passages(body, max_chars=400)
    assert len(passages) > 3
    assert all(p.heading == "Setup" and p.text.startswith("## Setup\n\n") and len(p.text) <= 450 for p in passages)


def test_passage_terms_carry_the_page_title_and_section_heading() -> None:
    post = Page(title="Getting started", url="https://s.example/", body=LONG)
    passage = split_passages(LONG, 600)[2]
    terms = passage_terms(post, passage, first=False)
    assert {"start", "part"} <= set(terms)


def test_the_page_title_counts_more_than_the_section_heading_in_passage_terms() -> None:
    post = Page(title="Testing", url="https://s.example/", body=LONG)
    passage = split_passages(LONG, 600)[2]  # heading "Part 2"
    terms = passage_terms(post, passage, first=False)
    body_terms = content_terms(passage.text)
    assert terms.count("test") - body_terms.count("test") == TITLE_REPEATS == 3
    assert terms.count("part") - body_terms.count("part") == 2  # the heading counts twice


def test_query_matching_one_section_returns_that_section_as_the_page_evidence(tmp_path: Path) -> None:
    build_index(SITES / "mkdocs", tmp_path / "index", base_url="https://docs.example/")
    (top, *_) = BM25Retriever(corpus=load_corpus(tmp_path / "index"), k=3).invoke("purge finished jobs retention")
    assert top.metadata["source_url"] == "https://docs.example/reference/cli/"
    assert "## quaystone purge" in top.page_content
    assert "## quaystone stats" not in top.page_content
    assert top.metadata["title"] == "Command reference"
    assert "quaystone purge" in top.metadata["sections"]


def test_a_page_matching_in_several_passages_is_one_document() -> None:
    corpus = load_corpus(SITES / "mkdocs", base_url="https://docs.example/")
    documents = BM25Retriever(corpus=corpus, k=6, passage_chars=600).invoke("quaystone command option")
    urls = [d.metadata["source_url"] for d in documents]
    assert len(urls) == len(set(urls))


def test_answer_over_passages_cites_the_page_url_and_shows_one_card_per_page(
    tmp_path: Path, index_cache: Path
) -> None:
    build_index(SITES / "mkdocs", tmp_path / "index", base_url="https://docs.example/")
    graph = build_graph(settings=Settings(corpus=tmp_path / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": "How do I delete finished jobs older than the retention period?"})
    assert final["outcome"] == "accepted"
    assert "(https://docs.example/reference/cli/)" in final["answer"]
    cards = [source.url for source in final["sources"]]
    assert cards[0] == "https://docs.example/reference/cli/"
    assert len(cards) == len(set(cards))


@pytest.mark.parametrize("chunk", [5, 16_384])
def test_vectorised_bm25_matches_bm25s_own_index(chunk: int) -> None:
    corpus = load_corpus()
    documents = [content_terms(post.body) for post in corpus.posts]
    vocabulary = Vocabulary()
    ours = build_bm25([vocabulary.encode(d) for d in documents], vocabulary, chunk=chunk)
    reference = bm25s.BM25(k1=K1, b=B)
    reference.index(documents, show_progress=False)
    for query in ("semantic cache hit", "bm25 saturation k1", "retries timeouts fallbacks"):
        terms = content_terms(query)
        ids, scores = reference.retrieve([terms], k=5, show_progress=False, n_threads=1)
        found = top_documents(ours, terms, 5)
        assert [doc for doc, _ in found] == ids[0].tolist()
        assert np.allclose([score for _, score in found], scores[0], rtol=1e-5)


def test_bm25_normalises_passage_length_with_b_065() -> None:
    # One term, once in a 2-term and once in an 8-term document (average length 5).
    vocabulary = Vocabulary()
    documents = [["alpha", "pad"], ["alpha"] + [f"w{i}" for i in range(7)]]
    index = build_bm25([vocabulary.encode(d) for d in documents], vocabulary)
    scores = dict(top_documents(index, ["alpha"], 2))
    norm = [1.5 * (1 - 0.65 + 0.65 * length / 5) for length in (2, 8)]
    assert scores[0] / scores[1] == pytest.approx((1 + norm[1]) / (1 + norm[0]), rel=1e-5)


def test_encoding_text_equals_encoding_its_content_terms() -> None:
    text = "The caches were CACHED; caching isn't what it's about, a b c 42 café's"
    fast, slow = Vocabulary(), Vocabulary()
    assert fast.encode_text(text).tolist() == slow.encode(content_terms(text)).tolist()
    assert fast.ids == slow.ids


def test_a_long_section_is_never_cut_inside_a_code_block() -> None:
    code = "```python\n" + "\n\n".join(f"step_{i}()" for i in range(40)) + "\n```"
    body = "# Setup\n\nRun these steps.\n\n" + code + "\n\n" + "More prose follows here. " * 20
    passages = split_passages(body, 200)
    assert len(passages) > 1
    assert any(code in passage.text for passage in passages)
    assert all(passage.text.count("```") % 2 == 0 for passage in passages)


def test_a_saved_bm25_index_is_read_alike_by_bm25s_and_without_it(tmp_path: Path) -> None:
    documents = [content_terms(post.body) for post in load_corpus().posts]
    vocabulary = Vocabulary()
    ours = build_bm25([vocabulary.encode(d) for d in documents], vocabulary)
    ours.save(tmp_path / "bm25")
    theirs = bm25s.BM25.load(str(tmp_path / "bm25"), load_vocab=True)
    reopened = BM25Index.load(tmp_path / "bm25", mmap=True)
    assert reopened.vocab_dict == theirs.vocab_dict == vocabulary.ids
    for query in ("semantic cache hit cache", "bm25 saturation k1", "retries timeouts fallbacks"):
        ids = [vocabulary.ids[t] for t in content_terms(query) if t in vocabulary.ids]
        expected = theirs.get_scores_from_ids(ids)
        assert np.array_equal(reopened.get_scores_from_ids(ids), expected)
        assert np.array_equal(ours.get_scores_from_ids(ids), expected)
