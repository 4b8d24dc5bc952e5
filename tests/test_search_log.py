"""The search log: what ``GET /api/search`` and ``POST /api/search/click`` keep, in SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from askai_graph import Settings
from askai_graph.cli import main
from askai_graph.server import create_app
from askai_graph.server.housekeeping.retention import expire_once
from askai_graph.stores.runlog import RunLog, RunRecord, open_run_log
from askai_graph.stores.runlog import store as runlog_store
from askai_graph.stores.runlog.searches import SearchRecord
from tests.fakes import postgres_database
from tests.test_admin import HOSTILE, call, contextlib_database, signed_in
from tests.test_admin import app as admin_app
from tests.test_runlog_store import POSTGRES, STORES, run_log_on
from tests.test_search import DOCS, PAGES


@pytest.fixture(params=STORES)
def run_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunLog]:
    with run_log_on(request.param, tmp_path) as log:
        yield log


@pytest.fixture
def client(tmp_path: Path, settings: Settings, run_log: RunLog) -> TestClient:
    site = tmp_path / "pages.jsonl"
    site.write_text("\n".join(json.dumps(page) for page in PAGES), "utf-8")
    update = {"corpus": site, "search_per_minute": 5, "reader_hash_key": "k" * 32}
    return TestClient(create_app(settings=settings.model_copy(update=update), run_log=run_log))


def test_a_search_is_logged_with_its_query_masked(client: TestClient, run_log: RunLog) -> None:
    with client:
        response = client.get("/api/search", params={"q": "install alice@example.com"})
    assert response.status_code == 200
    (logged,) = run_log.searches()
    assert logged.query == "install [email]"
    assert logged.result_count == len(response.json()["results"]) > 0
    assert logged.clicked_url is None
    assert logged.reader is not None and len(logged.reader) == 32 and "testclient" not in logged.reader


def test_a_search_that_finds_nothing_is_logged_with_no_results(client: TestClient, run_log: RunLog) -> None:
    with client:
        assert client.get("/api/search", params={"q": "kubernetes"}).json()["results"] == []
    assert [(s.query, s.result_count) for s in run_log.searches()] == [("kubernetes", 0)]


def test_a_304_and_refused_searches_are_not_logged(client: TestClient, run_log: RunLog) -> None:
    with client:
        etag = client.get("/api/search", params={"q": "install"}).headers["ETag"]
        assert client.get("/api/search", params={"q": "install"}, headers={"If-None-Match": etag}).status_code == 304
        assert client.get("/api/search", params={"q": "   "}).status_code == 422
        assert client.get("/api/search", params={"q": "pip", "limit": "0"}).status_code == 422
        assert client.get("/api/search", params={"q": "pip"}).status_code == 200
        assert client.get("/api/search", params={"q": "pip again"}).status_code == 429
    assert [s.query for s in run_log.searches()] == ["install", "pip"]


def test_only_the_query_a_reader_settled_on_is_logged(client: TestClient, run_log: RunLog) -> None:
    with client:
        for typed in ("con", "configur", "configuration"):
            assert client.get("/api/search", params={"q": typed}).status_code == 200
        client.get("/api/search", params={"q": "kubernetes"})  # another query: the last one is settled
    assert [s.query for s in run_log.searches()] == ["configuration", "kubernetes"]


def test_a_search_response_names_its_logged_search_and_is_kept_private(client: TestClient, run_log: RunLog) -> None:
    with client:
        response = client.get("/api/search", params={"q": "pydantic"})
    (logged,) = run_log.searches()
    assert response.json()["search_id"] == logged.search_id
    assert re.fullmatch(r"[0-9a-f]{32}", logged.search_id)
    assert response.headers["Cache-Control"].startswith("private")  # no shared cache hands one reader's id to another


def test_a_click_is_recorded_on_the_readers_search(client: TestClient, run_log: RunLog) -> None:
    url = f"{DOCS}/install/#validation-with-pydantic"
    with client:
        client.get("/api/search", params={"q": "pydantic"})
        response = client.post("/api/search/click", json={"query": "pydantic", "url": url})
    assert response.status_code == 200 and response.json() == {"recorded": True}
    (logged,) = run_log.searches()
    assert (logged.query, logged.clicked_url) == ("pydantic", url)
    assert logged.result_count is not None and logged.result_count > 0


def test_a_click_with_no_search_logged_is_a_row_of_its_own_masked(client: TestClient, run_log: RunLog) -> None:
    with client:
        body = {"query": "install bob@example.com", "url": f"{DOCS}/install/"}
        assert client.post("/api/search/click", json=body).status_code == 200
    (logged,) = run_log.searches()
    assert (logged.query, logged.result_count, logged.clicked_url) == ("install [email]", None, f"{DOCS}/install/")


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"query": "pip", "url": "https://elsewhere.example/install/"}, 404, "not one of the site's pages"),
        ({"query": "pip", "url": "javascript:alert(1)"}, 422, "must be an http(s) URL"),
        ({"query": "   ", "url": f"{DOCS}/install/"}, 422, "is empty"),
        ({"query": "x" * 2001, "url": f"{DOCS}/install/"}, 422, "a search is at most a question's 2000"),
        ({"url": f"{DOCS}/install/"}, 422, "query"),
        ({"query": "pip", "url": f"{DOCS}/install/", "extra": 1}, 422, "extra"),
        ("not an object", 422, ""),
    ],
)
def test_a_bad_click_is_refused_with_a_message_and_not_logged(
    client: TestClient, run_log: RunLog, body: object, status: int, says: str
) -> None:
    with client:
        response = client.post("/api/search/click", json=body)
    assert response.status_code == status
    assert says in response.json()["detail"]
    assert run_log.searches() == []


def test_a_click_that_is_not_json_is_415(client: TestClient, run_log: RunLog) -> None:
    with client:
        response = client.post("/api/search/click", content=b"query=pip", headers={"content-type": "text/plain"})
    assert response.status_code == 415 and response.json()["detail"]
    assert run_log.searches() == []


def test_clicks_count_in_the_search_rate_limit(client: TestClient, run_log: RunLog) -> None:
    body = {"query": "pip", "url": f"{DOCS}/install/"}
    with client:
        statuses = [client.post("/api/search/click", json=body).status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    assert len(run_log.searches()) == 5


def test_retention_removes_old_searches_in_batches(run_log: RunLog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runlog_store, "DELETE_BATCH", 2)
    now = datetime.now(UTC)
    for day in range(5):
        old = now - timedelta(days=40 + day)
        run_log.record_search(SearchRecord(query=f"old {day}", result_count=1, created_at=old))
    run_log.record_search(SearchRecord(query="recent", result_count=0, created_at=now - timedelta(days=1)))
    assert asyncio.run(expire_once(run_log, 30)) == 0  # no runs; the searches go all the same
    assert [s.query for s in run_log.searches()] == ["recent"]


def test_the_searches_that_found_nothing_are_counted_most_frequent_first(run_log: RunLog) -> None:
    now = datetime.now(UTC)
    for query, found in [("helm", 0), ("kubernetes", 0), ("helm", 0), ("install", 3), ("helm", 0)]:
        run_log.record_search(SearchRecord(query=query, result_count=found, created_at=now))
    run_log.record_search(SearchRecord(query="old", result_count=0, created_at=now - timedelta(days=30)))
    assert run_log.unfound_searches(now - timedelta(days=7), 10) == [("helm", 3), ("kubernetes", 1)]


def test_a_search_a_question_was_asked_from_is_counted_as_the_question_not_a_search(run_log: RunLog) -> None:
    now = datetime.now(UTC)
    run_log.record_search(SearchRecord(query="helm", result_count=0, created_at=now))
    run_log.record_search(SearchRecord(query="How do I deploy with helm?", result_count=0, search_id=SEARCH_ID))
    run_log.record(asked("How do I deploy with helm?", "fallback", SEARCH_ID))
    assert run_log.unfound_searches(now - timedelta(days=7), 10) == [("helm", 1)]
    assert run_log.searched_then_fallback(now - timedelta(days=7), 10) == [("How do I deploy with helm?", 0)]


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
)
def test_an_older_run_log_gets_the_searches_table(tmp_path: Path, backend: str) -> None:
    if backend == "sqlite":
        database = contextlib.nullcontext(f"sqlite:///{tmp_path / 'old.sqlite'}")
    else:
        database = postgres_database(POSTGRES)
    with database as url:
        if backend == "sqlite":
            with sqlite3.connect(tmp_path / "old.sqlite") as old:
                old.execute(runlog_store._SCHEMA)
        else:
            import psycopg

            with psycopg.connect(url, autocommit=True) as old:
                old.execute(runlog_store._SCHEMA)
        log = open_run_log(url)
        try:
            log.record_search(SearchRecord(query="pip", result_count=2))
            assert [s.query for s in log.searches()] == ["pip"]
        finally:
            log.close()


BACKENDS = ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
UNFOUND = [("helm chart", 0), ("helm chart", 0), (HOSTILE, 0), ("install", 4)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_searches_with_no_result_show_in_the_reports_coverage_gaps(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        for query, found in UNFOUND:
            log.record_search(SearchRecord(query=query, result_count=found))
        log.close()
        monkeypatch.setenv("ASKAI_DATABASE_URL", database)
        assert main(["report", "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    gaps = out.split("## Coverage gaps")[1].split("## Pages retrieved")[0]
    assert "### Searches with no result\n\n| search | times |\n|---|---|\n| helm chart | 2 |\n" in gaps
    assert "<script>" not in out and "install" not in gaps  # reader text inert; a search that found pages is no gap


@pytest.mark.parametrize("backend", BACKENDS)
def test_searches_with_no_result_show_in_the_admin_coverage_gaps_as_text(
    settings: Settings, tmp_path: Path, backend: str
) -> None:
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        try:
            for query, found in UNFOUND:
                log.record_search(SearchRecord(query=query, result_count=found))
            application = admin_app(settings, log)
            page = call(application, "GET", "/admin/gaps?days=7", cookies={"askai_admin": signed_in(application)})
        finally:
            log.close()
    assert page.status_code == 200
    table = page.text.split("<h2>Searches with no result</h2>")[1]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(\d+)</td></tr>", table)
    assert rows[0] == ("helm chart", "2") and len(rows) == 2
    assert "<script>alert" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in table
    assert "install" not in table


def test_a_search_made_while_the_database_is_away_waits_in_the_queue_and_is_written_after(tmp_path: Path) -> None:
    shared = sqlite3.connect(tmp_path / "runs.sqlite", check_same_thread=False, isolation_level=None)
    runlog_store.create_schema(shared)
    away, tried = threading.Event(), threading.Event()
    away.set()

    @contextmanager
    def connections() -> Iterator[sqlite3.Connection]:
        if away.is_set():
            tried.set()
            raise sqlite3.OperationalError("the database is away")
        yield shared

    log = runlog_store.SqlRunLog(connections, "?", unavailable=(sqlite3.OperationalError,), close=shared.close)
    log.record_search(SearchRecord(query="mail carol@example.com", result_count=0))  # returns at once
    assert tried.wait(30) and log.pending == 1
    away.clear()
    deadline = time.monotonic() + 30
    while log.pending and time.monotonic() < deadline:
        with contextlib.suppress(runlog_store.RunLogUnavailable):
            log.flush()  # the writer's own retry may hold it; either one writes it
    assert [(s.query, s.result_count) for s in log.searches()] == [("mail [email]", 0)]
    log.close()


def test_an_older_run_log_gets_the_runs_search_id(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "old.sqlite") as old:
        old.execute(runlog_store._SCHEMA.replace(",\n    search_id TEXT", ""))
        assert "search_id" not in {row[1] for row in old.execute("PRAGMA table_info(askai_runs)")}
    log = open_run_log(f"sqlite:///{tmp_path / 'old.sqlite'}")
    try:
        log.record(asked("How do I deploy on helm?", "fallback", SEARCH_ID))
        assert [run.search_id for run in log.runs()] == [SEARCH_ID]
    finally:
        log.close()


SEARCH_ID = "5e" * 16


def asked(question: str, outcome: str, search_id: str | None) -> RunRecord:
    return RunRecord(
        run_id=str(uuid.uuid4()), created_at=datetime.now(UTC), question=question, outcome=outcome, search_id=search_id
    )


def searched_then_asked(log: RunLog) -> None:
    """A search asked as a question ending in fallback, one answered, and a fallback asked from no search."""
    log.record_search(SearchRecord(query=HOSTILE, result_count=0, search_id=SEARCH_ID))
    log.record(asked(HOSTILE, "fallback", SEARCH_ID))
    log.record_search(SearchRecord(query="install", result_count=3, search_id="1f" * 16))
    log.record(asked("How do I install it?", "accepted", "1f" * 16))
    log.record(asked("What is the airspeed of a swallow?", "fallback", None))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_search_followed_by_a_question_that_ended_in_fallback_shows_in_the_report(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        searched_then_asked(log)
        log.close()
        monkeypatch.setenv("ASKAI_DATABASE_URL", database)
        assert main(["report", "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    gaps = out.split("### Searched, then asked: ended in fallback")[1].split("## Pages retrieved")[0]
    rows = [line for line in gaps.splitlines() if line.startswith("| ") and "---" not in line]
    # The question once (its search was its text), with the pages its search found.
    assert rows[0] == "| question | pages its search found |" and len(rows) == 2
    assert rows[1].startswith("| \\<script\\>alert") and rows[1].endswith(" | 0 |") and "<script>" not in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_search_followed_by_a_question_that_ended_in_fallback_shows_in_the_admin_gaps(
    settings: Settings, tmp_path: Path, backend: str
) -> None:
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        try:
            searched_then_asked(log)
            application = admin_app(settings, log)
            page = call(application, "GET", "/admin/gaps?days=7", cookies={"askai_admin": signed_in(application)})
        finally:
            log.close()
    assert page.status_code == 200
    table = page.text.split("<h2>Searched, then asked: ended in fallback</h2>")[1]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", table)
    assert len(rows) == 1 and rows[0][0].startswith("&lt;script&gt;alert(1)") and rows[0][1] == "0"
    assert "<script>alert" not in page.text
