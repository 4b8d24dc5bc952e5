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

The handlers are module-level functions, as FastAPI's bigger applications are written:
what they share (the settings, the run log, the sessions and the sign-in throttle) is
one ``Dashboard``, built by ``router`` for its app and handed to each request by a
router-level dependency; a page asks for the signed-in session with ``Depends``
(``PageSession`` redirects a signed-out owner to the sign-in form, ``ApiSession``
answers 401).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import ValidationError

from askai_graph.server.dashboard.admin_coverage import gaps_page, pages_page
from askai_graph.server.dashboard.admin_pages import (
    ADMIN_HEADERS,
    CSS,
    PERIODS,
    login_page,
    overview_page,
    questions_csv,
    questions_page,
    run_page,
)
from askai_graph.server.dashboard.admin_revocations import Revocations
from askai_graph.server.dashboard.admin_session import (
    AdminSessions,
    clear_session_cookie,
    same_origin,
    set_session_cookie,
)
from askai_graph.server.dashboard.admin_throttle import SignInThrottle, sign_in_throttle
from askai_graph.server.guards.limits import client_address
from askai_graph.server.guards.pools import bookkeeping
from askai_graph.server.guards.request import BadRequest, read_body
from askai_graph.settings import Settings
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog, RunLogUnavailable
from askai_graph.stores.runlog.coverage import UNFOUND_SEARCHES, GapGroup, SearchGaps, group_gaps
from askai_graph.stores.runlog.overview import Overview, RunQuery
from askai_graph.stores.runlog.store import STORE_TIMEOUT_SECONDS
from askai_graph.stores.threads import is_thread_id

FORM_LIMIT = 4096
"""Largest sign-in or sign-out form accepted, in bytes."""
GAP_RUNS = 1000
"""Unanswered runs the coverage gaps view groups at most (the newest): about 1 ms each on a loaded 2-core machine."""
PAGE_RUNS = 20_000
"""Answers the pages view counts at most (the newest): about 0.03 ms each (``bench/admin_overview.py``)."""


@dataclass(frozen=True)
class Dashboard:
    """What every dashboard handler of one app shares."""

    settings: Settings
    run_log: RunLog | None
    """The run log the pages read; ``None`` when it is off (``ASKAI_RUN_LOG=false``)."""
    sessions: AdminSessions
    throttle: SignInThrottle
    """Counts sign-in attempts (per client and for everyone)."""

    def logged(self) -> RunLog:
        """Return the run log, or refuse (404) when it is off."""
        if self.run_log is None:
            raise BadRequest(404, "the run log is off (ASKAI_RUN_LOG=false)")
        return self.run_log


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
    board = Dashboard(
        settings,
        run_log,
        AdminSessions(settings.admin_token, sign_outs),
        sign_ins or sign_in_throttle(None, ReaderHash(settings.reader_hash_key)),
    )

    def attach(request: Request) -> None:
        request.state.dashboard = board

    routes.include_router(_handlers, dependencies=[Depends(attach)])
    return routes


def _dashboard(request: Request) -> Dashboard:
    board: Dashboard = request.state.dashboard
    return board


Board = Annotated[Dashboard, Depends(_dashboard)]


async def _page_session(request: Request, board: Board) -> str:
    session = await board.sessions.session_of(request)
    if session is None:
        raise HTTPException(303, "sign in at /admin/login first", headers={**ADMIN_HEADERS, "Location": "/admin/login"})
    return session


async def _api_session(request: Request, board: Board) -> str:
    session = await board.sessions.session_of(request)
    if session is None:
        raise HTTPException(401, "sign in at /admin/login first", headers=ADMIN_HEADERS)
    return session


PageSession = Annotated[str, Depends(_page_session)]
"""The signed-in owner's session; signed out, a page redirects (303) to the sign-in form."""
ApiSession = Annotated[str, Depends(_api_session)]
"""The signed-in owner's session; signed out, a data route answers 401."""


def _days(days: str = "7") -> int:
    if not days.isdigit() or int(days) not in PERIODS:
        raise BadRequest(422, f"days must be one of {', '.join(map(str, PERIODS))}")
    return int(days)


Days = Annotated[int, Depends(_days)]


def _query(request: Request) -> RunQuery:
    params = request.query_params
    try:
        return RunQuery.model_validate({key: params[key] for key in ("outcome", "rating", "text") if params.get(key)})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BadRequest(422, f"{first['loc'][0]}: {first['msg']}") from None


async def _form(request: Request, board: Board) -> dict[str, str]:
    if not same_origin(request):
        raise BadRequest(403, "cross-origin request refused")
    body = await read_body(request, FORM_LIMIT, board.settings.body_timeout_seconds)
    try:
        fields = parse_qs(body.decode("utf-8"), max_num_fields=4)
    except (UnicodeDecodeError, ValueError):
        raise BadRequest(400, "the form is not valid") from None
    return {name: values[0] for name, values in fields.items()}


Form = Annotated[dict[str, str], Depends(_form)]


def _html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers=ADMIN_HEADERS)


async def _store(call: Any, *args: Any) -> Any:
    try:
        return await asyncio.wait_for(bookkeeping(call, *args), STORE_TIMEOUT_SECONDS * 2)
    except (RunLogUnavailable, TimeoutError):
        raise BadRequest(503, "the run log is unavailable right now; try again shortly", retry_after=5) from None


async def _overview(board: Dashboard, days: int) -> Overview:
    since = datetime.now(UTC) - timedelta(days=days)
    if board.run_log is None:
        return Overview(since=since)
    found: Overview = await _store(board.run_log.overview, since)
    return found


def _since(days: int) -> datetime:
    return datetime.now(UTC) - timedelta(days=days)


def _grouped_gaps(log: RunLog, since: datetime) -> tuple[list[GapGroup], int, SearchGaps]:
    runs = log.unanswered(since, GAP_RUNS)
    unfound = log.unfound_searches(since, UNFOUND_SEARCHES)
    searched = SearchGaps(unfound, log.searched_then_fallback(since, UNFOUND_SEARCHES))
    return group_gaps(runs), len(runs), searched


_handlers = APIRouter()


@_handlers.get("/admin/admin.css")
async def css() -> Response:
    """The pages' style sheet."""
    return Response(CSS, media_type="text/css", headers=ADMIN_HEADERS)


@_handlers.get("/admin/login")
async def login_form() -> HTMLResponse:
    """The sign-in form."""
    return _html(login_page())


@_handlers.post("/admin/login")
async def login(request: Request, board: Board, fields: Form) -> Response:
    """Sign in with the admin token, within the sign-in throttle."""
    wait = await board.throttle.admit(client_address(request))
    if wait is not None:
        throttled = _html(login_page(f"Too many sign-in attempts; try again in {wait} s."), status=429)
        throttled.headers["Retry-After"] = str(wait)
        return throttled
    if not board.sessions.token_matches(fields.get("token", "")):
        return _html(login_page("That is not the admin token."), status=401)
    response = RedirectResponse("/admin", status_code=303, headers=ADMIN_HEADERS)
    set_session_cookie(response, request, board.sessions.issue())
    return response


@_handlers.post("/admin/logout")
async def logout(request: Request, board: Board, fields: Form) -> Response:
    """End the session here and on every server sharing its store, and drop the cookie."""
    session = await board.sessions.session_of(request)
    if session is None or not board.sessions.csrf_matches(session, fields.get("csrf", "")):
        raise BadRequest(403, "sign-out refused: missing or wrong CSRF token")
    await board.sessions.revoke(session)
    response = RedirectResponse("/admin/login", status_code=303, headers=ADMIN_HEADERS)
    clear_session_cookie(response, request)
    return response


@_handlers.get("/admin")
async def overview_html(board: Board, session: PageSession, days: Days) -> Response:
    """The overview of a period."""
    found = await _overview(board, days)
    return _html(overview_page(found, days, board.sessions.csrf(session), run_log=board.run_log is not None))


@_handlers.get("/admin/gaps")
async def gaps(board: Board, session: PageSession, days: Days) -> Response:
    """The period's unanswered questions grouped by topic."""
    groups, read, unfound = await _store(_grouped_gaps, board.logged(), _since(days))
    csrf = board.sessions.csrf(session)
    return _html(gaps_page(groups, days, csrf, read=read, limit=GAP_RUNS, searches=unfound))


@_handlers.get("/admin/pages")
async def pages(board: Board, session: PageSession, days: Days) -> Response:
    """The most cited pages, and pages retrieved often but never cited."""
    use = await _store(board.logged().page_use, _since(days), PAGE_RUNS)
    return _html(pages_page(use, days, board.sessions.csrf(session), limit=PAGE_RUNS))


@_handlers.get("/admin/questions")
async def questions(
    board: Board, session: PageSession, days: Days, query: Annotated[RunQuery, Depends(_query)]
) -> Response:
    """The questions of a period, filtered, newest first."""
    runs = await _store(board.logged().find, _since(days), query)
    return _html(questions_page(runs, query, days, board.sessions.csrf(session)))


@_handlers.get("/admin/questions.csv")
async def questions_export(
    board: Board, _: ApiSession, days: Days, query: Annotated[RunQuery, Depends(_query)]
) -> Response:
    """The same list as CSV."""
    runs = await _store(board.logged().find, _since(days), query)
    headers = ADMIN_HEADERS | {"Content-Disposition": 'attachment; filename="askai-questions.csv"'}
    return Response(questions_csv(runs), media_type="text/csv; charset=utf-8", headers=headers)


@_handlers.get("/admin/runs/{run_id}")
async def one_run(board: Board, session: PageSession, run_id: str) -> Response:
    """One run, as the run log keeps it."""
    if not is_thread_id(run_id):
        raise BadRequest(422, "not a run id")
    found = await _store(board.logged().run, run_id)
    if found is None:
        raise BadRequest(404, f"no run {run_id} in the run log")
    return _html(run_page(found, board.sessions.csrf(session)))


@_handlers.get("/admin/api/overview")
async def overview_json(board: Board, _: ApiSession, days: Days) -> Response:
    """The overview as JSON."""
    found = await _overview(board, days)
    data: dict[str, Any] = found.model_dump(mode="json")
    data |= {"total": found.total, "cache_hit_rate": found.cache_hit_rate}
    data["days"] = [day.model_dump() | {"total": day.total} for day in found.days]
    return JSONResponse(data, headers=ADMIN_HEADERS)
