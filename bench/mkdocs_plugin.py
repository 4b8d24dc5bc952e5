"""What the askai MkDocs plugin adds to ``mkdocs build`` of a real docs site: the ratio to the same build without it.

Run: ``.venv/bin/python bench/mkdocs_plugin.py [--site ../shared/realsites/pydantic] [--rounds 3]``

The site's ``docs/`` is copied into a temporary folder with a trimmed copy of its
``mkdocs.yml``: the theme (Material, its palette and features), the Markdown extensions
and the nav as they are; the plugins, hooks and Markdown extension that live in the
project's own repository or fetch from the network (social cards, mike, llmstxt,
mkdocstrings, redirects, ``pydantic_docs.mdext``) left out, the same for both builds.
Then, interleaved so load on the machine hits both alike, ``rounds`` times each:

- **without**: ``plugins: [search]``;
- **with askai**: ``plugins: [search, askai]``, each build a cold one (its index cache
  removed first), so every page is parsed: the first build of a site, the worst case;
- and once, **a rebuild** with the cache kept and nothing changed (``mkdocs serve``'s case).

It prints the median wall time and CPU time (user + system: what the build itself spent,
less sensitive to other processes on a shared machine) of each, and the ratios with /
without (target: at most 1.5). The last build's index is left in ``OUT/site/askai/index`` for ``askai eval``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
LEFT_OUT = {"hooks", "plugins", "watch", "extra_javascript", "extra_css", "validation", "strict"}


def trimmed_config(site: Path) -> dict[str, Any]:
    from askai_graph.indexing.mkdocs import load_yaml

    config: dict[str, Any] = {k: v for k, v in load_yaml(site / "mkdocs.yml").items() if k not in LEFT_OUT}
    theme = dict(config.get("theme") or {})
    theme.pop("custom_dir", None)
    theme.pop("logo", None)
    theme.pop("favicon", None)
    config["theme"] = theme
    extensions = []
    for item in config.get("markdown_extensions") or []:
        name = item if isinstance(item, str) else next(iter(item))
        if name.startswith("pydantic_docs") or name == "pymdownx.emoji":  # the project's own; tags read as text
            continue
        extensions.append(item)
    config["markdown_extensions"] = extensions
    config["site_url"] = "https://docs.pydantic.dev/latest/" if "pydantic" in site.name else config.get("site_url")
    config["exclude_docs"] = "plugins/\n"
    return config


def build(project: Path, config: dict[str, Any], plugins: list[str]) -> tuple[float, float]:
    """Return the wall time and the CPU time (user + system) of one ``mkdocs build``."""
    (project / "mkdocs.yml").write_text(yaml.safe_dump({**config, "plugins": plugins}, sort_keys=False), "utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "mkdocs", "build", "-q"]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build failed:\n{result.stderr[-3000:]}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT.parent / "shared" / "realsites" / "pydantic")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, help="the project folder to build in (default: a temporary one)")
    args = parser.parse_args()
    if not (args.site / "mkdocs.yml").is_file():
        print(f"skipped: no MkDocs site at {args.site} (--site)")
        return 0
    project = args.out or Path(tempfile.mkdtemp(prefix="askai-mkdocs-bench-"))
    shutil.rmtree(project / "docs", ignore_errors=True)
    shutil.copytree(args.site / "docs", project / "docs")
    config = trimmed_config(args.site)
    cache = project / ".cache" / "plugin" / "askai"
    without, with_askai = [], []
    for _ in range(args.rounds):
        without.append(build(project, config, ["search"]))
        shutil.rmtree(cache, ignore_errors=True)
        with_askai.append(build(project, config, ["search", "askai"]))
    rebuild = build(project, config, ["search", "askai"])
    pages = len(list((project / "site").rglob("index.html")))
    print(f"mkdocs build of {args.site.name} ({pages} pages), median of {args.rounds} (rebuild: 1):")
    print("                      wall s  ratio   CPU s  ratio")
    base = [statistics.median(run[i] for run in without) for i in (0, 1)]
    rows = (("without askai", without), ("with askai (cold)", with_askai), ("rebuild, unchanged", [rebuild]))
    for label, runs in rows:
        wall, cpu = (statistics.median(run[i] for run in runs) for i in (0, 1))
        print(f"  {label:18s}  {wall:6.2f}  {wall / base[0]:5.2f}  {cpu:6.2f}  {cpu / base[1]:5.2f}")
    print(f"index: {project / 'site' / 'askai' / 'index'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
