"""``askai report`` on a seeded run log, and on the log of a served site."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from askai_graph import Settings
from askai_graph.cli import main
from askai_graph.server import create_app
from askai_graph.stores.runlog import RunRecord, open_run_log
from askai_graph.stores.runlog.coverage import group_gaps, never_cited
from tests.live import LiveServer, sse_events

NOW = datetime.now(UTC)
A, B, C = (f"https://site.example/{name}" for name in "abc")
FAILED_CRITIC = {"retrieval": "passed", "validation": "passed", "critic": "failed"}


def run(question: str, outcome: str = "accepted", days_ago: float = 0, **fields: object) -> RunRecord:
    data: dict[str, object] = {
        "run_id": str(uuid.uuid4()),
        "created_at": NOW - timedelta(days=days_ago),
        "question": question,
        "outcome": outcome,
        "attempts": 1,
        "gates": {"retrieval": "passed", "validation": "passed", "critic": "passed"},
        "retrieved_urls": [A, B],
        "cited_urls": [A],
    }
    return RunRecord.model_validate(data | fields)


SEED = [
    run("How does BM25 work?", days_ago=2, rating="up"),
    run("What is hybrid search?", days_ago=1, rating="down", comment="too short"),
    run(
        "How do I bake sourdough bread?", "fallback", days_ago=1, gates={"retrieval": "failed"},
        retrieved_urls=[], cited_urls=[],
    ),
    run(
        "sourdough bread: how to bake it?", "degraded", attempts=3, gates=FAILED_CRITIC,
        failure_codes=["low_confidence", "low_relevance"], gaps=["sourdough", "bake"],
        retrieved_urls=[C], cited_urls=[],
    ),
    run(
        "How do I tune the Redis eviction policy?", "degraded", attempts=3, gates=FAILED_CRITIC,
        failure_codes=["low_confidence"], gaps=["redis"], retrieved_urls=[C, B], cited_urls=[], rating="down",
    ),
    run("How does BM25 work?", days_ago=10, outcome="fallback"),  # outside the 7-day window
]  # fmt: skip


@pytest.fixture
def seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    log = open_run_log(database)
    for record in SEED:
        log.record(record)
    log.close()
    monkeypatch.setenv("ASKAI_DATABASE_URL", database)
    return tmp_path / "report"


def test_report_shows_outcomes_per_day_within_the_window(seeded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--since", "7d", "--out", str(seeded)]) == 0
    out = capsys.readouterr().out
    assert "5 answered questions in the last 7d." in out
    today, yesterday = NOW.date().isoformat(), (NOW - timedelta(days=1)).date().isoformat()
    assert f"| {yesterday} | 1 | 0 | 0 | 1 |" in out and f"| {today} | 0 | 0 | 2 | 0 |" in out
    assert "| total | 2 | 0 | 2 | 1 |" in out
    assert (seeded / "report.md").read_text() == out
    assert (seeded / "report.png").read_bytes().startswith(b"\x89PNG")


def test_report_groups_unanswered_questions_with_their_gates_and_gaps(
    seeded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--out", str(seeded)]) == 0
    out = capsys.readouterr().out
    assert (
        "| How do I bake sourdough bread? (+1 similar: sourdough bread: how to bake it?) | 2 "
        "| fallback ×1, degraded ×1 "
        "| retrieval ×1, critic ×1 | low_confidence ×1, low_relevance ×1 | sourdough ×1, bake ×1 |"
    ) in out
    assert (
        "| How do I tune the Redis eviction policy? | 1 | degraded ×1 | critic ×1 | low_confidence ×1 | redis ×1 |"
        in out
    )


OFF_TOPIC = [
    run(question, "fallback", gates={"retrieval": "failed"}, retrieved_urls=[], cited_urls=[])
    for question in ("Write me a poem about autumn", "Can I get a refund for my order?", "What is the capital of Peru?")
]


def test_questions_no_page_matched_are_grouped_as_off_topic_not_as_gaps() -> None:
    groups = group_gaps([*SEED[2:5], *OFF_TOPIC])
    assert sorted(g.label for g in groups if g.off_topic) == sorted(r.question for r in OFF_TOPIC)
    # The sourdough group holds a question that matched no page and one that did: a gap.
    assert [g.label for g in groups if not g.off_topic] == [
        "How do I bake sourdough bread?",
        "How do I tune the Redis eviction policy?",
    ]


def test_report_lists_off_topic_questions_apart_from_the_coverage_gaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    log = open_run_log(database)
    for record in [*SEED, *OFF_TOPIC]:
        log.record(record)
    log.close()
    monkeypatch.setenv("ASKAI_DATABASE_URL", database)
    assert main(["report", "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    gaps, off_topic = out.split("### Off-topic questions: no page of the site matched them")
    assert "poem" not in gaps and "How do I tune the Redis eviction policy?" in gaps
    assert "| Write me a poem about autumn | 1 |" in off_topic.split("###")[0]
    assert "| What is the capital of Peru? | 1 |" in off_topic.split("###")[0]


def test_report_lists_pages_retrieved_often_but_never_cited_and_thumbs_down(
    seeded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--out", str(seeded)]) == 0
    out = capsys.readouterr().out
    # b: retrieved 3 times in the window, never cited; c: twice, below the default of 3.
    assert (
        "## Pages retrieved often but never cited\n\n| page | retrieved |\n|---|---|\n"
        "| https://site.example/b | 3 |\n\n"
        in out
    )
    assert "## Thumbs-down answers (2 down, 1 up)" in out
    assert "| What is hybrid search? | accepted | too short |" in out
    assert "| How do I tune the Redis eviction policy? | degraded | - |" in out
    assert never_cited(SEED, min_retrieved=2) == [(B, 4), (C, 2)]

HOSTILE_QUESTION = (
    "Click [here](https://evil.example/) ![pixel](https://track.example/p.png) <img src=x onerror=alert(1)> "
    "\x1b[2J\x1b]0;pwned\x07\u202egnp.exe | *bold* `code`"
)
HOSTILE_COMMENT = "<script>alert(1)</script> [more](javascript:alert(1)) \x1b[31mred\x1b[0m"


def test_reader_text_reaches_report_and_terminal_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from markdown_it import MarkdownIt

    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    log = open_run_log(database)
    log.record(run(HOSTILE_QUESTION, "degraded", gates=FAILED_CRITIC, rating="down", comment=HOSTILE_COMMENT))
    log.close()
    monkeypatch.setenv("ASKAI_DATABASE_URL", database)
    assert main(["report", "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert not any(ch in out for ch in "\x1b\x07\u202e")  # no escape sequence or bidi override reaches the terminal
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(out)
    for live in ("<a ", 'src="https://track.example', 'src="x"', "<script", "<em>", "<code>"):
        assert live not in html, live
    # ... and the reader's words are still there to read, as text.
    assert "Click [here](https://evil.example/)" in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html



def test_a_bad_since_is_one_line_and_exit_2(seeded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--since", "last week", "--out", str(seeded)]) == 2
    err = capsys.readouterr().err
    assert err == "askai: error: --since must be a positive number with m, h, d or w (like 7d), got 'last week'\n"


def test_dissimilar_questions_stay_in_separate_groups() -> None:
    groups = group_gaps(SEED)
    assert [g.questions for g in groups] == [
        ["How do I bake sourdough bread?", "sourdough bread: how to bake it?"],
        ["How do I tune the Redis eviction policy?"],
        ["How does BM25 work?"],
    ]


@pytest.mark.integration
@pytest.mark.enable_socket
def test_report_shows_the_coverage_gaps_of_a_served_site(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    run_log = open_run_log(database)
    questions = ("How does BM25 score documents?", "How do I bake sourdough bread?", "Best sourdough bread to bake?")
    with LiveServer(create_app(settings=settings, run_log=run_log)) as base:
        for question in questions:
            sse_events(base, question)
    run_log.close()
    monkeypatch.setenv("ASKAI_DATABASE_URL", database)
    assert main(["report", "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert "3 answered questions in the last 7d." in out
    # No page of the sample site matched them: off-topic, grouped, and listed apart from the gaps.
    off_topic = out.split("### Off-topic questions: no page of the site matched them")[1].split("###")[0]
    assert "| How do I bake sourdough bread? | 2 |" in off_topic


def test_the_report_sees_readers_pasted_values_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    log = open_run_log(database)
    pasted = run("Why is jane@example.org refused by 203.0.113.7?", "fallback", gates={"retrieval": "failed"})
    log.record(pasted)
    log.add_feedback(pasted.run_id, "down", "call me on +44 20 7946 0958")
    log.close()
    monkeypatch.setenv("ASKAI_DATABASE_URL", database)
    assert main(["report", "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    # The report escapes Markdown in reader text: the labels show as written.
    assert r"Why is \[email\] refused by \[ip\]?" in out and r"call me on \[phone\]" in out
    assert "jane@example.org" not in out and "203.0.113.7" not in out and "7946" not in out
