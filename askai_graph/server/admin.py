"""``/admin``: the site owner's dashboard, on only when ``ASKAI_ADMIN_TOKEN`` is set.

Without the token no route exists (``404``). With it:

====================  ==================================================================
GET  /admin/login     the sign-in form
POST /admin/login     ``token=...``: the right token sets the session cookie and
                      redirects (303) to ``/admin``; a wrong one is ``401``; a POST from
                      another origin ``403``; past the sign-in throttle (``admin_throttle``)
                      ``429`` with ``Retry-After``, the token not compared
POST /admin/logout    ``csrf=...``: ends the session (``admin_revocations``) and drops the cookie
                      (``403`` without the session's CSRF token or from another origin)
GET  /admin           the overview (``?days=1|7|30|90``, default 7); signed out: 303 to
                      the sign-in form
GET  /admin/api/overview  the same as JSON; signed out: ``401``
GET  /admin/gaps      coverage gaps: the period's degraded and fallback questions (the
                      newest ``GAP_RUNS``) grouped by topic as ``askai report`` groups
                      them, each with example questions, the pages retrieved and a
                      suggested page to write
GET  /admin/pages     the most cited pages, and pages retrieved often but never cited
                      (over the newest ``PAGE_RUNS`` answers of the period)
GET  /admin/questions the questions of a period, filtered (``outcome``, ``rating`` up,
                      down or none, ``text``), newest first; each opens its run
GET  /admin/questions.csv  the same list as CSV (formula-looking cells prefixed ``'``)
GET  /admin/runs/ID   one run: standalone question, gates, failure codes, the Critic's
                      gaps, cited, shown and retrieved URLs (as text), time per stage
GET  /admin/admin.css the pages' style sheet
====================  ==================================================================

Sessions and CSRF: ``admin_session``. Pages: ``admin_pages`` and ``admin_coverage`` (no script; every response
carries ``ADMIN_HEADERS``, a CSP that allows none). The run log's overview is computed
in the database, in the bookkeeping pool.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import ValidationError

from askai_graph.server.admin_coverage import gaps_page, pages_page
from askai_graph.server.admin_pages import (
    ADMIN_HEADERS,
    CSS,
    PERIODS,
    login_page,
    overview_page,
    questions_csv,
    questions_page,
    run_page,
)
from askai_graph.server.admin_revocations import Revocations
from askai_graph.server.admin_session import (
    AdminSessions,
    clear_session_cookie,
    same_origin,
    set_session_cookie,
)
from askai_graph.server.admin_throttle import SignInThrottle, sign_in_throttle
from askai_graph.server.limits import client_address
from askai_graph.server.pools import bookkeeping
from askai_graph.server.request import BadRequest, read_body
from askai_graph.settings import Settings
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog, RunLogUnavailable
from askai_graph.stores.runlog.coverage import UNFOUND_SEARCHES, GapGroup, SearchGaps, group_gaps
from askai_graph.stores.runlog.overview import Overview, RunQuery
from askai_graph.stores.runlog.record import RunRecord
from askai_graph.stores.runlog.store import STORE_TIMEOUT_SECONDS
from askai_graph.stores.threads import is_thread_id

FORM_LIMIT = 4096
"""Largest sign-in or sign-out form accepted, in bytes."""
GAP_RUNS = 1000
"""Unanswered runs the coverage gaps view groups at most (the newest): about 1 ms each on a loaded 2-core machine."""
PAGE_RUNS = 20_000
"""Answers the pages view counts at most (the newest): about 0.03 ms each (``bench/admin_overview.py``)."""


def router(
    settings: Settings,
    *,
    run_log: RunLog | None,
    sign_ins: SignInThrottle | None = None,
    sign_outs: Revocations | None = None,
) -> APIRouter:
    """Return the dashboard's routes (none when ``admin_token`` is unset: ``/admin`` is then a 404).

    ``sign_ins`` counts sign-in attempts and ``sign_outs`` records sessions signed out
    (each in process when ``None``).
    """
    routes = APIRouter(include_in_schema=False)
    if settings.admin_token is None:
        return routes
    sessions = AdminSessions(settings.admin_token, sign_outs)
    throttle = sign_ins or sign_in_throttle(None, ReaderHash(settings.reader_hash_key))

    async def form(request: Request) -> dict[str, str]:
        if not same_origin(request):
            raise BadRequest(403, "cross-origin request refused")
        body = await read_body(request, FORM_LIMIT, settings.body_timeout_seconds)
        try:
            fields = parse_qs(body.decode("utf-8"), max_num_fields=4)
        except (UnicodeDecodeError, ValueError):
            raise BadRequest(400, "the form is not valid") from None
        return {name: values[0] for name, values in fields.items()}

    def html(body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(body, status_code=status, headers=ADMIN_HEADERS)

    def days_of(request: Request) -> int:
        raw = request.query_params.get("days", "7")
        if not raw.isdigit() or int(raw) not in PERIODS:
            raise BadRequest(422, f"days must be one of {', '.join(map(str, PERIODS))}")
        return int(raw)

    async def overview(days: int) -> Overview:
        since = datetime.now(UTC) - timedelta(days=days)
        if run_log is None:
            return Overview(since=since)
        try:
            return await asyncio.wait_for(bookkeeping(run_log.overview, since), STORE_TIMEOUT_SECONDS * 2)
        except (RunLogUnavailable, TimeoutError):
            raise BadRequest(503, "the run log is unavailable right now; try again shortly", retry_after=5) from None

    @routes.get("/admin/admin.css")
    async def css() -> Response:
        return Response(CSS, media_type="text/css", headers=ADMIN_HEADERS)

    @routes.get("/admin/login")
    async def login_form() -> HTMLResponse:
        return html(login_page())

    @routes.post("/admin/login")
    async def login(request: Request) -> Response:
        fields = await form(request)
        wait = await throttle.admit(client_address(request))
        if wait is not None:
            throttled = html(login_page(f"Too many sign-in attempts; try again in {wait} s."), status=429)
            throttled.headers["Retry-After"] = str(wait)
            return throttled
        if not sessions.token_matches(fields.get("token", "")):
            return html(login_page("That is not the admin token."), status=401)
        response = RedirectResponse("/admin", status_code=303, headers=ADMIN_HEADERS)
        set_session_cookie(response, request, sessions.issue())
        return response

    @routes.post("/admin/logout")
    async def logout(request: Request) -> Response:
        fields = await form(request)
        session = await sessions.session_of(request)
        if session is None or not sessions.csrf_matches(session, fields.get("csrf", "")):
            raise BadRequest(403, "sign-out refused: missing or wrong CSRF token")
        await sessions.revoke(session)
        response = RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
        clear_session_cookie(response, request)
        return response

    @routes.get("/admin")
    async def overview_html(request: Request) -> Response:
        session = await sessions.session_of(request)
        if session is None:
            return RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
        days = days_of(request)
        body = overview_page(await overview(days), days, sessions.csrf(session), run_log=run_log is not None)
        return html(body)

    def query_of(request: Request) -> RunQuery:
        params = request.query_params
        try:
            return RunQuery.model_validate(
                {key: params[key] for key in ("outcome", "rating", "text") if params.get(key)}
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            raise BadRequest(422, f"{first['loc'][0]}: {first['msg']}") from None

    def logged() -> RunLog:
        if run_log is None:
            raise BadRequest(404, "the run log is off (ASKAI_RUN_LOG=false)")
        return run_log

    async def store(call: Any, *args: Any) -> Any:
        try:
            return await asyncio.wait_for(bookkeeping(call, *args), STORE_TIMEOUT_SECONDS * 2)
        except (RunLogUnavailable, TimeoutError):
            raise BadRequest(503, "the run log is unavailable right now; try again shortly", retry_after=5) from None

    async def found_runs(request: Request) -> tuple[list[RunRecord], RunQuery, int]:
        days, query = days_of(request), query_of(request)
        since = datetime.now(UTC) - timedelta(days=days)
        return await store(logged().find, since, query), query, days

    def grouped_gaps(log: RunLog, since: datetime) -> tuple[list[GapGroup], int, SearchGaps]:
        runs = log.unanswered(since, GAP_RUNS)
        unfound = log.unfound_searches(since, UNFOUND_SEARCHES)
        searched = SearchGaps(unfound, log.searched_then_fallback(since, UNFOUND_SEARCHES))
        return group_gaps(runs), len(runs), searched

    @routes.get("/admin/gaps")
    async def gaps(request: Request) -> Response:
        session = await sessions.session_of(request)
        if session is None:
            return RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
        days = days_of(request)
        groups, read, unfound = await store(grouped_gaps, logged(), datetime.now(UTC) - timedelta(days=days))
        csrf = sessions.csrf(session)
        return html(gaps_page(groups, days, csrf, read=read, limit=GAP_RUNS, searches=unfound))

    @routes.get("/admin/pages")
    async def pages(request: Request) -> Response:
        session = await sessions.session_of(request)
        if session is None:
            return RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
        days = days_of(request)
        use = await store(logged().page_use, datetime.now(UTC) - timedelta(days=days), PAGE_RUNS)
        return html(pages_page(use, days, sessions.csrf(session), limit=PAGE_RUNS))

    @routes.get("/admin/questions")
    async def questions(request: Request) -> Response:
        session = await sessions.session_of(request)
        if session is None:
            return RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
        runs, query, days = await found_runs(request)
        return html(questions_page(runs, query, days, sessions.csrf(session)))

    @routes.get("/admin/questions.csv")
    async def questions_export(request: Request) -> Response:
        if await sessions.session_of(request) is None:
            return JSONResponse({"detail": "sign in at /admin/login first"}, status_code=401, headers=ADMIN_HEADERS)
        runs, _, _ = await found_runs(request)
        headers = ADMIN_HEADERS | {"Content-Disposition": 'attachment; filename="askai-questions.csv"'}
        return Response(questions_csv(runs), media_type="text/csv; charset=utf-8", headers=headers)

    @routes.get("/admin/runs/{run_id}")
    async def one_run(request: Request, run_id: str) -> Response:
        session = await sessions.session_of(request)
        if session is None:
            return RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
        if not is_thread_id(run_id):
            raise BadRequest(422, "not a run id")
        found = await store(logged().run, run_id)
        if found is None:
            raise BadRequest(404, f"no run {run_id} in the run log")
        return html(run_page(found, sessions.csrf(session)))

    @routes.get("/admin/api/overview")
    async def overview_json(request: Request) -> Response:
        if await sessions.session_of(request) is None:
            return JSONResponse({"detail": "sign in at /admin/login first"}, status_code=401, headers=ADMIN_HEADERS)
        found = await overview(days_of(request))
        data: dict[str, Any] = found.model_dump(mode="json")
        data |= {"total": found.total, "cache_hit_rate": found.cache_hit_rate}
        data["days"] = [day.model_dump() | {"total": day.total} for day in found.days]
        return JSONResponse(data, headers=ADMIN_HEADERS)

    return routes
