"""Answers and cards from the reader's version and language (``retrieval.scope``).

Over the Docusaurus fixture of ``tests/data/versions``: versions 2.0 (the latest
release) and 1.0 plus ``next``; its fake-timers page says something else in each, and
the Spanish translation has the introduction only.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from askai_graph import build_graph, load_corpus
from askai_graph.cli import main
from askai_graph.indexing import build_index
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.scope import ScopeError, SiteVariants

DOCUSAURUS = Path(__file__).parent / "data" / "versions" / "docusaurus" / "docs"
QUESTION = "How do I fake timers in Gizmo?"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BM25Retriever:
    out = tmp_path_factory.mktemp("scope") / "index"
    build_index(DOCUSAURUS, out)
    return BM25Retriever(corpus=load_corpus(out), cache_dir=out.parent / "cache")


@pytest.fixture(scope="module", params=["built", "in-memory"])
def retriever(request: pytest.FixtureRequest, built: BM25Retriever, tmp_path_factory: pytest.TempPathFactory):
    if request.param == "built":
        return built
    return BM25Retriever(corpus=load_corpus(DOCUSAURUS), cache_dir=tmp_path_factory.mktemp("bm25"))


def urls(retriever: BM25Retriever, **scope: str) -> list[str]:
    return [document.metadata["source_url"] for document in retriever.invoke(QUESTION, **scope)]


@pytest.mark.parametrize(
    ("version", "page"),
    [("1.0", "https://gizmo.example/docs/1.0/fake-timers"), ("2.0", "https://gizmo.example/docs/fake-timers"),
     ("next", "https://gizmo.example/docs/next/fake-timers")],
)
def test_retrieval_returns_only_the_readers_versions_pages(retriever: BM25Retriever, version: str, page: str) -> None:
    found = urls(retriever, version=version)
    assert found[0] == page
    assert all(url.startswith(page.rsplit("/", 1)[0] + "/") and url.count("/") == page.count("/") for url in found)


def test_without_a_version_the_reader_gets_the_latest_release(retriever: BM25Retriever) -> None:
    assert urls(retriever)[0] == "https://gizmo.example/docs/fake-timers"


def test_a_page_not_translated_falls_back_to_the_default_languages_page_and_says_so(
    retriever: BM25Retriever,
) -> None:
    documents = retriever.invoke(QUESTION, locale="es")
    assert [d.metadata["source_url"] for d in documents] == ["https://gizmo.example/docs/fake-timers"]
    assert documents[0].metadata["untranslated"] is True and documents[0].metadata["locale"] == "en"


def test_a_translated_page_is_read_in_the_readers_language(retriever: BM25Retriever) -> None:
    documents = retriever.invoke("Gizmo comprobaciones entorno aislado", locale="es")
    assert documents[0].metadata["source_url"] == "https://gizmo.example/es/docs/intro"
    assert "untranslated" not in documents[0].metadata


def test_a_region_subtag_reads_its_language(retriever: BM25Retriever) -> None:
    documents = retriever.invoke("Gizmo comprobaciones entorno aislado", locale="es-ES")
    assert documents[0].metadata["source_url"] == "https://gizmo.example/es/docs/intro"


def test_a_version_the_site_does_not_have_retrieves_nothing(retriever: BM25Retriever) -> None:
    assert urls(retriever, version="9.9") == []


def test_the_catalog_lists_the_readers_version_in_its_sidebars_order(retriever: BM25Retriever) -> None:
    listed = [d.metadata["source_url"] for d in retriever.catalog(10, version="1.0")]
    assert listed == ["https://gizmo.example/docs/1.0/fake-timers", "https://gizmo.example/docs/1.0/intro"]


def test_site_variants_name_the_version_docusaurus_calls_current_next() -> None:
    variants = SiteVariants(("2.0", "1.0", "next"), "2.0")
    assert variants.version("current") == "next"
    with pytest.raises(ScopeError, match=r"'3\.0' is not a version of this site \(2\.0, 1\.0, next\)"):
        variants.version("3.0")


def test_the_same_question_on_two_versions_cites_each_versions_page(built: BM25Retriever) -> None:
    graph = build_graph(retriever=built)
    cards = {}
    for version in ("1.0", "2.0"):
        result = graph.invoke({"question": QUESTION}, context={"version": version})
        assert result["outcome"] == "accepted", result
        cards[version] = [source.url for source in result["sources"]]
    assert cards == {"1.0": ["https://gizmo.example/docs/1.0/fake-timers"],
                     "2.0": ["https://gizmo.example/docs/fake-timers"]}


def test_an_untranslated_pages_card_says_it_is_in_the_default_language(built: BM25Retriever) -> None:
    result = build_graph(retriever=built).invoke({"question": QUESTION}, context={"locale": "es"})
    assert [(s.url, s.fallback_locale) for s in result["sources"]] == [("https://gizmo.example/docs/fake-timers", "en")]


def test_askai_ask_answers_from_the_version_it_names(
    built: BM25Retriever, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASKAI_CORPUS", str(built.corpus.index.path))
    capsys.readouterr()
    assert main(["ask", "--json", "--version", "1.0", QUESTION]) == 0
    sources = json.loads(capsys.readouterr().out)["sources"]
    assert [source["url"] for source in sources] == ["https://gizmo.example/docs/1.0/fake-timers"]


def test_a_malformed_version_for_askai_ask_is_one_line_and_a_non_zero_exit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--version", "1.0;rm", QUESTION]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--version '1.0;rm' is not a version label" in err


def test_a_version_the_index_lacks_for_askai_ask_is_one_line_naming_its_versions(
    built: BM25Retriever, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASKAI_CORPUS", str(built.corpus.index.path))
    capsys.readouterr()
    assert main(["ask", "--version", "28", QUESTION]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "askai: error: --version '28' is not a version of this site (2.0, 1.0, next)\n"


def test_a_version_on_an_index_without_versions_is_refused_for_askai_ask(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ASKAI_CORPUS", raising=False)  # the bundled site keeps one version
    assert main(["ask", "--version", "1.0", QUESTION]) == 2
    assert capsys.readouterr().err == "askai: error: --version '1.0': this site's index keeps no versions\n"


def test_current_on_an_index_without_versions_is_its_one_version_for_askai_ask(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ASKAI_CORPUS", raising=False)
    assert main(["ask", "--version", "current", "What is BM25?"]) == 0
    assert capsys.readouterr().err == ""


def test_a_version_the_index_lacks_for_askai_chat_is_refused_before_the_first_question(
    built: BM25Retriever, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASKAI_CORPUS", str(built.corpus.index.path))
    monkeypatch.setattr("sys.stdin", io.StringIO(QUESTION + "\n"))
    assert main(["chat", "--version", "28"]) == 2
    assert "is not a version of this site" in capsys.readouterr().err


def test_askai_chat_answers_from_the_version_it_names(
    built: BM25Retriever, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("ASKAI_CORPUS", str(built.corpus.index.path))
    monkeypatch.setenv("ASKAI_DATABASE_URL", f"sqlite:///{tmp_path / 'threads.sqlite'}")
    monkeypatch.setattr("sys.stdin", io.StringIO(QUESTION + "\n"))
    capsys.readouterr()
    assert main(["chat", "--version", "1.0", "--locale", "en"]) == 0
    out = capsys.readouterr().out
    assert "<https://gizmo.example/docs/1.0/fake-timers>" in out
    assert "<https://gizmo.example/docs/fake-timers>" not in out


def test_a_malformed_locale_for_askai_chat_is_one_line_and_a_non_zero_exit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["chat", "--locale", "es;rm"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--locale 'es;rm' is not a language tag" in err


def test_an_eval_question_is_answered_in_the_version_it_names(built: BM25Retriever) -> None:
    from askai_graph.evaluation.dataset import EvalQuestion
    from askai_graph.evaluation.runner import run_one

    item = EvalQuestion(question=QUESTION, version="1.0", expected_urls=["https://gizmo.example/docs/1.0/fake-timers"])
    assert list(run_one(build_graph(retriever=built), item).sources) == list(item.expected_urls)


def test_the_jest_version_questions_name_a_version_each() -> None:
    from askai_graph.evaluation.dataset import load_questions

    questions = load_questions(Path(__file__).parent.parent / "evals" / "jest-versions.jsonl")
    assert len(questions) == 20 and {q.version for q in questions} == {"29.7", "30.4"}
