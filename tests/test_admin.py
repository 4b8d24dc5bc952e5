"""``/admin``: off without a token, signed sessions, cookie flags, CSRF, and the overview on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.server.dashboard.admin_revocations import Revocations
from askai_graph.server.dashboard.admin_throttle import IN_ALL, PER_CLIENT
from askai_graph.server.serving import uvicorn_config
from askai_graph.stores.runlog import RunLog, open_run_log
from tests.fakes import postgres_database, ungated_graph
from tests.live import LiveServer, free_port
from tests.redis_server import RedisServer
from tests.test_runlog_store import POSTGRES, run

TOKEN = "correct-horse-battery-staple"
PER_CLIENT_PER_MINUTE = int(PER_CLIENT.split("/")[0])
IN_ALL_PER_MINUTE = int(IN_ALL.split("/")[0])
NOW = datetime.now(UTC)


@pytest.fixture
def run_log(tmp_path: Path) -> Iterator[RunLog]:
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield log
    log.close()


def app(settings: Settings, run_log: RunLog | None, token: str | None = TOKEN) -> Any:
    configured = settings.model_copy(update={"admin_token": SecretStr(token) if token else None})
    return create_app(ungated_graph("answer"), configured, run_log=run_log)


def call(
    application: Any, method: str, path: str, *, scheme: str = "https", cookies: Any = None, **kwargs: Any
) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=application)
        base = f"{scheme}://testserver"
        async with httpx.AsyncClient(transport=transport, base_url=base, cookies=cookies) as client:
            return await client.request(method, path, **kwargs)

    return asyncio.run(go())


def signed_in(application: Any, scheme: str = "https") -> str:
    """Sign in and return the session cookie's value."""
    response = call(application, "POST", "/admin/login", data={"token": TOKEN}, scheme=scheme)
    assert response.status_code == 303 and response.headers["location"] == "/admin"
    match = re.match(r"askai_admin=([^;]+);", response.headers["set-cookie"])
    assert match
    return match.group(1)


def test_admin_does_not_exist_without_a_token(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log, token=None)
    paths = [("GET", "/admin"), ("GET", "/admin/login"), ("POST", "/admin/login"), ("GET", "/admin/api/overview")]
    for method, path in paths:
        assert call(application, method, path).status_code == 404, path


def test_a_wrong_token_is_401_and_sets_no_cookie(settings: Settings, run_log: RunLog) -> None:
    response = call(app(settings, run_log), "POST", "/admin/login", data={"token": "not-the-token-at-all"})
    assert response.status_code == 401 and "set-cookie" not in response.headers
    assert "That is not the admin token." in response.text


def test_the_session_cookie_is_httponly_samesite_strict_and_secure_over_https(
    settings: Settings, run_log: RunLog
) -> None:
    application = app(settings, run_log)
    over_https = call(application, "POST", "/admin/login", data={"token": TOKEN}).headers["set-cookie"].lower()
    assert {"httponly", "samesite=strict", "secure", "path=/admin"} <= {p.strip() for p in over_https.split(";")}
    over_http = call(application, "POST", "/admin/login", data={"token": TOKEN}, scheme="http").headers["set-cookie"]
    assert "secure" not in over_http.lower() and "httponly" in over_http.lower()


def test_signed_out_the_pages_redirect_and_the_api_is_401(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    page = call(application, "GET", "/admin")
    assert page.status_code == 303 and page.headers["location"] == "/admin/login"
    assert call(application, "GET", "/admin/api/overview").status_code == 401
    forged = "9999999999.nonce." + "0" * 64
    assert call(application, "GET", "/admin/api/overview", cookies={"askai_admin": forged}).status_code == 401
    session = signed_in(application)
    assert call(application, "GET", "/admin/api/overview", cookies={"askai_admin": session}).status_code == 200


def test_a_sign_in_posted_from_another_origin_is_refused(settings: Settings, run_log: RunLog) -> None:
    headers = {"Origin": "https://evil.example"}
    response = call(app(settings, run_log), "POST", "/admin/login", data={"token": TOKEN}, headers=headers)
    assert response.status_code == 403 and "set-cookie" not in response.headers


def test_sign_out_needs_the_sessions_csrf_token(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    session = signed_in(application)
    cookies = {"askai_admin": session}
    assert call(application, "POST", "/admin/logout", cookies=cookies, data={}).status_code == 403
    assert call(application, "POST", "/admin/logout", cookies=cookies, data={"csrf": "0" * 64}).status_code == 403
    page = call(application, "GET", "/admin", cookies=cookies).text
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert csrf
    out = call(application, "POST", "/admin/logout", cookies=cookies, data={"csrf": csrf.group(1)})
    assert out.status_code == 303 and 'askai_admin=""' in out.headers["set-cookie"]


def csrf_of(application: Any, cookies: dict[str, str]) -> str:
    """The CSRF token the signed-in overview's forms carry."""
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', call(application, "GET", "/admin", cookies=cookies).text)
    assert found
    return found.group(1)


def test_signing_out_ends_the_session_on_the_server_not_only_in_the_browser(
    settings: Settings, run_log: RunLog
) -> None:
    application = app(settings, run_log)
    kept = {"askai_admin": signed_in(application)}  # a copy of the cookie, kept past the sign-out
    other = {"askai_admin": signed_in(application)}
    out = call(application, "POST", "/admin/logout", cookies=kept, data={"csrf": csrf_of(application, kept)})
    assert out.status_code == 303
    page = call(application, "GET", "/admin", cookies=kept)
    assert page.status_code == 303 and page.headers["location"] == "/admin/login"
    assert call(application, "GET", "/admin/api/overview", cookies=kept).status_code == 401
    assert call(application, "GET", "/admin/api/overview", cookies=other).status_code == 200  # only that session


def test_a_cookie_beyond_ascii_is_a_redirect_to_sign_in(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    headers = {"Cookie": "askai_admin=9999999999.x.ÿÿ".encode()}  # as a client sends it: UTF-8 bytes
    page = call(application, "GET", "/admin", headers=headers)
    assert page.status_code == 303 and page.headers["location"] == "/admin/login"
    assert call(application, "GET", "/admin/api/overview", headers=headers).status_code == 401


def test_past_the_per_client_throttle_sign_in_is_429_and_even_the_right_token_is_not_compared(
    settings: Settings, run_log: RunLog
) -> None:
    application = app(settings, run_log)
    for _ in range(PER_CLIENT_PER_MINUTE):
        assert call(application, "POST", "/admin/login", data={"token": "wrong-token-guess-00"}).status_code == 401
    refused = call(application, "POST", "/admin/login", data={"token": TOKEN})
    assert refused.status_code == 429 and "set-cookie" not in refused.headers
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert "Too many sign-in attempts" in refused.text


def test_guesses_spread_over_many_addresses_are_throttled_in_all(settings: Settings, run_log: RunLog) -> None:
    application = app(settings.model_copy(update={"trusted_proxies": "127.0.0.1"}), run_log)

    def guess(client: int) -> httpx.Response:
        headers = {"X-Forwarded-For": f"203.0.113.{client}"}
        return call(application, "POST", "/admin/login", data={"token": "wrong-token-guess-00"}, headers=headers)

    assert [guess(client).status_code for client in range(IN_ALL_PER_MINUTE)] == [401] * IN_ALL_PER_MINUTE
    refused = guess(IN_ALL_PER_MINUTE)  # an address never seen before
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1


def test_every_admin_page_sends_a_strict_csp_and_runs_no_script(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    cookies = {"askai_admin": signed_in(application)}
    for path in ("/admin/login", "/admin"):
        response = call(application, "GET", path, cookies=cookies)
        assert response.status_code == 200
        csp = response.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp and "frame-ancestors 'none'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "<script" not in response.text


def test_a_period_other_than_those_offered_is_422(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    cookies = {"askai_admin": signed_in(application)}
    response = call(application, "GET", "/admin/api/overview?days=abc", cookies=cookies)
    assert response.status_code == 422 and "days must be one of 1, 7, 30, 90" in response.json()["detail"]


def test_a_short_admin_token_is_refused_at_startup() -> None:
    with pytest.raises(ValidationError, match="at least 16 characters"):
        Settings(admin_token="short")


SEEDED = [
    run("a", at=NOW - timedelta(days=1), outcome="accepted", latency_ms=100.0, rating="up", reader="r1"),
    run("b", at=NOW - timedelta(days=1), outcome="accepted", latency_ms=200.0, cached=True, reader="r1"),
    run("c", at=NOW - timedelta(days=2), outcome="degraded", latency_ms=300.0, rating="down", reader="r2"),
    run("d", at=NOW, outcome="fallback", latency_ms=400.0, reader="r3"),
    run("old", at=NOW - timedelta(days=20), outcome="accepted", latency_ms=9000.0, reader="r4"),
]


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
)
def test_the_overview_counts_the_periods_runs(settings: Settings, tmp_path: Path, backend: str) -> None:
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        try:
            for record in SEEDED:
                log.record(record)
            application = app(settings, log)
            cookies = {"askai_admin": signed_in(application)}
            data = call(application, "GET", "/admin/api/overview?days=7", cookies=cookies).json()
            page = call(application, "GET", "/admin?days=7", cookies=cookies).text
        finally:
            log.close()
    assert data["total"] == 4 and data["outcomes"] == {"accepted": 2, "degraded": 1, "fallback": 1}
    assert (data["thumbs_up"], data["thumbs_down"], data["cached"], data["readers"]) == (1, 1, 1, 3)
    assert data["cache_hit_rate"] == 0.25 and (data["p50_ms"], data["p95_ms"]) == (200.0, 400.0)
    assert [day["total"] for day in data["days"]] == [1, 2, 1]
    assert 'data-chart="questions-per-day"' in page and page.count("<rect ") == 3
    assert "<b>4</b>" in page and "<b>50%</b>" in page  # questions; answered (2 of 4)


def test_the_questions_per_day_chart_has_axes_and_a_legend(settings: Settings, run_log: RunLog) -> None:
    for record in SEEDED:
        run_log.record(record)
    application = app(settings, run_log)
    cookies = {"askai_admin": signed_in(application)}
    overview = call(application, "GET", "/admin/api/overview?days=7", cookies=cookies).json()
    days = [day["day"] for day in overview["days"]]
    svg = call(application, "GET", "/admin?days=7", cookies=cookies).text.split('data-chart="questions-per-day">')[1]

    def texts(group: str) -> list[str]:
        return re.findall(r"<text [^>]*>([^<]*)</text>", svg.split(f"<g {group}>")[1].split("</g>")[0])

    assert texts("data-legend") == ["accepted", "accepted_early", "degraded", "fallback"]
    assert texts('data-axis="y"') == ["0", "1", "2"]  # questions: none, half the busiest day, the busiest
    assert texts('data-axis="x"') == [days[0], days[1], days[2]]  # the first, middle and last day


def contextlib_database(backend: str, tmp_path: Path) -> Any:
    import contextlib

    if backend == "sqlite":
        return contextlib.nullcontext(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    return postgres_database(POSTGRES)


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & [link](javascript:alert(3))'


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
)
def test_the_questions_list_filters_opens_a_run_and_exports_csv(
    settings: Settings, tmp_path: Path, backend: str
) -> None:
    hostile = run(HOSTILE, at=NOW - timedelta(hours=2), outcome="fallback", rating="down", comment='=HYPERLINK("x")')
    plain = run("How does 50% of the cache_size work?", at=NOW - timedelta(hours=1), outcome="accepted")
    old = run("Too old to list", at=NOW - timedelta(days=10), outcome="fallback")
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        try:
            for record in (hostile, plain, old):
                log.record(record)
            application = app(settings, log)
            cookies = {"askai_admin": signed_in(application)}

            def get(path: str) -> httpx.Response:
                return call(application, "GET", path, cookies=cookies)

            listed = get("/admin/questions?days=7").text
            fallbacks = get("/admin/questions?days=7&outcome=fallback").text
            by_text = get("/admin/questions?days=7&text=50%25").text
            underscore = get("/admin/questions?days=7&text=he_c").text
            opened = get(f"/admin/runs/{hostile.run_id}")
            csv_text = get("/admin/questions.csv?days=7&rating=down").text
            unknown, malformed = get(f"/admin/runs/{uuid.uuid4()}"), get("/admin/runs/not-a-run-id")
        finally:
            log.close()
    assert "2 shown" in listed and "Too old to list" not in listed
    assert "1 shown" in fallbacks and "How does 50%" not in fallbacks
    assert "1 shown" in by_text and "How does 50% of the cache_size work?" in by_text
    assert "0 shown" in underscore  # ``_`` is a character, not a LIKE wildcard
    # Reader text is text: nothing of it became markup.
    for page in (listed, opened.text):
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in page
        assert 'href="javascript' not in page
    assert opened.status_code == 200 and "fallback after 3 draft(s)" in opened.text
    assert "low_confidence" in opened.text and "https://site.example/b" in opened.text
    lines = csv_text.splitlines()
    assert lines[0].startswith("created_at,run_id,question,standalone_question,outcome")
    assert len(lines) == 2 and hostile.run_id in lines[1] and "'=HYPERLINK" in lines[1]
    assert (unknown.status_code, malformed.status_code) == (404, 422)


def test_signed_out_the_csv_is_401_and_the_questions_redirect(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    assert call(application, "GET", "/admin/questions.csv").status_code == 401
    assert call(application, "GET", "/admin/questions").headers["location"] == "/admin/login"


SOURDOUGH = "https://site.example/bread"
GAPS = [
    run("How do I bake sourdough bread?", at=NOW - timedelta(hours=3), outcome="fallback",
        gates={"retrieval": "failed"}, failure_codes=[], gaps=[], retrieved_urls=[], cited_urls=[]),
    run("sourdough bread: how to bake it?", at=NOW - timedelta(hours=2), outcome="degraded",
        retrieved_urls=[SOURDOUGH], cited_urls=[], gaps=["sourdough"]),
    run(HOSTILE, at=NOW - timedelta(hours=1), outcome="fallback", retrieved_urls=[], cited_urls=[]),
    run("How does BM25 work?", at=NOW - timedelta(hours=1), outcome="accepted"),
    run("Old sourdough question", at=NOW - timedelta(days=10), outcome="fallback"),
]  # fmt: skip


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
)
def test_the_coverage_gaps_group_the_periods_unanswered_questions_as_the_report_does(
    settings: Settings, tmp_path: Path, backend: str
) -> None:
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        try:
            for record in GAPS:
                log.record(record)
            application = app(settings, log)
            cookies = {"askai_admin": signed_in(application)}
            page = call(application, "GET", "/admin/gaps?days=7", cookies=cookies)
        finally:
            log.close()
    assert page.status_code == 200 and "script-src" not in page.headers["content-security-policy"]
    groups = re.findall(r"<details data-gap-group>(.*?)</details>", page.text, re.S)
    assert len(groups) == 2 and "3 degraded or fallback answers, in 2 groups" in page.text
    bread = groups[0]
    assert "How do I bake sourdough bread? <span>(asked 2×)</span>" in bread
    assert f'<a href="/admin/runs/{GAPS[1].run_id}">sourdough bread: how to bake it?</a>' in bread
    assert "<td>bake sourdough bread</td>" in bread  # the suggested page: what both questions share
    assert f"<li>{SOURDOUGH} (1)</li>" in bread and "fallback ×1, degraded ×1" in bread
    assert "Old sourdough" not in page.text and "BM25" not in page.text
    assert "<script>alert" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in groups[1]


def test_the_coverage_gaps_list_questions_no_page_matched_apart_as_off_topic(
    settings: Settings, run_log: RunLog
) -> None:
    off_topic = ["Write me a poem about autumn", "Can I get a refund for my order?", "What is the capital of Peru?"]
    for question in off_topic:
        run_log.record(run(question, outcome="fallback", gates={"retrieval": "failed"}, retrieved_urls=[]))
    for record in GAPS:
        run_log.record(record)
    application = app(settings, run_log)
    page = call(application, "GET", "/admin/gaps?days=7", cookies={"askai_admin": signed_in(application)}).text
    groups = "".join(re.findall(r"<details data-gap-group>(.*?)</details>", page, re.S))
    assert "sourdough" in groups and not any(question in groups for question in off_topic)
    listed = re.findall(r"<tr><td><a [^>]*>(.*?)</a></td><td>1</td></tr>", page.split("<table data-off-topic>")[1])
    assert sorted(listed) == sorted(off_topic)
    assert "3 of the groups matched no page of the site" in page


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=[pytest.mark.integration, pytest.mark.enable_socket])]
)
def test_the_pages_view_ranks_cited_pages_and_lists_pages_retrieved_but_never_cited(
    settings: Settings, tmp_path: Path, backend: str
) -> None:
    a, b, c = (f"https://site.example/{name}" for name in "abc")
    seeded = [run(f"q{i}", at=NOW - timedelta(hours=1), cited_urls=[a], retrieved_urls=[a, b, a]) for i in range(3)]
    seeded += [run("q3", cited_urls=[c], retrieved_urls=[c, b])]
    seeded += [run("old", at=NOW - timedelta(days=10), cited_urls=[b])]
    with contextlib_database(backend, tmp_path) as database:
        log = open_run_log(database)
        try:
            for record in seeded:
                log.record(record)
            application = app(settings, log)
            cookies = {"askai_admin": signed_in(application)}
            page = call(application, "GET", "/admin/pages?days=7", cookies=cookies).text
        finally:
            log.close()
    cited, never = page.split("Retrieved often, never cited")
    assert re.findall(r"<tr><td>(.*?)</td><td>(\d+)</td></tr>", cited) == [(a, "3"), (c, "1")]
    assert re.findall(r"<tr><td>(.*?)</td><td>(\d+)</td></tr>", never) == [(b, "4")]


def test_signed_out_the_coverage_views_redirect_and_a_bad_period_is_422(settings: Settings, run_log: RunLog) -> None:
    application = app(settings, run_log)
    for path in ("/admin/gaps", "/admin/pages"):
        assert call(application, "GET", path).headers["location"] == "/admin/login"
    cookies = {"askai_admin": signed_in(application)}
    assert call(application, "GET", "/admin/gaps?days=3", cookies=cookies).status_code == 422
    assert call(application, "GET", "/admin/pages", cookies=cookies).status_code == 200


def test_without_a_run_log_the_coverage_views_are_404(settings: Settings) -> None:
    application = app(settings, None)
    cookies = {"askai_admin": signed_in(application)}
    response = call(application, "GET", "/admin/gaps", cookies=cookies)
    assert response.status_code == 404 and "ASKAI_RUN_LOG=false" in response.text


def test_the_coverage_views_read_the_periods_newest_runs_up_to_their_limit(run_log: RunLog) -> None:
    records = [
        run(f"q{i}", at=NOW - timedelta(hours=3 - i), outcome="fallback", cited_urls=[f"https://site.example/{i}"])
        for i in range(3)
    ]
    for record in records:
        run_log.record(record)
    use = run_log.page_use(NOW - timedelta(days=1), 2)
    assert use.answers == 2 and sorted(use.cited) == ["https://site.example/1", "https://site.example/2"]
    assert [r.question for r in run_log.unanswered(NOW - timedelta(days=1), 2)] == ["q1", "q2"]


@pytest.mark.integration
@pytest.mark.enable_socket
def test_a_sign_out_on_one_worker_ends_the_session_on_every_worker_sharing_redis(
    settings: Settings, redis_server: RedisServer
) -> None:
    # Two apps on one Redis stand for two workers of `askai serve --workers 2`.
    shared = settings.model_copy(update={"admin_token": SecretStr(TOKEN), "cache_url": redis_server.url})
    one, other = (create_app(ungated_graph("answer"), shared) for _ in range(2))
    with live(one, shared) as first, live(other, shared) as second:
        # Each request a client of its own: the cookie is sent as a copy kept past the sign-out would be.
        signed = httpx.post(f"{first}/admin/login", data={"token": TOKEN}, timeout=10)
        cookie = {"Cookie": f"askai_admin={signed.cookies['askai_admin']}"}
        assert httpx.get(f"{second}/admin/api/overview", headers=cookie, timeout=10).status_code == 200
        page = httpx.get(f"{first}/admin", headers=cookie, timeout=10).text
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert csrf
        out = httpx.post(f"{first}/admin/logout", headers=cookie, data={"csrf": csrf.group(1)}, timeout=10)
        assert out.status_code == 303
        assert httpx.get(f"{second}/admin/api/overview", headers=cookie, timeout=10).status_code == 401


def live(application: Any, settings: Settings) -> LiveServer:
    """``application`` on a real uvicorn, its lifespan on (its Redis clients close with it)."""
    config = uvicorn_config(application, settings, host="127.0.0.1", port=0, log_level="warning")
    return LiveServer(application, config)


@pytest.mark.integration
@pytest.mark.enable_socket
def test_with_redis_unreachable_a_session_is_taken_as_signed_out(caplog: pytest.LogCaptureFixture) -> None:
    async def ask() -> list[bool]:
        revocations = Revocations(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
        try:
            return [await revocations.revoked("nonce") for _ in range(3)]
        finally:
            await revocations.aclose()

    with caplog.at_level(logging.WARNING, logger="askai_graph"):
        assert asyncio.run(ask()) == [True, True, True]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["dashboard sign-outs: Redis unreachable"]
