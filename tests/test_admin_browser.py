"""``/admin`` in Chromium: sign in, the overview chart, a coverage group, the pages, a run, CSV export; axe clean."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.stores.runlog import open_run_log
from tests.browser import axe_violations
from tests.fakes import ungated_graph
from tests.live import LiveServer
from tests.test_runlog_store import run

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]
TOKEN = "correct-horse-battery-staple"
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"> How does BM25 rank pages?"
NOW = datetime.now(UTC)


@pytest.fixture
def site(settings: Settings, tmp_path: Path) -> Iterator[str]:
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    for record in (
        run(HOSTILE, at=NOW - timedelta(days=1), outcome="degraded", rating="down", comment="missed it"),
        run("What is hybrid search?", at=NOW, outcome="accepted", rating="up"),
    ):
        log.record(record)
    configured = settings.model_copy(update={"admin_token": SecretStr(TOKEN)})
    try:
        with LiveServer(create_app(ungated_graph("x"), configured, run_log=log)) as base:
            yield base
    finally:
        log.close()


def test_sign_in_see_the_overview_open_a_run_and_export_csv(page: Any, site: str, tmp_path: Path) -> None:
    violations: dict[str, list[dict[str, Any]]] = {}
    page.goto(f"{site}/admin")
    assert page.url == f"{site}/admin/login"
    violations["login"] = axe_violations(page)
    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/admin")
    assert page.locator("svg[data-chart='questions-per-day'] rect").count() == 2
    assert page.locator(".card b").first.inner_text() == "2"
    violations["overview"] = axe_violations(page)

    page.click("header a[href='/admin/questions']")
    page.wait_for_url(f"{site}/admin/questions")
    violations["questions"] = axe_violations(page)
    page.get_by_role("link", name=HOSTILE).click()
    page.wait_for_url(f"{site}/admin/runs/*")
    assert page.title() != "pwned" and page.locator("main img").count() == 0
    assert HOSTILE in page.locator("main table").first.inner_text()
    violations["run"] = axe_violations(page)

    page.go_back()
    page.select_option("#rating", "down")
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site}/admin/questions?*rating=down*")
    with page.expect_download() as download:
        page.click("text=Export these as CSV")
    saved = tmp_path / "questions.csv"
    download.value.save_as(saved)
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("created_at,run_id,question") and len(lines) == 2
    assert "degraded" in lines[1] and "missed it" in lines[1]
    assert violations == {name: [] for name in violations}


def test_open_a_coverage_group_follow_its_example_and_see_the_pages(page: Any, site: str) -> None:
    violations: dict[str, list[dict[str, Any]]] = {}
    page.goto(f"{site}/admin/login")
    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{site}/admin")
    page.click("header a[href='/admin/gaps']")
    page.wait_for_url(f"{site}/admin/gaps")
    group = page.locator("details[data-gap-group]")
    assert group.count() == 1
    example = group.get_by_role("link", name=HOSTILE)
    assert not example.is_visible()  # closed until the owner opens it
    group.locator("summary").click()
    assert example.is_visible() and "Suggested page to write" in group.inner_text()
    violations["gaps"] = axe_violations(page)
    example.click()
    page.wait_for_url(f"{site}/admin/runs/*")
    assert page.title() != "pwned" and page.locator("main img").count() == 0

    page.click("header a[href='/admin/pages']")
    page.wait_for_url(f"{site}/admin/pages")
    rows = page.locator("main table").first.locator("tr")
    assert rows.nth(1).inner_text().split("\t") == ["https://site.example/a", "2"]
    violations["pages"] = axe_violations(page)
    assert violations == {name: [] for name in violations}
