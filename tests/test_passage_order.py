"""A model Writer's context weighs each section by where the retriever ranked its passage (issue #35)."""

from __future__ import annotations

from pathlib import Path

from langchain_core.documents import Document

from askai_graph.evaluation.context import context_ranking
from askai_graph.evidence.results import SearchResult
from askai_graph.nodes.research import to_search_results
from askai_graph.retrieval.corpus import Corpus, Page
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.sections import page_sections, section_slice

FILLER = "Some words that say little about anything in particular here. " * 8
LONG = "Opening words of the manual.\n\n" + "\n\n".join(
    f"## Part {n}\n\n{FILLER}" + ("The quaystone purge command removes finished jobs. " * (3 if n == 3 else 0))
    for n in range(1, 6)
)
# Two entries the question matches equally; only the retriever's order tells them apart.
TWIN = "## Alpha\n\nThe widget option sets the cache size.\n\n## Beta\n\nThe widget option sets the cache size."
BETA = TWIN.index("## Beta")


def twin(*order: tuple[int, int]) -> SearchResult:
    return SearchResult(title="Manual", source_url="https://docs.example/a", content=TWIN, passage_order=order)


def retriever(body: str, cache: Path, passage_chars: int = 700) -> BM25Retriever:
    manual = Page(title="Manual", url="https://docs.example/manual/", body=body)
    other = Page(title="Changelog", url="https://docs.example/changes/", body="Release notes of every version. " * 5)
    corpus = Corpus(posts=(manual, other), fingerprint=f"manual-{len(body)}")
    return BM25Retriever(corpus=corpus, k=1, passage_chars=passage_chars, cache_dir=cache)


def test_a_page_handed_as_several_passages_says_where_each_starts_and_how_the_retriever_ranked_it(
    tmp_path: Path,
) -> None:
    (document,) = retriever(LONG, tmp_path).invoke("quaystone purge finished jobs part")
    order = document.metadata["passage_order"]
    assert len(order) > 1
    assert sorted(rank for _, rank in order) == list(range(len(order)))
    best = next(start for start, rank in order if rank == 0)
    assert document.page_content[best:].startswith("## Part 3\n")
    assert all(document.page_content[start:].startswith("## Part ") for start, _ in order[1:])


def test_a_page_handed_whole_has_no_passage_order(tmp_path: Path) -> None:
    (document,) = retriever("# Manual\n\nThe quaystone purge command.", tmp_path).invoke("quaystone purge")
    assert "passage_order" not in document.metadata


def test_research_keeps_the_passage_order_and_drops_a_malformed_one() -> None:
    def document(order: object) -> Document:
        return Document(page_content=TWIN, metadata={"source_url": "https://docs.example/a", "passage_order": order})

    (kept,) = to_search_results([document([[0, 1], [BETA, 0]])], top_k=1)
    (dropped,) = to_search_results([document([[0, "1"], [BETA, 0]])], top_k=1)
    assert kept.passage_order == ((0, 1), (BETA, 0)) and dropped.passage_order == ()


def test_a_section_takes_the_rank_of_the_passage_it_sits_in() -> None:
    result = twin((0, 4), (BETA, 0))
    assert [(s.heading, s.passage) for s in page_sections([result])] == [("Alpha", 4), ("Beta", 0)]
    unordered = result.model_copy(update={"passage_order": ()})
    assert [s.passage for s in page_sections([unordered])] == [0, 0]


def test_a_model_writers_context_holds_the_section_of_the_passage_the_retriever_ranked_better() -> None:
    budget = len(TWIN) // 2 + 1  # room for one of the two sections
    ordered = twin((0, 5), (BETA, 0))
    ((_, text),) = section_slice("How do I set the widget cache size?", [ordered], budget)
    assert text.startswith("## Beta")
    unordered = ordered.model_copy(update={"passage_order": ()})
    ((_, text),) = section_slice("How do I set the widget cache size?", [unordered], budget)
    assert text.startswith("## Alpha")


def test_context_recall_ranks_the_sections_as_the_model_writers_context_is_filled() -> None:
    ordered = twin((0, 5), (BETA, 0))
    ranked = context_ranking("How do I set the widget cache size?", [ordered])
    assert [section.heading for section, _ in ranked] == ["Beta", "Alpha"]
