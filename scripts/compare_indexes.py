r"""Compare two indexes of the same site page by page, and the eval answers each gave.

Usage:

    python scripts/compare_indexes.py INDEX_A INDEX_B [--reports A/report.json B/report.json] [--page URL]

For each page (by URL) the two indexes hold: its passage count and mean passage length
in each, and the passage headings only one of them has; pages only one index holds are
listed. With ``--reports`` (two ``askai eval`` reports of the same questions, one over
each index) it lists the questions answered over one index and not the other, with each
run's outcome, cited pages and the opening of its answer. ``--page`` prints one page's
passages side by side (heading and length), to see where two readers cut it differently.

It is how the plugin-built index (issue #38) was compared with ``askai index`` of the
same Markdown tree (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from askai_graph.evaluation.answers import is_answered  # noqa: E402
from askai_graph.evaluation.runner import QuestionResult  # noqa: E402


def passages_by_url(index: Path) -> dict[str, list[tuple[str, str]]]:
    """Return ``{page URL: [(heading, text), ...]}`` in passage order."""
    db = sqlite3.connect(f"file:{index / 'pages.sqlite3'}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT posts.url, passages.heading, passages.text FROM passages JOIN posts ON posts.id = passages.post_id "
        "ORDER BY passages.id"
    ).fetchall()
    out: dict[str, list[tuple[str, str]]] = {}
    for url, heading, text in rows:
        out.setdefault(url, []).append((heading, text))
    return out


def page_rows(a: dict[str, list[tuple[str, str]]], b: dict[str, list[tuple[str, str]]]) -> None:
    """Print one row per page both hold, then the pages only one holds."""
    print(f"{'page':60s} {'n A':>4s} {'n B':>4s} {'len A':>6s} {'len B':>6s}  headings only in A | only in B")
    for url in sorted(set(a) & set(b)):
        pa, pb = a[url], b[url]
        mean_a = statistics.mean(len(t) for _, t in pa)
        mean_b = statistics.mean(len(t) for _, t in pb)
        ha, hb = {h for h, _ in pa}, {h for h, _ in pb}
        only_a, only_b = sorted(ha - hb)[:3], sorted(hb - ha)[:3]
        mark = "" if len(pa) == len(pb) and not only_a and not only_b else " *"
        print(f"{url[-60:]:60s} {len(pa):4d} {len(pb):4d} {mean_a:6.0f} {mean_b:6.0f}  {only_a} | {only_b}{mark}")
    for label, mine, other in (("A", a, b), ("B", b, a)):
        for url in sorted(set(mine) - set(other)):
            print(f"only in {label}: {url}")
    total_a, total_b = sum(map(len, a.values())), sum(map(len, b.values()))
    print(f"pages A {len(a)}, B {len(b)}; passages A {total_a}, B {total_b}")


def load_results(report: Path) -> dict[str, QuestionResult]:
    """Return an eval report's results by question."""
    data: dict[str, Any] = json.loads(report.read_text("utf-8"))
    return {r["question"]: QuestionResult.model_validate(r) for r in data["results"]}


def answer_rows(a: dict[str, QuestionResult], b: dict[str, QuestionResult]) -> None:
    """Print the questions answered over one index and not the other."""
    for question in a:
        ra, rb = a[question], b.get(question)
        if rb is None or is_answered(ra) == is_answered(rb):
            continue
        print(f"\n## {question}  (answered: A {is_answered(ra)}, B {is_answered(rb)}; must {list(ra.must_mention)})")
        for label, r in (("A", ra), ("B", rb)):
            opening = " ".join(r.answer.split())[:300]
            print(f"  {label}: {r.outcome}; cited {list(r.cited)}; ranking {list(r.ranking)[:3]}\n     {opening}")


def page_detail(url: str, a: dict[str, list[tuple[str, str]]], b: dict[str, list[tuple[str, str]]]) -> None:
    """Print the passages of the page at ``url`` in each index."""
    for label, index in (("A", a), ("B", b)):
        print(f"--- {label}: {url}")
        for heading, text in index.get(url, []):
            print(f"  {len(text):6d}  {heading}")


def main() -> int:
    """Compare the two indexes (and reports) named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--reports", type=Path, nargs=2)
    parser.add_argument("--page", action="append", default=[])
    args = parser.parse_args()
    a, b = passages_by_url(args.a), passages_by_url(args.b)
    if args.page:
        for url in args.page:
            page_detail(url, a, b)
        return 0
    page_rows(a, b)
    if args.reports:
        answer_rows(load_results(args.reports[0]), load_results(args.reports[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
