"""Per asked version: answered, and the share of answers citing only that version's pages.

    askai eval evals/jest-versions.jsonl --out DIR      (ASKAI_CORPUS: Jest indexed with its versions)
    .venv/bin/python bench/eval_versions.py DIR/report.json evals/jest-versions.jsonl

A page's version is read from its URL as Docusaurus serves it (``/docs/X/…``; the latest
release, ``--latest``, at ``/docs/…``).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

_VERSIONED = re.compile(r"^https?://[^/]+/docs/(\d+(?:\.\d+)*|next)/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--latest", default="30.4", help="the version served at /docs/ (default 30.4)")
    args = parser.parse_args()
    results = json.loads(args.report.read_text())["results"]
    questions = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    if len(results) != len(questions):
        raise SystemExit("the report is not of these questions")

    def version_of(url: str) -> str:
        found = _VERSIONED.match(url)
        return found.group(1) if found else args.latest

    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for result, question in zip(results, questions, strict=True):
        row = rows[question["version"]]
        row["asked"] += 1
        row["answered"] += result["outcome"] in ("accepted", "accepted_early")
        cited = result["cited"]
        row["citing"] += bool(cited)
        row["citing only its version"] += bool(cited) and all(version_of(u) == question["version"] for u in cited)
        row["card on the expected page"] += bool(set(result["sources"]) & set(question["expected_urls"]))
        row["retrieved another version"] += any(version_of(u) != question["version"] for u in result["retrieved"])
    for version, row in sorted(rows.items()):
        share = row["citing only its version"] / row["citing"] if row["citing"] else 1.0
        print(f"{version}: " + ", ".join(f"{k} {v}" for k, v in row.items()) + f"; only its version {share:.0%}")


if __name__ == "__main__":
    main()
