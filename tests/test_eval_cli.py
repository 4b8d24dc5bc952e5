"""``askai eval``: reports written, bad lines reported by number, baseline regressions fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askai_graph.cli import main
from askai_graph.evaluation.dataset import DatasetError, load_questions

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
    assert "recall@6" in table and "false source cards                  0 (must be 0)" in table
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
    assert err.startswith(f"askai: error: {path}: line 3: kind: Input should be 'answer', 'catalog' or 'offtopic'")
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


def test_a_baseline_from_another_corpus_or_model_is_noted(
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
