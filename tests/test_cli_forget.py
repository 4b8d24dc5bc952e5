"""``askai forget --thread ID`` / ``--run ID``: one reader's data erased, and what went printed."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from askai_graph.cli import main
from askai_graph.stores.runlog import open_run_log
from tests.test_runlog_store import run


@pytest.fixture
def database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'threads.sqlite'}"
    monkeypatch.setenv("ASKAI_DATABASE_URL", url)
    return url


def logged(database: str, *records: object) -> None:
    log = open_run_log(database)
    try:
        for record in records:
            log.record(record)  # type: ignore[arg-type]
    finally:
        log.close()


def run_ids(database: str) -> list[str]:
    log = open_run_log(database)
    try:
        return [r.run_id for r in log.runs()]
    finally:
        log.close()


def test_forget_thread_erases_its_runs_and_its_conversation(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "What is BM25?"]) == 0
    thread = json.loads(capsys.readouterr().out)["thread_id"]
    other = run("someone else's", thread_id=str(uuid.uuid4()))
    logged(database, run("mine", thread_id=thread), run("mine again", thread_id=thread), other)
    assert main(["forget", "--thread", thread]) == 0
    out = capsys.readouterr().out
    assert f"run log: removed 2 runs (with feedback) of thread {thread}" in out
    assert "threads: removed the conversation" in out
    assert run_ids(database) == [other.run_id]
    # The conversation is gone: continuing it is refused like an unknown thread.
    assert main(["ask", "--thread", thread, "How do I tune it?"]) != 0


def test_forget_run_erases_that_run_only(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = run("first"), run("second")
    logged(database, first, second)
    assert main(["forget", "--run", first.run_id]) == 0
    assert capsys.readouterr().out == f"run log: removed 1 run (with feedback) of run {first.run_id}\n"
    assert run_ids(database) == [second.run_id]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["forget", "--run", "not-a-uuid"], "--run must be a run id"),
        (["forget", "--thread", "../etc"], "--thread must be a thread id"),
        (["forget", "--thread", str(uuid.uuid4()), "--thread-token", "short"], "--thread-token must be"),
    ],
)
def test_bad_ids_are_one_line_and_exit_2(
    database: str, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("askai: error: ") and message in err and err.count("\n") == 1


def test_forget_needs_exactly_one_of_thread_or_run(database: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["forget"])
    assert exit_.value.code == 2
