"""The dashboard's HTML, rendered on the server: no framework, no script, every value escaped.

Pages are built from escaped text only (``escaped``: ``html.escape`` with quotes), so
reader text can never become markup, and they run no script at all: the CSP
(``ADMIN_HEADERS``) allows none. The chart of questions per day is an inline SVG drawn
here (stacked bars by outcome), with a table of the same numbers beside it for screen
readers and for copying.
"""

from __future__ import annotations

import csv
import html
import io
import unicodedata
from urllib.parse import urlencode

from askai_graph.stores.runlog.overview import OUTCOMES, Overview, RunQuery
from askai_graph.stores.runlog.record import RunRecord

ADMIN_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
    # page's own form POSTs, which the CSRF check must refuse.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
"""Every dashboard response's headers: no script, no framing, nothing cached, no Referer to another site."""

PERIODS = (1, 7, 30, 90)
"""The periods the overview offers, in days."""

COLOURS = {"accepted": "#1a7f37", "accepted_early": "#4d9e5f", "degraded": "#b35900", "fallback": "#8c1c13"}

CSS = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
header { display: flex; gap: 1.5rem; align-items: center; padding: .75rem 1.5rem; background: #1b1b1b; }
header a, header button { color: #fff; }
header button { background: transparent; border: 1px solid #fff; border-radius: .25rem; cursor: pointer; }
header form { margin-left: auto; }
main { padding: 1.5rem; max-width: 72rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 1rem; }
.card { background: #fff; border: 1px solid #d0d0d0; border-radius: .5rem; padding: .75rem 1rem; }
.card b { display: block; font-size: 1.6rem; }
table { border-collapse: collapse; margin-top: 1rem; background: #fff; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.error { color: #8c1c13; font-weight: bold; }
label { display: block; margin: 1rem 0 .25rem; }
input, button, select { font: inherit; padding: .3rem .6rem; }
"""


def escaped(value: object) -> str:
    """Escape ``value`` for HTML text and attribute values alike."""
    return html.escape(str(value), quote=True)


def page(title: str, body: str, *, csrf: str | None = None) -> str:
    """Return a whole dashboard page; with ``csrf`` (signed in), the navigation and a sign-out form."""
    nav = ""
    if csrf is not None:
        nav = (
            '<header><a href="/admin">Overview</a><a href="/admin/gaps">Coverage gaps</a>'
            '<a href="/admin/pages">Pages</a><a href="/admin/questions">Questions</a>'
            '<form method="post" action="/admin/logout">'
            f'<input type="hidden" name="csrf" value="{escaped(csrf)}"><button type="submit">Sign out</button>'
            "</form></header>"
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{escaped(title)} · askai admin</title><link rel="stylesheet" href="/admin/admin.css"></head>'
        f"<body>{nav}<main><h1>{escaped(title)}</h1>{body}</main></body></html>"
    )


def period_form(action: str, days: int) -> str:
    """Return the form that shows the page at ``action`` over another of the ``PERIODS``."""
    options = "".join(
        f'<option value="{n}"{" selected" if n == days else ""}>last {n} day{"s" if n > 1 else ""}</option>'
        for n in PERIODS
    )
    return (
        f'<form method="get" action="{escaped(action)}"><label for="days">Period</label>'
        f'<select id="days" name="days">{options}</select> <button type="submit">Show</button></form>'
    )


def login_page(error: str | None = None) -> str:
    """Return the sign-in page (with ``error`` shown when the last try failed)."""
    shown = f'<p class="error" role="alert">{escaped(error)}</p>' if error else ""
    form = (
        f'{shown}<form method="post" action="/admin/login">'
        '<label for="token">Admin token</label>'
        '<input id="token" name="token" type="password" autocomplete="current-password" required>'
        ' <button type="submit">Sign in</button></form>'
    )
    return page("Sign in", form)


def overview_page(overview: Overview, days: int, csrf: str, *, run_log: bool = True) -> str:
    """Return the overview page of ``days`` days."""
    period = period_form("/admin", days)
    if not run_log:
        return page("Overview", period + "<p>The run log is off (ASKAI_RUN_LOG=false): nothing to show.</p>", csrf=csrf)
    total = overview.total

    def share(count: int) -> str:
        return f"{count / total:.0%}" if total else "–"

    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:,.0f} ms"

    cards = [
        ("Questions", f"{total:,}"),
        ("Readers", f"{overview.readers:,}"),
        ("Answered", share(overview.outcomes.get("accepted", 0) + overview.outcomes.get("accepted_early", 0))),
        ("Thumbs", f"{overview.thumbs_up:,} up · {overview.thumbs_down:,} down"),
        ("Cache hits", share(overview.cached)),
        ("Time to answer p50", ms(overview.p50_ms)),
        ("Time to answer p95", ms(overview.p95_ms)),
    ]
    card_html = "".join(f'<div class="card">{escaped(name)}<b>{escaped(value)}</b></div>' for name, value in cards)
    outcome_rows = "".join(
        f"<tr><td>{escaped(name)}</td><td>{overview.outcomes.get(name, 0):,}</td>"
        f"<td>{share(overview.outcomes.get(name, 0))}</td></tr>"
        for name in OUTCOMES
    )
    outcomes = (
        f"<h2>Outcomes</h2><table><tr><th>outcome</th><th>questions</th><th>share</th></tr>{outcome_rows}</table>"
    )
    day_rows = "".join(
        f"<tr><td>{escaped(day.day)}</td><td>{day.total:,}</td>"
        + "".join(f"<td>{day.outcomes.get(name, 0):,}</td>" for name in OUTCOMES)
        + "</tr>"
        for day in overview.days
    )
    header = "".join(f"<th>{escaped(name)}</th>" for name in OUTCOMES)
    per_day = (
        f"<h2>Questions per day</h2>{chart(overview)}"
        f"<table><tr><th>day (UTC)</th><th>questions</th>{header}</tr>{day_rows}</table>"
    )
    return page("Overview", period + f'<div class="cards">{card_html}</div>' + per_day + outcomes, csrf=csrf)


def chart(overview: Overview, width: int = 720, height: int = 240) -> str:
    """Return an SVG of questions per day, bars stacked by outcome (an image with a text alternative).

    A y axis counts questions (0, half the busiest day, the busiest day), an x axis names
    the first, middle and last day (UTC), and a legend above says which colour is which
    outcome. Drawn with presentation attributes only: the CSP allows no inline style.
    """
    days = overview.days
    most = max((day.total for day in days), default=0)
    label = f"Questions per day: {sum(day.total for day in days):,} over {len(days)} days, at most {most:,} a day"
    if not days or not most:
        return f'<p data-chart="empty">{escaped(label)}</p>'
    left, right, top, bottom = 44.0, 8.0, 30.0, 24.0  # room for the axes' labels and the legend
    plot_width, plot_height = width - left - right, height - top - bottom
    slot = plot_width / len(days)
    bar = max(1.0, slot * 0.8)
    base = top + plot_height
    rects = []
    for index, day in enumerate(days):
        y = base
        for name in OUTCOMES:
            count = day.outcomes.get(name, 0)
            if not count:
                continue
            tall = count / most * plot_height
            y -= tall
            rects.append(
                f'<rect x="{left + index * slot + (slot - bar) / 2:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                f'height="{tall:.1f}" fill="{COLOURS[name]}"><title>{escaped(day.day)}: {count:,} '
                f"{escaped(name)}</title></rect>"
            )
    ticks = sorted({0, most // 2, most})
    y_axis = f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#595959"/>' + "".join(
        f'<line x1="{left - 4}" y1="{base - n / most * plot_height:.1f}" x2="{left}" '
        f'y2="{base - n / most * plot_height:.1f}" stroke="#595959"/>'
        f'<text x="{left - 6}" y="{base - n / most * plot_height + 4:.1f}" text-anchor="end" font-size="11" '
        f'fill="#1b1b1b">{n:,}</text>'
        for n in ticks
    )
    # The first day's label starts at the axis, the last's ends at the edge: neither is cut off.
    shown = {0: (left, "start"), (len(days) - 1) // 2: (left + ((len(days) - 1) // 2 + 0.5) * slot, "middle")}
    shown[len(days) - 1] = (width - right, "end") if len(days) > 1 else (left, "start")
    x_axis = f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#595959"/>' + "".join(
        f'<text x="{x:.1f}" y="{height - 6}" text-anchor="{anchor}" font-size="11" '
        f'fill="#1b1b1b">{escaped(days[i].day)}</text>'
        for i, (x, anchor) in sorted(shown.items())
    )
    legend = "".join(
        f'<circle cx="{left + 6 + i * 130}" cy="12" r="5" fill="{COLOURS[name]}"/>'
        f'<text x="{left + 15 + i * 130}" y="16" font-size="12" fill="#1b1b1b">{escaped(name)}</text>'
        for i, name in enumerate(OUTCOMES)
    )
    return (
        f'<svg role="img" aria-label="{escaped(label)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" data-chart="questions-per-day">'
        f'<g data-legend>{legend}</g><g data-axis="y">{y_axis}</g><g data-axis="x">{x_axis}</g>'
        f'<g data-bars>{"".join(rects)}</g></svg>'
    )


def questions_page(runs: list[RunRecord], query: RunQuery, days: int, csrf: str) -> str:
    """Return the filterable list of questions; each opens its run (``run_page``)."""

    def option(value: str, current: str | None, label: str) -> str:
        selected = " selected" if value == (current or "") else ""
        return f'<option value="{escaped(value)}"{selected}>{escaped(label)}</option>'

    outcomes = option("", query.outcome, "any") + "".join(option(o, query.outcome, o) for o in OUTCOMES)
    ratings = "".join(option(v, query.rating, label) for v, label in
                      (("", "any"), ("up", "up"), ("down", "down"), ("none", "not rated")))  # fmt: skip
    periods = "".join(option(str(n), str(days), f"last {n} days") for n in PERIODS)
    filters = (
        '<form method="get" action="/admin/questions">'
        f'<label for="days">Period</label><select id="days" name="days">{periods}</select>'
        f'<label for="outcome">Outcome</label><select id="outcome" name="outcome">{outcomes}</select>'
        f'<label for="rating">Thumbs</label><select id="rating" name="rating">{ratings}</select>'
        f'<label for="text">Text</label><input id="text" name="text" value="{escaped(query.text)}" maxlength="200">'
        ' <button type="submit">Filter</button></form>'
    )
    params = urlencode({"days": days, **query.model_dump(exclude={"limit"}, exclude_none=True, exclude_defaults=True)})
    export = f'<p><a href="/admin/questions.csv?{escaped(params)}">Export these as CSV</a></p>'
    rows = "".join(
        f"<tr><td>{escaped(run.created_at.strftime('%Y-%m-%d %H:%M'))}</td>"
        f'<td><a href="/admin/runs/{escaped(run.run_id)}">{escaped(run.question)}</a></td>'
        f"<td>{escaped(run.outcome)}</td><td>{escaped(run.rating or '')}</td><td>{escaped(run.comment or '')}</td></tr>"
        for run in runs
    )
    table = (
        "<table><tr><th>time (UTC)</th><th>question</th><th>outcome</th><th>thumbs</th><th>comment</th></tr>"
        f"{rows}</table>"
    )
    return page("Questions", filters + export + f"<p>{len(runs)} shown, newest first.</p>" + table, csrf=csrf)


def run_page(run: RunRecord, csrf: str) -> str:
    """Return one run: what each stage decided, the URLs as text, the time per stage."""

    def listed(items: list[str]) -> str:
        return "<ul>" + "".join(f"<li>{escaped(item)}</li>" for item in items) + "</ul>" if items else "<p>none</p>"

    facts = [
        ("Question", run.question),
        ("Standalone question", run.standalone_question or run.question),
        ("Outcome", f"{run.outcome} after {run.attempts} draft(s){' (cached)' if run.cached else ''}"),
        ("Gates", ", ".join(f"{gate} {status}" for gate, status in run.gates.items()) or "none"),
        ("Failure codes", ", ".join(run.failure_codes) or "none"),
        ("Thumbs", f"{run.rating or 'not rated'}{': ' + run.comment if run.comment else ''}"),
        ("Time to answer", f"{run.latency_ms:,.0f} ms"),
    ]
    rows = "".join(f"<tr><th>{escaped(name)}</th><td>{escaped(value)}</td></tr>" for name, value in facts)
    stages = "".join(f"<tr><td>{escaped(stage)}</td><td>{ms:,.1f} ms</td></tr>" for stage, ms in run.stage_ms.items())
    body = (
        f"<table>{rows}</table><h2>Critic's gaps</h2>{listed(run.gaps)}"
        f"<h2>Cited URLs</h2>{listed(run.cited_urls)}<h2>Shown as source cards</h2>{listed(run.source_urls)}"
        f"<h2>Retrieved URLs</h2>{listed(run.retrieved_urls)}"
        f"<h2>Time per stage</h2><table><tr><th>stage</th><th>time</th></tr>{stages}</table>"
    )
    return page("Run", body, csrf=csrf)


CSV_COLUMNS = ("created_at", "run_id", "question", "standalone_question", "outcome", "attempts", "cached", "rating",
               "comment", "latency_ms", "cited_urls")  # fmt: skip


def questions_csv(runs: list[RunRecord]) -> str:
    """Return ``runs`` as CSV; a cell a spreadsheet would read as a formula is prefixed with ``'``."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for run in runs:
        data = run.model_dump(mode="json")
        data["cited_urls"] = " ".join(run.cited_urls)
        writer.writerow([_cell(data[column]) for column in CSV_COLUMNS])
    return out.getvalue()


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    # Compatibility forms too: a spreadsheet may read a fullwidth "＝" or "＋" as the formula sign.
    lead = unicodedata.normalize("NFKC", text[:1])[:1]
    return "'" + text if lead in ("=", "+", "-", "@", "\t", "\r") else text
