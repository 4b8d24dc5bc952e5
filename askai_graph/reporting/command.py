"""``askai report [--since 7d] [--out DIR]``: what readers asked and what the site could not answer.

Reads the run log (``ASKAI_DATABASE_URL``, else the SQLite file ``askai serve`` writes
in the user's data folder), prints the report as Markdown and writes ``report.md`` and
``report.png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from askai_graph.evaluation.chart import ChartsUnavailable
from askai_graph.settings import Settings

_SINCE = re.compile(r"^(\d+)([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class ReportUsageError(ValueError):
    """Bad input to ``askai report``; exit status 2."""


def parse_since(text: str) -> timedelta:
    """Parse ``30m``, ``24h``, ``7d`` or ``2w``."""
    match = _SINCE.match(text.strip().lower())
    if not match or int(match.group(1)) == 0:
        raise ReportUsageError(f"--since must be a positive number with m, h, d or w (like 7d), got {text!r}")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    """Add the arguments of the ``report`` subcommand to its parser ``cmd``."""
    cmd.add_argument("--since", default="7d", help="how far back: 30m, 24h, 7d (default), 2w")
    cmd.add_argument("--out", type=Path, default=Path("askai-report"), help="report folder (default ./askai-report)")
    cmd.set_defaults(run=run_report)


def run_report(args: argparse.Namespace, settings: Settings) -> int:
    """Print and write the site report; return the exit status."""
    from askai_graph.reporting.analysis import analyse
    from askai_graph.reporting.chart import write_report_chart
    from askai_graph.reporting.render import render_markdown
    from askai_graph.stores.runlog import default_database_url, open_run_log
    from askai_graph.stores.runlog.coverage import UNFOUND_SEARCHES

    window = parse_since(args.since)
    since = datetime.now(UTC) - window
    run_log = open_run_log(settings.database_url or default_database_url())
    try:
        runs = run_log.runs(since=since)
        unfound = run_log.unfound_searches(since, UNFOUND_SEARCHES)
        searched = run_log.searched_then_fallback(since, UNFOUND_SEARCHES)
    finally:
        run_log.close()
    report = analyse(runs, unfound_searches=unfound, searched_then_fallback=searched)
    args.out.mkdir(parents=True, exist_ok=True)
    chart: str | None = "report.png"
    try:
        write_report_chart(report, args.out / "report.png")
    except ChartsUnavailable as exc:
        print(f"askai: note: {exc}", file=sys.stderr)
        chart = None
    markdown = render_markdown(report, window=args.since, chart=chart)
    (args.out / "report.md").write_text(markdown, encoding="utf-8")
    print(markdown, end="")
    print(f"report: {args.out / 'report.md'}", file=sys.stderr)
    return 0
