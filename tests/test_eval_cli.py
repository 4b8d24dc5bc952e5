"""``askai eval``: reports written, bad lines reported by number, baseline regressions fail."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from askai_graph import Settings, build_graph
from askai_graph.cli import main, parser
from askai_graph.evaluation.command import run_eval
from askai_graph.evaluation.dataset import DatasetError, load_questions
from tests.fakes import post, url

BM25 = "https://course.askai.example/articles/bm25-and-lexical-search"
QUESTIONS = [
    {"question": "How does BM25 score documents?", "expected_urls": [BM25], "must_mention": ["BM25"]},
    {"question": "What course articles do you have?", "kind": "catalog"},
    {"question": "How do I bake sourdough bread?", "kind": "offtopic"},
]


@pytest.fixture(autouse=True)
def _private_index_cache(monkeypatch: pytest.MonkeyPatch, index_cache: Path) -> None:
    monkeypatch.setenv("ASKAI_INDEX_CACHE_DIR", str(index_cache))


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "q.jsonl", [json.dumps(item) for item in QUESTIONS])


def test_eval_prints_the_table_and_writes_json_markdown_and_png(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["eval", str(questions), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "recall@6" in table and re.search(r"^false source cards +0 \(must be 0\)$", table, re.MULTILINE)
    assert re.search(r"^answering section in the Writer's first 5 +1 of 1 ", table, re.MULTILINE)
    report = json.loads((out / "report.json").read_text())
    assert report["metrics"]["questions"] == 3
    assert [item["outcome"] for item in report["results"]] == ["accepted", "accepted_early", "fallback"]
    assert report["config"]["writer"] == "offline"
    assert "| off-topic without sources | 100.0% (must be 100%) |" in (out / "report.md").read_text()
    assert (out / "report.png").read_bytes().startswith(b"\x89PNG")


def test_eval_json_prints_only_the_metrics(questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(questions), "--json", "--out", str(tmp_path / "r")]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["refusals"]["offtopic_without_sources"] == 1.0


def test_a_bad_line_is_reported_by_number_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl", [json.dumps(QUESTIONS[0]), "# a comment", '{"question": "x", "kind": "faq"}']
    )
    assert main(["eval", str(path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    kinds = "'answer', 'catalog', 'offtopic' or 'followup'"
    assert err.startswith(f"askai: error: {path}: line 3: kind: Input should be {kinds}")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ("[1, 2]", "line 2: expected a JSON object, got list"),
        ('{"question": "x", "extra": 1}', "line 2: extra: Extra inputs are not permitted"),
        ('{"question": "  "}', "line 2: question: Value error, must not be blank"),
        ('{"question": "x", "expected_urls": "https://a"}', "line 2: expected_urls: Value error, must be a list"),
        ('{"question": "x", "kind": "offtopic", "expected_urls": ["https://a"]}', "line 2: an offtopic question"),
    ],
)
def test_dataset_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [json.dumps(QUESTIONS[0]), line])
    with pytest.raises(DatasetError, match="^" + message.replace("[", r"\[")):
        load_questions(path)


def test_baseline_passes_unchanged_and_fails_on_an_injected_regression(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(questions), "--out", str(tmp_path / "base")]) == 0
    baseline = tmp_path / "base" / "report.json"
    assert main(["eval", str(questions), "--out", str(tmp_path / "same"), "--baseline", str(baseline)]) == 0
    # The baseline claims a better citation precision than this code reaches: a regression.
    report = json.loads(baseline.read_text())
    before = report["metrics"]["citations"]["precision"]
    report["metrics"]["citations"]["precision"] = before + 0.25
    better = tmp_path / "better.json"
    better.write_text(json.dumps(report))
    capsys.readouterr()
    assert main(["eval", str(questions), "--out", str(tmp_path / "now"), "--baseline", str(better)]) == 1
    err = capsys.readouterr().err
    assert f"askai: regression: citations.precision: {before + 0.25:.3f} -> {before:.3f}" in err


def test_a_baseline_that_is_not_a_report_is_a_usage_error(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_text("[]")
    assert main(["eval", str(questions), "--baseline", str(bogus), "--out", str(tmp_path / "r")]) == 2
    assert "is not an askai eval report" in capsys.readouterr().err


def test_a_baseline_from_another_corpus_fails_and_says_to_re_measure_it(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(questions), "--out", str(tmp_path / "base")]) == 0
    report = json.loads((tmp_path / "base" / "report.json").read_text())
    now = report["config"]["corpus"]
    report["config"]["corpus"] = "ee39686a5ff574bc190c5f4bbb843e4353ce8afc7bf0d403160a04430b2ebde2"
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(report))
    capsys.readouterr()
    assert main(["eval", str(questions), "--out", str(tmp_path / "now"), "--baseline", str(stale)]) == 1
    assert (
        f"askai: regression: the baseline was measured on another corpus (ee39686a5ff5…, this run's is {now[:12]}…): "
        "re-measure it (make eval-baseline) and commit it with the change"
    ) in capsys.readouterr().err


def test_the_committed_baseline_was_measured_on_the_bundled_site_as_it_is() -> None:
    from askai_graph.indexing.loader import bundled_corpus

    baseline = json.loads((Path(__file__).parent.parent / "evals" / "baseline.json").read_text())
    assert baseline["config"]["corpus"] == bundled_corpus().fingerprint


def test_a_baseline_from_another_model_is_noted(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(questions), "--out", str(tmp_path / "base")]) == 0
    report = json.loads((tmp_path / "base" / "report.json").read_text())
    report["config"]["writer"] = "gpt-4.1-mini"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(report))
    capsys.readouterr()
    assert main(["eval", str(questions), "--out", str(tmp_path / "now"), "--baseline", str(other)]) == 0
    assert "askai: note: the baseline's writer was gpt-4.1-mini, this run's is offline" in capsys.readouterr().err


def test_without_matplotlib_the_report_is_written_and_the_cli_says_how_to_get_the_chart(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it now fails
    out = tmp_path / "report"
    assert main(["eval", str(questions), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "askai: note: the PNG chart needs matplotlib: pip install 'askai-graph[charts]'" in err
    assert not (out / "report.png").exists() and "report.png" not in (out / "report.md").read_text()
    assert json.loads((out / "report.json").read_text())["metrics"]["questions"] == 3


def test_dense_or_hybrid_without_an_embedding_model_is_one_line_naming_the_setting(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(questions), "--retrieval", "bm25,hybrid", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("askai: error: --retrieval hybrid needs an embedding model: set ASKAI_EMBEDDINGS=local")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("modes", ["bm25,bm25", "bm25,vectors", ","])
def test_unknown_or_repeated_retrieval_modes_are_refused(
    questions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], modes: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(questions), "--retrieval", modes, "--out", str(tmp_path / "r")])
    assert exit_.value.code == 2
    assert "expected distinct modes among bm25, dense, hybrid" in capsys.readouterr().err


def test_each_retrieval_mode_gets_a_report_and_a_row_of_the_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: Settings
) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [json.dumps({"question": f"How does post {n} explain retrieval?", "expected_urls": [url(n)]}) for n in (1, 2)],
    )
    # Each mode ranks the two expected pages differently: MRR 1, 1/2 and 3/4.
    rankings = {"bm25": [(1, 2), (2, 1)], "dense": [(2, 1), (1, 2)], "hybrid": [(1, 2), (1, 2)]}
    built: list[str] = []

    def graphs(run: Settings) -> tuple[Any, dict[str, Any]]:
        built.append(run.retrieval)
        order = iter(rankings[run.retrieval])
        retriever = RankingPerQuestion(rankings=order)
        return build_graph(retriever=retriever, settings=run), {"retrieval": run.retrieval}

    out = tmp_path / "compare"
    args = parser().parse_args(["eval", str(path), "--retrieval", "bm25,dense,hybrid", "--out", str(out)])
    assert run_eval(args, settings.model_copy(update={"embeddings": "local"}), graphs=graphs) == 0
    assert built == ["bm25", "dense", "hybrid"]
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:4] == ["retrieval", "recall@6", "MRR", "nDCG@6"]
    assert [line.split()[:3] for line in table[1:]] == [
        ["bm25", "1.000", "1.000"],
        ["dense", "1.000", "0.500"],
        ["hybrid", "1.000", "0.750"],
    ]
    for mode in rankings:
        assert json.loads((out / mode / "report.json").read_text())["config"] == {"retrieval": mode}
    markdown = (out / "comparison.md").read_text()
    assert "| dense | 1.000 | 0.500 |" in markdown and "| false source cards |" in markdown


class RankingPerQuestion(BaseRetriever):
    """Returns posts in the next order of ``rankings`` for each new question (a retry keeps it)."""

    rankings: Any
    question: str = "\0"
    current: list[int] = []

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        if not query.startswith(self.question):  # a retry's query is the question plus the gaps
            self.question, self.current = query, list(next(self.rankings))
        return [post(n) for n in self.current]
