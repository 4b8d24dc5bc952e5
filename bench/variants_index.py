"""Index size and build time with every version and language of a real site, against one.

    .venv/bin/python bench/variants_index.py [--repeat 3] [--realsites ../shared/realsites]

For Jest (Docusaurus: 30.4, 30.0, 29.7 and next) and FastAPI (MkDocs: en, es, ja) it
builds the index of the site as it is, and of a copy holding only one version (Jest:
``docs/`` and its sidebars, no ``versions.json``) or one language (FastAPI: no sibling
language folders), in the same run, and prints the medians and the ratios.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from askai_graph.indexing import build_index


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure(source: Path, out: Path, repeat: int, base_url: str | None) -> tuple[float, int, int, int]:
    times = []
    for _ in range(repeat):
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        summary = build_index(source, out, base_url=base_url)
        times.append(time.perf_counter() - started)
    return statistics.median(times), summary.posts, summary.passages, folder_bytes(out)


def realsites() -> Path:
    """Return the nearest ``shared/realsites`` above this checkout (``../shared/realsites`` of the main one)."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "shared" / "realsites").is_dir():
            return folder / "shared" / "realsites"
    return Path("../shared/realsites")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--realsites", type=Path, default=realsites())
    args = parser.parse_args()
    if not all((args.realsites / site).is_dir() for site in ("jest", "fastapi")):
        print(f"skipped: the jest and fastapi snapshots are not under {args.realsites} (--realsites)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jest = args.realsites / "jest"
        one_jest = work / "jest-one"
        shutil.copytree(jest / "docs", one_jest / "docs")
        (one_jest / "website").mkdir()
        shutil.copy(jest / "website" / "sidebars.json", one_jest / "website")
        fastapi = args.realsites / "fastapi"
        one_fastapi = work / "fastapi-one"
        # Without the sibling language folders (docs/es, docs/ja); its docs_src (the snippets) stays.
        shutil.copytree(fastapi, one_fastapi, ignore=lambda d, names: [n for n in names if d.endswith("fastapi/docs")
                                                                       and n in ("es", "ja")])
        cases = [
            ("jest", jest / "docs", one_jest / "docs", "https://jestjs.io/docs/", "versions 30.4, 30.0, 29.7, next"),
            ("fastapi", fastapi / "docs/en/docs", one_fastapi / "docs/en/docs", None, "languages en, es, ja"),
        ]
        print("site     what            median s  pages  passages  index MB")
        for name, every, one, base_url, label in cases:
            # The indexes go beside the copies, never into them: a build replaces its --out folder.
            one_s, one_pages, one_passages, one_bytes = measure(one, work / f"i-{name}-one", args.repeat, base_url)
            all_s, all_pages, all_passages, all_bytes = measure(every, work / f"i-{name}-all", args.repeat, base_url)
            print(f"{name:8} {'one':15} {one_s:8.2f}  {one_pages:5}  {one_passages:8}  {one_bytes / 1e6:8.1f}")
            row = f"{all_s:8.2f}  {all_pages:5}  {all_passages:8}  {all_bytes / 1e6:8.1f}"
            print(f"{name:8} {'all':15} {row}   ({label})")
            print(f"{name:8} {'ratio all/one':15} {all_s / one_s:8.2f}  {all_pages / one_pages:5.2f}  "
                  f"{all_passages / one_passages:8.2f}  {all_bytes / one_bytes:8.2f}")


if __name__ == "__main__":
    main()
