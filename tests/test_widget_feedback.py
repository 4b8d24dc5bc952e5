"""Thumbs in the widget: a rating (and a comment after thumbs down) lands in the run log, once per choice.

Real servers on 127.0.0.1 over the bundled sample site, each with a run log in a SQLite
file of the test's own, read back by ``askai report``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings
from askai_graph.cli import main
from askai_graph.server import create_app
from askai_graph.stores.runlog import open_run_log
from tests.browser import ask, open_widget, received, requests_reported
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How does a semantic cache work?"
COMMENT = "It does not say how long entries live"


@pytest.fixture
def logged(index_cache: Any, tmp_path: Path) -> Iterator[str]:
    """The sample site served with a run log; its URL is in ``ASKAI_DATABASE_URL`` for ``askai report``."""
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    run_log = open_run_log(database)
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    with pytest.MonkeyPatch.context() as env, LiveServer(create_app(settings=settings, run_log=run_log)) as base:
        env.setenv("ASKAI_DATABASE_URL", database)
        yield base
    run_log.close()


def feedback_bodies(page: Any) -> list[dict[str, Any]]:
    """Record the JSON body of every ``POST /api/feedback`` the page sends."""
    bodies: list[dict[str, Any]] = []
    page.on("request", lambda r: bodies.append(r.post_data_json) if r.url.endswith("/api/feedback") else None)
    return bodies


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["report", "--since", "1d", "--out", str(tmp_path / "report")]) == 0
    return capsys.readouterr().out


def test_thumbs_down_with_a_comment_lands_in_the_run_log_and_the_report(
    page: Any, logged: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bodies = feedback_bodies(page)
    open_widget(page, f"{logged}/")
    ask(page, QUESTION)
    [done] = received(page, "done")
    down = page.locator("[data-askai-feedback=down]")
    down.click()
    expect(down).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-askai-feedback=up]")).to_have_attribute("aria-pressed", "false")
    comment = page.locator("[data-askai-comment-input]")
    expect(comment).to_be_focused()
    comment.fill(COMMENT)
    comment.press("Enter")
    expect(page.locator("[data-askai-comment]")).to_be_hidden()
    expect(page.locator("[data-askai-said]")).to_have_text("Thanks for your feedback.")
    assert bodies == [
        {"run_id": done["run_id"], "rating": "down"},
        {"run_id": done["run_id"], "rating": "down", "comment": COMMENT},
    ]
    out = report(tmp_path, capsys)
    assert "## Thumbs-down answers (1 down, 0 up)" in out
    assert f"| {QUESTION} | accepted | {COMMENT} |" in out


def test_a_repeated_click_sends_the_rating_once_and_counts_once(
    page: Any, logged: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bodies = feedback_bodies(page)
    open_widget(page, f"{logged}/")
    ask(page, QUESTION)
    up = page.locator("[data-askai-feedback=up]")
    up.click()
    expect(page.locator("[data-askai-said]")).to_have_text("Thanks for your feedback.")
    up.click()
    up.click()
    expect(up).to_have_attribute("aria-pressed", "true")
    requests_reported(page)  # a request a repeated click sent would be among them
    [done] = received(page, "done")
    assert bodies == [{"run_id": done["run_id"], "rating": "up"}]
    expect(page.locator("[data-askai-comment]")).to_be_hidden()
    assert "(0 down, 1 up)" in report(tmp_path, capsys)


def test_an_earlier_answer_in_the_transcript_can_still_be_rated(page: Any, logged: str) -> None:
    bodies = feedback_bodies(page)
    open_widget(page, f"{logged}/")
    ask(page, "What is BM25?")
    ask(page, "How do I tune its parameters?")
    first, _ = received(page, "done")
    page.locator("[data-askai-turn]").first.locator("[data-askai-feedback=up]").click()
    expect(page.locator("[data-askai-turn]").first.locator("[data-askai-said]")).to_have_text(
        "Thanks for your feedback."
    )
    assert bodies == [{"run_id": first["run_id"], "rating": "up"}]
    expect(page.locator("[data-askai-turn]").last.locator("[data-askai-feedback=up]")).to_have_attribute(
        "aria-pressed", "false"
    )


def test_thumbs_are_disabled_when_the_server_refuses_feedback(page: Any, index_cache: Any) -> None:
    # No run log: the server answers but records nothing, and refuses every rating (404).
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    with LiveServer(create_app(settings=settings)) as base:
        page.goto(f"{base}/")
        ask(page, QUESTION)
        page.locator("[data-askai-feedback=down]").click()
        expect(page.locator("[data-askai-said]")).to_have_text("Feedback is not recorded for this answer.")
    for rating in ("up", "down"):
        expect(page.locator(f"[data-askai-feedback={rating}]")).to_be_disabled()
        expect(page.locator(f"[data-askai-feedback={rating}]")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("[data-askai-comment]")).to_be_hidden()


ANSWER_WITHOUT_RUN_ID = (
    'event: token\ndata: {"text": "A cached answer."}\n\n'
    'event: done\ndata: {"outcome": "accepted", "attempts": 0, "cached": true, "gates": {}, "thread_id": null}\n\n'
)


def test_thumbs_are_disabled_on_an_answer_without_a_run_id(page: Any, logged: str) -> None:
    bodies = feedback_bodies(page)
    page.route(
        "**/api/chat",
        lambda route: route.fulfill(content_type="text/event-stream", body=ANSWER_WITHOUT_RUN_ID),
    )
    page.goto(f"{logged}/")
    ask(page, QUESTION)
    expect(page.locator("[data-askai-answer]")).to_have_text("A cached answer.")
    for rating in ("up", "down"):
        expect(page.locator(f"[data-askai-feedback={rating}]")).to_be_disabled()
    page.locator("[data-askai-feedback=up]").click(force=True)
    assert bodies == []
