"""Conversations on the command line: ``askai ask --thread ID`` and ``askai chat``."""

from __future__ import annotations

import io
import json
import re
import uuid
from pathlib import Path

import pytest

from askai_graph.cli import main
from askai_graph.models.prompts import CLARIFY_ANSWER

BM25_POST = "https://course.askai.example/articles/bm25-and-lexical-search"


@pytest.fixture(autouse=True)
def _private_threads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ASKAI_DATABASE_URL", f"sqlite:///{tmp_path / 'threads.sqlite'}")


def ask_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["ask", "--json", *args]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_ask_prints_the_thread_it_ran_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "What is BM25?"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"outcome: accepted   attempts: 1   thread: [0-9a-f-]{36}\n", out)


def owned(answer: dict[str, object]) -> list[str]:
    """The arguments that continue ``answer``'s thread."""
    return ["--thread", str(answer["thread_id"]), "--thread-token", str(answer["thread_token"])]


def test_ask_prints_how_to_follow_up_with_the_threads_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "What is BM25?"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\nfollow up: askai ask --thread [0-9a-f-]{36} --thread-token [\w-]{43} QUESTION\n", out), out


def test_the_printed_follow_up_works_with_a_token_that_begins_with_a_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One token in 64 begins with "-"; argparse took it for the next flag.
    monkeypatch.setattr("askai_graph.cli.new_thread_token", lambda: "-" + "A" * 42)
    assert main(["ask", "What is BM25?"]) == 0
    follow_up = re.search(r"\nfollow up: askai (.+) QUESTION\n", capsys.readouterr().out)
    assert follow_up is not None
    assert main([*follow_up.group(1).split(), "--json", "How do I tune it?"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "accepted"


def test_ask_with_thread_continues_the_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    first = ask_json(capsys, "What is BM25?")
    follow_up = ask_json(capsys, *owned(first), "How do I tune its parameters?")
    assert follow_up["thread_id"] == first["thread_id"] and follow_up["thread_token"] == first["thread_token"]
    assert follow_up["outcome"] == "accepted"
    assert follow_up["sources"][0]["url"] == BM25_POST  # type: ignore[index]


def test_the_same_follow_up_without_thread_asks_for_the_full_question(capsys: pytest.CaptureFixture[str]) -> None:
    alone = ask_json(capsys, "How do I tune its parameters?")
    assert (alone["outcome"], alone["answer"], alone["sources"]) == ("fallback", CLARIFY_ANSWER, [])


@pytest.mark.parametrize(
    ("thread", "message"),
    [
        ("not-a-thread", "--thread must be an id askai issued"),
        (str(uuid.uuid4()), "is unknown; ask without --thread to start a new conversation"),
    ],
)
def test_ask_with_a_bad_thread_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], thread: str, message: str
) -> None:
    assert main(["ask", "--thread", thread, "--thread-token", "t" * 43, "How do I tune it?"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("askai: error: ") and message in err


def test_ask_with_an_expired_thread_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ask_json(capsys, "What is BM25?")
    monkeypatch.setenv("ASKAI_THREAD_TTL_HOURS", "0.0000001")
    assert main(["ask", *owned(first), "How do I tune it?"]) == 2
    assert "is expired" in capsys.readouterr().err


def test_ask_with_thread_alone_continues_a_thread_this_cli_started(capsys: pytest.CaptureFixture[str]) -> None:
    # The CLI kept the token, as the widget does: scripts call `askai ask --thread ID`.
    first = ask_json(capsys, "What is BM25?")
    follow_up = ask_json(capsys, "--thread", str(first["thread_id"]), "How do I tune its parameters?")
    assert follow_up["thread_id"] == first["thread_id"] and follow_up["outcome"] == "accepted"


def test_the_kept_tokens_file_is_the_owners_alone(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    first = ask_json(capsys, "What is BM25?")
    kept = tmp_path / "threads.sqlite.tokens.json"
    assert json.loads(kept.read_text()) == {first["thread_id"]: first["thread_token"]}
    assert kept.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    ("token", "message"),
    [
        (None, "--thread needs --thread-token"),  # started elsewhere: no token kept here
        ("t" * 43, "is unknown; ask without --thread"),  # a wrong token: the words of an unknown thread
    ],
)
def test_ask_with_a_thread_but_not_its_token_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, token: str | None, message: str
) -> None:
    first = ask_json(capsys, "What is BM25?")
    (tmp_path / "threads.sqlite.tokens.json").unlink()  # as if the HTTP API had started it
    extra = ["--thread-token", token] if token else []
    assert main(["ask", "--thread", str(first["thread_id"]), *extra, "How do I tune it?"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_chat_continues_a_thread_given_its_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ask_json(capsys, "What is BM25?")
    monkeypatch.setattr("sys.stdin", io.StringIO("How do I tune its parameters?\n"))
    assert main(["chat", *owned(first)]) == 0
    captured = capsys.readouterr()
    assert f"thread: {first['thread_id']}  token: {first['thread_token']}" in captured.err
    assert f"sources:\n  - BM25 and Lexical Search Explained <{BM25_POST}>" in captured.out


def test_a_bad_database_url_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASKAI_DATABASE_URL", "mysql://somewhere/db")
    assert main(["ask", "What is BM25?"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "database_url" in err and "sqlite:///path" in err


def test_chat_answers_follow_ups_and_starts_over_on_new(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = "What is BM25?\nHow do I tune its parameters?\n/new\nHow do I tune its parameters?\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["chat"]) == 0  # end of input (Ctrl-D) quits
    captured = capsys.readouterr()
    assert re.findall(r"outcome: (\w+)", captured.out) == ["accepted", "accepted", "fallback"]
    second = captured.out.split("outcome: ")[2]
    assert f"sources:\n  - BM25 and Lexical Search Explained <{BM25_POST}>" in second
    assert f"\n{CLARIFY_ANSWER}\n\noutcome: fallback" in captured.out
    threads = re.findall(r"thread: ([0-9a-f-]{36})", captured.out)
    assert threads[0] == threads[1] != threads[2]
    assert "/new starts over, Ctrl-D quits" in captured.err and "new conversation, thread:" in captured.err


def test_chat_ignores_blank_lines_and_reports_unknown_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n   \n/help\n"))
    assert main(["chat"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "askai: unknown command /help" in captured.err


def test_serve_with_a_threads_database_it_cannot_open_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    not_sqlite = tmp_path / "threads.sqlite"
    not_sqlite.write_text("this is not a database " * 100)
    monkeypatch.setenv("ASKAI_DATABASE_URL", f"sqlite:///{not_sqlite}")
    assert main(["serve", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the threads database" in err
