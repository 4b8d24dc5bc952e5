"""``askai forget --thread ID`` / ``--run ID``: one reader's data erased, and what went printed."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import pytest

from askai_graph.cli import main
from askai_graph.stores.kept_threads import kept_token
from askai_graph.stores.runlog import open_run_log
from askai_graph.stores.runlog.searches import SearchRecord
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
    assert f"run log: removed 2 runs (with feedback and the searches asked from) of thread {thread}" in out
    assert "threads: removed the conversation" in out
    assert run_ids(database) == [other.run_id]
    # The conversation is gone: continuing it is refused like an unknown thread.
    assert main(["ask", "--thread", thread, "How do I tune it?"]) != 0


def test_forget_run_erases_that_run_only(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = run("first"), run("second")
    logged(database, first, second)
    assert main(["forget", "--run", first.run_id]) == 0
    said = f"run log: removed 1 run (with feedback and the search it was asked from) of run {first.run_id}\n"
    assert capsys.readouterr().out == said
    assert run_ids(database) == [second.run_id]


def test_forgetting_a_run_erases_the_search_it_was_asked_from(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = open_run_log(database)
    try:
        log.record_search(SearchRecord(query="helm alice@example.com", result_count=0, search_id="5e" * 16))
        log.record_search(SearchRecord(query="someone else's search", result_count=2, search_id="1f" * 16))
        log.record(run("How do I deploy on helm?", search_id="5e" * 16))
        asked = log.runs()[0].run_id
    finally:
        log.close()
    assert main(["forget", "--run", asked]) == 0
    log = open_run_log(database)
    try:
        assert [s.query for s in log.searches()] == ["someone else's search"]
    finally:
        log.close()


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


def test_forget_thread_drops_its_token_from_the_token_file(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "What is BM25?"]) == 0
    thread = json.loads(capsys.readouterr().out)["thread_id"]
    assert main(["ask", "--json", "What is chunking?"]) == 0
    kept = json.loads(capsys.readouterr().out)["thread_id"]
    assert kept_token(database, thread) is not None
    assert main(["forget", "--thread", thread]) == 0
    assert "token file: removed the thread's token" in capsys.readouterr().out
    assert kept_token(database, thread) is None
    assert kept_token(database, kept) is not None  # another thread's token stays


def test_what_forget_erases_is_gone_from_the_database_files(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(database.removeprefix("sqlite:///"))
    assert main(["ask", "--json", "What is BM25 zqxwvutsr?"]) == 0
    thread = json.loads(capsys.readouterr().out)["thread_id"]
    # A server holds the database open: SQLite then keeps the WAL when the command's connections close.
    server = sqlite3.connect(path)
    try:
        server.execute("SELECT count(*) FROM sqlite_master").fetchall()
        logged(database, run("How do I tune qzxvwy ranking?", thread_id=thread))
        assert b"zqxwvutsr" in _stored(path) and b"qzxvwy" in _stored(path), "precondition"
        assert main(["forget", "--thread", thread]) == 0
        assert b"zqxwvutsr" not in _stored(path)
        assert b"qzxvwy" not in _stored(path)
    finally:
        server.close()


def _stored(path: Path) -> bytes:
    """The database's bytes as they lie on disk: the main file and its WAL."""
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")) if not p.name.endswith(".json"))
