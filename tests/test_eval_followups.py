"""``askai eval``: follow-up pairs on a thread, and the answering section in a model Writer's context."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from askai_graph.cli import main
from askai_graph.evaluation import EvalQuestion, compute_metrics, runner
from askai_graph.evaluation.baseline import regressions
from askai_graph.evaluation.dataset import parse_line
from askai_graph.evidence.results import SearchResult

BM25 = "https://course.askai.example/articles/bm25-and-lexical-search"
A, B = "https://site.example/a", "https://site.example/b"


@pytest.fixture(autouse=True)
def _private_index_cache(monkeypatch: pytest.MonkeyPatch, index_cache: Path) -> None:
    monkeypatch.setenv("ASKAI_INDEX_CACHE_DIR", str(index_cache))


def write_jsonl(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_a_follow_up_is_answered_only_with_the_expected_page_and_every_must_mention(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = {"question": "What is BM25?", "follow_up": "How do I tune its parameters?", "expected_urls": [BM25]}
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            pair,
            {**pair, "must_mention": ["a term no post holds"]},
            {**pair, "expected_urls": ["https://elsewhere.example/"]},
        ],
    )
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": "How does BM25 score documents?"}])
    out = tmp_path / "r"
    assert main(["eval", str(questions), "--followups", str(pairs), "--out", str(out)]) == 0
    assert "follow-up answered" in capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    followups = report["metrics"]["followups"]
    assert (followups["pairs"], followups["accepted"], followups["answered_count"]) == (3, 3, 1)
    assert report["metrics"]["questions"] == 1  # the pairs count in no other metric
    assert [item["previous"] for item in report["followup_results"]] == ["What is BM25?"] * 3
    assert all(item["question"] == pair["follow_up"] for item in report["followup_results"])


def test_a_follow_up_is_asked_on_its_first_questions_thread_and_held_to_the_baseline() -> None:
    class Recording:
        checkpointer = None
        threads: list[Any] = []

        def stream(self, input: Any, config: Any = None, **_: Any) -> Iterator[tuple[str, Any]]:
            self.threads.append((input["question"], config))
            yield "values", {"outcome": "accepted", "answer": "Set k1 to 1.2.", "standalone_question": "x"}

    pair = EvalQuestion.model_validate({"question": "q", "follow_up": "f", "expected_urls": [A], "kind": "followup"})
    graph = Recording()
    result = runner.run_one(graph, pair)
    (first, thread), (second, same) = graph.threads
    assert (first, second) == ("q", "f") and thread == same and thread["configurable"]["thread_id"]
    answered = compute_metrics([result.model_copy(update={"cited": (A,)})], k=6)
    missed = compute_metrics([result], k=6)
    assert (answered["followups"]["answered"], missed["followups"]["answered"]) == (1.0, 0.0)
    assert any(line.startswith("followups.answered") for line in regressions(missed, answered))


class FirstPass:
    """Streams a run whose first Research pass returns ``results``; the answer does not matter here."""

    def __init__(self, results: list[SearchResult]) -> None:
        self.results = results

    def stream(self, input: Any, *, stream_mode: Any = None, output_keys: Any = None) -> Iterator[tuple[str, Any]]:
        yield "updates", {"research": {"search_results": self.results}}
        yield "values", {"outcome": "degraded", "search_results": self.results}


def test_context_recall_counts_a_section_on_an_expected_page_holding_the_must_mention() -> None:
    expected = SearchResult(
        title="CLI", source_url=A, content="# CLI\n\n## Watch mode\n\nRe-run tests on save with `jest --watch`."
    )
    lacking = SearchResult(title="CLI", source_url=A, content="# CLI\n\n## Watch mode\n\nJest re-runs tests on save.")
    elsewhere = SearchResult(title="Blog", source_url=B, content="# Watch mode\n\nRun `jest --watch` to re-run tests.")
    question = {"question": "How do I re-run tests on save in watch mode?", "expected_urls": [A]}
    item = EvalQuestion.model_validate({**question, "must_mention": ["--watch"]})
    holds = runner.run_one(FirstPass([expected, elsewhere]), item)
    lacks = runner.run_one(FirstPass([lacking, elsewhere]), item)  # only another page's section has it
    assert holds.context_rank is not None and lacks.context_rank is None
    context = compute_metrics([holds, lacks], k=6)["context"]
    assert (context["in_first_k_count"], context["judged"]) == (1, 2)
    unlabelled = runner.run_one(FirstPass([expected]), EvalQuestion.model_validate(question))
    assert not unlabelled.context_judged and "context" not in compute_metrics([unlabelled], k=6)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"question": "What is BM25?", "follow_up": "How do I tune it?"}, "line 1: a follow-up pair needs"),
        ({"question": "What is BM25?", "follow_up": 3, "expected_urls": [BM25]}, "line 1: follow_up: Input should be"),
        ({"question": "What is BM25?", "expected_urls": [BM25]}, "line 1: not a follow-up pair (no follow_up)"),
    ],
)
def test_a_malformed_pair_line_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: dict[str, Any], message: str
) -> None:
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": "How does BM25 score documents?"}])
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [line])
    assert main(["eval", str(questions), "--followups", str(pairs), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"askai: error: {pairs}: {message}")
    assert not (tmp_path / "r").exists()


def test_a_pair_line_in_the_questions_file_is_a_follow_up() -> None:
    line = json.dumps({"question": "What is BM25?", "follow_up": "How do I tune it?", "expected_urls": [BM25]})
    assert parse_line(line, 1).kind == "followup"
