r"""Measure how askai reads real docs sites: pages, skips, seconds, titles, summaries, catalog.

Usage (the folders are public repositories checked out at a known commit; see docs/benchmarks.md):

    python scripts/realsite_figures.py mkdocs  FASTAPI/docs/en/docs  FASTAPI/docs/en/mkdocs.yml
    python scripts/realsite_figures.py mkdocs  PYDANTIC/docs  PYDANTIC/mkdocs.yml --base-url https://docs.pydantic.dev/latest/
    python scripts/realsite_figures.py sidebars JEST/docs JEST/website/sidebars.json --base-url https://jestjs.io/docs/

It indexes the docs tree into a fresh folder (``askai index``'s own function) and reports:

- pages indexed, files skipped with their reasons, notes (includes dropped), seconds;
- titles: the share of pages the nav names whose indexed title equals the nav's title.
  The nav is read here on its own (``mkdocs.yml`` ``nav:``; ``sidebars.json`` ids
  matched to each page's front matter ``id``, titled by ``sidebar_label`` or ``title``),
  not with the indexer's reader, so the check does not grade itself;
- for MkDocs pages the nav lists without a title: the share whose title is their first
  H1 outside code fences, attribute list removed (MkDocs' own rule), again by a plain scan;
- titles and summaries holding markup residue (``!!!``, ``{ #``, an MDX ``import`` line, ``<Tabs``, ``\\[``, ``](``);
- the catalog answer ("List all the pages in the docs."): its outcome, Validation
  verdict, the pages it lists and whether they are in nav order. ``--show`` prints it.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from askai_graph.indexing import build_index  # noqa: E402
from askai_graph.state import STATE_KEYS  # noqa: E402

# ``import `` counts as an MDX import line (``import X from '...'``), not the English verb.
RESIDUE = re.compile(r"!!!|\{ #|^import |\bimport [\w{}, *]+ from ['\"]|<Tabs|\\\[|\]\(")
CATALOG_QUESTION = "List all the pages in the docs."
_LINK = re.compile(r"\]\((https?://[^)\s]+)\)")


class _Inert(yaml.SafeLoader):
    """Reads ``!!python/name:...`` and other tags as plain values, never importing anything."""


_Inert.add_multi_constructor("", lambda loader, suffix, node: None)


def mkdocs_titles(config: Path) -> dict[str, str]:
    """Return ``{page path: nav title}`` for every page the MkDocs nav names."""
    data = yaml.load(config.read_text("utf-8"), Loader=_Inert)  # noqa: S506 - inert tags
    titles: dict[str, str] = {}

    def walk(items: Any) -> None:
        for item in items or []:
            if isinstance(item, dict):
                for label, value in item.items():
                    if isinstance(value, str) and label and "://" not in value:
                        titles.setdefault(value, str(label))
                    elif isinstance(value, list):
                        walk(value)

    walk(data.get("nav"))
    return titles


def sidebar_titles(sidebars: Path, docs: Path) -> dict[str, str]:
    """Return ``{page path: sidebar title}`` for every doc the sidebars list, by front matter id."""
    listed: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            listed.append(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if value.get("type") == "doc":
                listed.append(value["id"])
            else:
                for item in value.values():
                    walk(item)

    walk(json.loads(sidebars.read_text("utf-8")))
    titles: dict[str, str] = {}
    for path in sorted(docs.rglob("*.md*")):
        text = path.read_text("utf-8")
        meta = yaml.safe_load(text.split("---", 2)[1]) if text.startswith("---") else {}
        rel = path.relative_to(docs).as_posix()
        doc_id = (rel.rsplit("/", 1)[0] + "/" if "/" in rel else "") + str(meta.get("id") or path.stem)
        if doc_id in listed and (meta.get("sidebar_label") or meta.get("title")):
            titles[rel] = str(meta.get("sidebar_label") or meta.get("title"))
    return titles


def h1_titles(docs: Path, skip: set[str]) -> dict[str, str]:
    """Return ``{page path: its first ``# `` heading outside code fences}`` for pages not in ``skip``.

    What MkDocs titles a page the nav lists without a title; attribute lists
    (``{ #anchor }``) are not part of it. A plain scan, independent of the indexer's.
    """
    titles: dict[str, str] = {}
    for path in sorted(docs.rglob("*.md")):
        rel = path.relative_to(docs).as_posix()
        if rel in skip or path.name.startswith("_"):
            continue
        fence = ""
        text = path.read_text("utf-8")
        if text.startswith("---"):
            text = text.split("---", 2)[2]
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith(("```", "~~~")):
                fence = "" if fence and stripped.startswith(fence) else fence or stripped[:3]
                continue
            if not fence and line.startswith("# "):
                titles[rel] = re.sub(r"\s*\{[^}]*\}\s*$", "", line[2:]).strip().replace("`", "")
                break
    return titles


def catalog_answer(index: Path) -> dict[str, Any]:
    """Ask the catalog question over ``index`` with the offline models; return the run's summary."""
    import os

    os.environ["ASKAI_CORPUS"] = str(index)
    from askai_graph import Settings, build_graph
    from askai_graph.indexing.loader import load_corpus
    from askai_graph.retrieval.pages import BM25Retriever

    settings = Settings()
    retriever = BM25Retriever(corpus=load_corpus(index), cache_dir=settings.index_cache_dir)
    graph = build_graph(retriever=retriever, settings=settings)
    final = graph.invoke({"question": CATALOG_QUESTION}, output_keys=STATE_KEYS)
    return {
        "outcome": final["outcome"],
        "validation": "passed" if final["validation"].ok else [e.code for e in final["validation"].errors],
        "answer": final["answer"],
        "listed": list(dict.fromkeys(_LINK.findall(final["answer"]))),  # "and N more" links the home page again
    }


def main() -> int:
    """Print the figures for one site as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nav_kind", choices=["mkdocs", "sidebars"])
    parser.add_argument("docs", type=Path)
    parser.add_argument("nav", type=Path)
    parser.add_argument("--base-url")
    parser.add_argument("--show", action="store_true", help="print the catalog answer as the reader sees it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "index"
        started = time.perf_counter()
        summary = build_index(args.docs, out, base_url=args.base_url)
        seconds = time.perf_counter() - started
        db = sqlite3.connect(out / "pages.sqlite3")
        rows = db.execute("SELECT unit, title, summary, url FROM posts").fetchall()
        ranked = db.execute("SELECT p.url FROM catalog c JOIN posts p ON p.id = c.post_id ORDER BY c.rank")
        order = [row[0] for row in ranked]
        expected = mkdocs_titles(args.nav) if args.nav_kind == "mkdocs" else sidebar_titles(args.nav, args.docs)
        titled = {unit: title for unit, title, _, _ in rows}
        named = [unit for unit in expected if unit in titled]
        wrong = {u: {"index": titled[u], "nav": expected[u]} for u in named if titled[u] != expected[u]}
        by_h1 = h1_titles(args.docs, set(expected)) if args.nav_kind == "mkdocs" else {}
        h1_wrong = {u: {"index": titled[u], "h1": by_h1[u]} for u in by_h1 if u in titled and titled[u] != by_h1[u]}
        residue = {unit: summary_ for unit, _, summary_, _ in rows if RESIDUE.search(summary_)}
        title_residue = {unit: title for unit, title, _, _ in rows if RESIDUE.search(title) or "{" in title}
        catalog = catalog_answer(out)
        listed = catalog["listed"]
        in_order = listed == [url for url in order if url in listed]
        report = {
            "pages": summary.posts,
            "skipped": [f"{s.where}: {s.reason}" for s in summary.skips],
            "notes": len(summary.notes),
            "notes_by_reason": _reasons(summary.notes),
            "seconds": round(seconds, 2),
            "titles": {"nav_named": len(named), "equal": len(named) - len(wrong), "wrong": wrong},
            "titles_from_h1": {"pages": len(by_h1), "equal": len(by_h1) - len(h1_wrong), "wrong": h1_wrong},
            "titles_with_residue": title_residue,
            "summaries_with_residue": residue,
            "empty_summaries": sum(1 for _, _, summary_, _ in rows if not summary_),
            "catalog": {"outcome": catalog["outcome"], "validation": catalog["validation"], "listed": len(listed),
                        "nav_order": in_order},
        }
        print(json.dumps(report, indent=1, ensure_ascii=False))
        if args.show:
            print("\n" + catalog["answer"])
    return 0


def _reasons(notes: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for note in notes:
        key = re.sub(r"snippet \S+", "snippet", note.reason)
        counts[key] = counts.get(key, 0) + 1
    return counts


if __name__ == "__main__":
    raise SystemExit(main())
