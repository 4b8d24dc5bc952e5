"""The dashboard's coverage views: what readers ask that the site does not answer, and how pages are used.

Same rules as ``admin_pages``: rendered on the server from escaped text only, no script.
A coverage group is a ``<details>`` element, so it opens without one. URLs are shown as
text, never as links: they came from the run log, not from a check of this request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from askai_graph.server.dashboard.admin_pages import escaped, page, period_form
from askai_graph.stores.runlog.coverage import GapGroup, PageUse, SearchGaps, split_off_topic

EXAMPLES = 5
"""Example questions shown per coverage group."""
TOP_PAGES = 50
"""Rows of each table of the pages view."""


def _counts(counter: Counter[str], n: int = 5) -> str:
    return escaped(", ".join(f"{name} ×{count}" for name, count in counter.most_common(n)) or "none")


def _group(group: GapGroup) -> str:
    seen: set[str] = set()
    items = []
    for question, run_id in zip(group.questions, group.run_ids, strict=True):
        if question in seen:
            continue
        seen.add(question)
        items.append(f'<li><a href="/admin/runs/{escaped(run_id)}">{escaped(question)}</a></li>')
        if len(items) == EXAMPLES:
            break
    retrieved = "".join(f"<li>{escaped(url)} ({n})</li>" for url, n in group.retrieved.most_common(5))
    facts = [
        ("Suggested page to write", escaped(group.suggested_page)),
        ("Outcomes", _counts(group.outcomes)),
        ("Failed gates", _counts(group.failed_gates)),
        ("Failure codes", _counts(group.failure_codes)),
        ("The Critic's gaps", _counts(group.gaps)),
    ]
    rows = "".join(f"<tr><th>{escaped(name)}</th><td>{value}</td></tr>" for name, value in facts)
    return (
        f"<details data-gap-group><summary>{escaped(group.label)} "
        f"<span>(asked {len(group.questions):,}×)</span></summary>"
        f"<table>{rows}</table><h3>Example questions</h3><ul>{''.join(items)}</ul>"
        f"<h3>Pages retrieved for them</h3>{f'<ul>{retrieved}</ul>' if retrieved else '<p>none</p>'}</details>"
    )


def gaps_page(
    groups: list[GapGroup],
    days: int,
    csrf: str,
    *,
    read: int,
    limit: int,
    searches: SearchGaps | None = None,
) -> str:
    """Return the coverage gaps of ``days`` days: ``groups`` of the ``read`` newest unanswered runs (``limit`` cap).

    The off-topic groups (no question matched a page) are listed apart, after the gaps.
    ``searches`` are the period's searches that found nothing and those followed by a
    question that ended in fallback, listed last.
    """
    gaps, off_topic = split_off_topic(groups)
    note = f"<p>{read:,} degraded or fallback answers, in {len(groups):,} groups of similar questions, largest first."
    if off_topic:
        note += f" {len(off_topic):,} of the groups matched no page of the site: they are listed apart, as off-topic."
    note += "</p>"
    if read == limit:
        note += f"<p>Only the newest {limit:,} are grouped.</p>"
    none = "every unanswered question was off-topic" if off_topic else "every question was accepted"
    body = "".join(_group(group) for group in gaps) or f"<p>None: {none}.</p>"
    body += _off_topic(off_topic)
    searches = searches or SearchGaps()
    body += _unfound(searches.unfound) + _searched_then_fallback(searches.then_fallback)
    return page("Coverage gaps", period_form("/admin/gaps", days) + note + body, csrf=csrf)


def _off_topic(groups: Sequence[GapGroup]) -> str:
    if not groups:
        return ""
    cells = "".join(
        f'<tr><td><a href="/admin/runs/{escaped(group.run_ids[0])}">{escaped(group.label)}</a></td>'
        f"<td>{len(group.questions):,}</td></tr>"
        for group in groups
    )
    return (
        "<h2>Off-topic questions</h2><p>No page of the site matched these questions (nothing passed the relevance "
        "floor): the site is not about them, so they are no gap a page would close.</p>"
        f"<table data-off-topic><tr><th>question</th><th>asked</th></tr>{cells}</table>"
    )


def _unfound(unfound: Sequence[tuple[str, int]]) -> str:
    if not unfound:
        return "<h2>Searches with no result</h2><p>None: every search found a page.</p>"
    cells = "".join(f"<tr><td>{escaped(query)}</td><td>{n:,}</td></tr>" for query, n in unfound)
    return (
        "<h2>Searches with no result</h2><table data-unfound-searches>"
        f"<tr><th>search</th><th>times</th></tr>{cells}</table>"
    )


def _searched_then_fallback(asked: Sequence[tuple[str, int]]) -> str:
    caption = "<h2>Searched, then asked: ended in fallback</h2>"
    if not asked:
        return caption + "<p>None: no question asked from a search ended in fallback.</p>"
    cells = "".join(f"<tr><td>{escaped(question)}</td><td>{found:,}</td></tr>" for question, found in asked)
    heading = "<tr><th>question</th><th>pages its search found</th></tr>"
    return f"{caption}<table data-searched-then-fallback>{heading}{cells}</table>"


def _table(caption: str, heading: str, rows: list[tuple[str, int]]) -> str:
    if not rows:
        return f"<h2>{escaped(caption)}</h2><p>None.</p>"
    cells = "".join(f"<tr><td>{escaped(url)}</td><td>{n:,}</td></tr>" for url, n in rows[:TOP_PAGES])
    return f"<h2>{escaped(caption)}</h2><table><tr><th>page</th><th>{escaped(heading)}</th></tr>{cells}</table>"


def pages_page(use: PageUse, days: int, csrf: str, *, limit: int) -> str:
    """Return the most cited pages and the pages retrieved often but never cited, over ``days`` days."""
    note = f"<p>Over {use.answers:,} answers{' (the newest only)' if use.answers == limit else ''}.</p>"
    body = note + _table("Most cited pages", "answers citing it", use.most_cited()) + _table(
        "Retrieved often, never cited", "times retrieved", use.never_cited()
    )
    return page("Pages", period_form("/admin/pages", days) + body, csrf=csrf)
