"""The ``askai ask`` command: human output, --json, and one-line errors."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from askai_graph.cli import main


@pytest.fixture(autouse=True)
def _private_index_cache(monkeypatch: pytest.MonkeyPatch, index_cache: Path) -> None:
    monkeypatch.setenv("ASKAI_INDEX_CACHE_DIR", str(index_cache))


def test_ask_prints_answer_outcome_gates_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "What is semantic caching?"]) == 0
    out = capsys.readouterr().out
    assert "outcome: accepted   attempts: 1" in out
    assert "gates: retrieval passed, validation passed, critic passed" in out
    assert "sources:\n  - Semantic Caching for LLM Answers <https://course.askai.example/articles/" in out


def test_ask_prints_each_cards_section_and_quote_indented_under_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "What do the k1 and b parameters control in BM25?"]) == 0
    lines = capsys.readouterr().out.splitlines()
    card = lines.index("  - BM25 and Lexical Search Explained <https://course.askai.example/articles/bm25-and-lexical-search>")
    page = "https://course.askai.example/articles/bm25-and-lexical-search"
    assert lines[card + 1] == f"      The three ingredients <{page}#the-three-ingredients>"
    assert lines[card + 2].startswith("      \u201cThe parameter k1 controls how quickly term frequency saturates")


def test_ask_reports_the_failed_gate_and_withheld_sources(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "What course articles do you have?"]) == 0
    out = capsys.readouterr().out
    assert "outcome: accepted_early" in out
    assert "(failed: critic; low_confidence)" in out
    # One plain line says what the reader saw and why it has no cards.
    assert (
        "sources: none shown. The reader saw this catalog answer without source cards: it cites enough pages "
        "to be accepted, but the Critic was not confident (low confidence), and cards need a confident review."
    ) in out.splitlines()


def test_ask_json_prints_only_a_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "How do I bake sourdough bread?"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["outcome"], result["attempts"], result["sources"]) == ("fallback", 0, [])
    assert result["gates"]["retrieval"] == "failed"
    assert {"answer", "outcome", "attempts", "gates", "sources"} <= set(result)


def test_verbose_progress_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "-v", "What is hybrid search?"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)
    assert "· research" in captured.err and "· source_gate" in captured.err


@pytest.mark.parametrize(
    ("question", "message"),
    [("", "the question is empty"), ("   \n", "the question is empty"), ("x" * 2001, "the limit is 2000")],
)
def test_bad_question_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], question: str, message: str) -> None:
    assert main(["ask", question]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_bad_corpus_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ASKAI_CORPUS", str(tmp_path / "missing"))
    assert main(["ask", "anything"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a built index, a docs or HTML folder" in err


def test_bad_setting_exits_1_with_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MAX_ATTEMPTS", "lots")
    assert main(["ask", "anything"]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_module_entry_point_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "askai_graph", "ask", "--json", "What is hybrid search?"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "accepted"


@pytest.mark.parametrize("entry", ["-m askai_graph", "the askai script"])
def test_ctrl_c_while_the_command_line_starts_is_one_line(entry: str) -> None:
    # Its imports take about a second before main() runs: Ctrl-C landing in them, made certain
    # here by an import finder that raises it on the settings module.
    start = (
        "import runpy; runpy.run_module('askai_graph', run_name='__main__')" if entry.startswith("-m")
        else "from askai_graph.__main__ import run; raise SystemExit(run())"
    )  # fmt: skip
    probe = (
        "import sys\n"
        "class CtrlC:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'askai_graph.settings':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, CtrlC())\n"
        f"{start}\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, "ask", "What is BM25?"], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (130, "askai: interrupted\n"), done.stderr


def test_the_cli_starts_without_importing_mistletoe() -> None:
    # mistletoe's import costs ~0.1 s; only a process that validates a draft pays it.
    probe = "import sys, askai_graph.cli; print('mistletoe' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_ask_answers_with_the_collector_paused_and_leaves_it_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    import askai_graph.cli as cli

    seen: list[bool] = []
    answer_turn = cli.answer_turn

    def answering(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return answer_turn(*args, **kwargs)

    monkeypatch.setattr(cli, "answer_turn", answering)
    assert gc.isenabled()
    assert main(["ask", "What is semantic caching?"]) == 0
    assert seen == [False] and gc.isenabled()


def test_a_paused_collector_stays_off_when_it_was_off() -> None:
    from askai_graph.cli import collector_paused

    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
