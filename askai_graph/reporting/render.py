"""Render the site report as Markdown (printed on the terminal and written to ``report.md``)."""

from __future__ import annotations

from collections import Counter

from askai_graph.reporting.analysis import SiteReport
from askai_graph.stores.runlog.coverage import split_off_topic
from askai_graph.text.plain import escape_markdown, strip_invisible


def _top(counter: Counter[str], n: int = 5) -> str:
    return ", ".join(f"{name} ×{count}" for name, count in counter.most_common(n)) or "-"


def _cell(text: str, limit: int = 120) -> str:
    """Return reader-written ``text`` as one inert table cell, for ``report.md`` and the terminal alike.

    Questions and comments are whatever a reader typed: control characters (terminal
    escape sequences start with ESC) and bidi overrides go, and every character
    Markdown reads as syntax (links, images, raw HTML, emphasis, ``|``) is escaped.
    Truncated before escaping, so a cut never leaves a dangling backslash.
    """
    return escape_markdown(" ".join(strip_invisible(text).split())[:limit])


def render_markdown(report: SiteReport, *, window: str, chart: str | None = None) -> str:
    """Return the report as Markdown."""
    lines = ["# askai report", "", f"{report.runs} answered questions in the last {window}."]
    if chart:
        lines += ["", f"![Outcomes per day]({chart})"]
    lines += ["", "## Outcomes over time", ""]
    if report.by_day:
        lines += [
            "| day | " + " | ".join(report.outcome_totals) + " |",
            "|---" * (len(report.outcome_totals) + 1) + "|",
        ]
        lines += [
            f"| {day} | " + " | ".join(str(n) for n in counts.values()) + " |" for day, counts in report.by_day.items()
        ]
        lines.append("| total | " + " | ".join(str(n) for n in report.outcome_totals.values()) + " |")
    else:
        lines.append("No answers logged.")
    lines += ["", "## Coverage gaps: questions the site could not answer", ""]
    gaps, off_topic = split_off_topic(report.gap_groups)
    if gaps:
        lines += [
            "| questions | asked | outcomes | failed gates | failure codes | the Critic's gaps |",
            "|---|---|---|---|---|---|",
        ]
        for group in gaps:
            others = sorted(set(group.questions) - {group.label})
            asked = _cell(group.label) + (
                f" (+{len(others)} similar: {_cell('; '.join(others[:3]), 160)})" if others else ""
            )
            lines.append(
                f"| {asked} | {len(group.questions)} | {_top(group.outcomes)} | {_top(group.failed_gates)} "
                f"| {_top(group.failure_codes)} | {_cell(_top(group.gaps))} |"
            )
    else:
        lines.append(f"None: every {'unanswered question was off-topic' if off_topic else 'question was accepted'}.")
    if off_topic:
        lines += ["", "### Off-topic questions: no page of the site matched them", ""]
        lines += ["| question | asked |", "|---|---|"]
        lines += [f"| {_cell(group.label)} | {len(group.questions)} |" for group in off_topic]
    lines += ["", "### Searches with no result", ""]
    if report.unfound_searches:
        lines += ["| search | times |", "|---|---|"] + [
            f"| {_cell(query)} | {n} |" for query, n in report.unfound_searches
        ]
    else:
        lines.append("None: every search found a page.")
    lines += ["", "### Searched, then asked: ended in fallback", ""]
    if report.searched_then_fallback:
        lines += ["| question | pages its search found |", "|---|---|"] + [
            f"| {_cell(question)} | {found} |" for question, found in report.searched_then_fallback
        ]
    else:
        lines.append("None: no question asked from a search ended in fallback.")
    lines += ["", "## Pages retrieved often but never cited", ""]
    if report.never_cited:
        lines += ["| page | retrieved |", "|---|---|"] + [
            f"| {_cell(url, 300)} | {n} |" for url, n in report.never_cited
        ]
    else:
        lines.append("None.")
    lines += ["", f"## Thumbs-down answers ({len(report.thumbs_down)} down, {report.thumbs_up} up)", ""]
    if report.thumbs_down:
        lines += ["| when (UTC) | question | outcome | comment |", "|---|---|---|---|"]
        lines += [
            f"| {r.created_at:%Y-%m-%d %H:%M} | {_cell(r.question)} | {r.outcome} | {_cell(r.comment or '-')} |"
            for r in report.thumbs_down
        ]
    else:
        lines.append("None.")
    return "\n".join(lines) + "\n"
