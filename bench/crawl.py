"""Crawl a local built site of 1,000 pages, served with 20 ms of added latency per request.

Run: ``.venv/bin/python bench/crawl.py [--pages 1000] [--latency 0.02] [--site DIR]``.

Without ``--site`` it writes a synthetic built site into a temp folder (nested folders,
each page a full HTML document with header, nav, footer, three sections of ~300 words,
a code block and an image with alt text, a sitemap with ``<lastmod>``), serves it with
``tests.site_server.SiteServer`` on 127.0.0.1 (ETag and Last-Modified, 304s) and runs
``askai index http://127.0.0.1:PORT/ --allow-private``, each run in a fresh process so
its peak RSS is its own:

1. first crawl at the default politeness (4 in flight, 8 requests/s per host);
2. re-crawl with nothing changed, the sitemap's ``<lastmod>`` unchanged (no page requested);
3. re-crawl with nothing changed and a sitemap without ``<lastmod>``: every page
   revalidated (``If-None-Match`` -> 304, no body, no parse);
4. first crawl unpaced (``--rate 0``): the crawler's own ceiling at 4 in flight.

It prints seconds (the crawl's own, from its report, and the whole process), pages/s,
page bodies served, and peak RSS for each.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.site_server import Reply, SiteServer  # noqa: E402

WORDS = (
    "trail route map compass ridge valley river bridge forest meadow summit shelter water filter stove fuel "
    "boots socks layer jacket shell fleece gloves hat torch battery whistle rope knot anchor belay harness "
    "weather forecast wind rain snow frost sun shade camp tent stake guy line pitch site fire permit ranger "
    "season spring summer autumn winter dawn dusk pace break snack lunch dinner breakfast oat nut fruit"
).split()
SECTIONS = ("Before you go", "On the trail", "Afterwards")


def sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 16))
    return " ".join(words).capitalize() + "."


def page_html(n: int, rng: random.Random, pages: int) -> str:
    title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} guide {n}"
    nav = "".join(f'<li><a href="/section-{s}/">Section {s}</a></li>' for s in range(10))
    related = "".join(f'<li><a href="{path_of(rng.randrange(pages))}">Related</a></li>' for _ in range(5))
    body = "".join(
        f"<h2>{heading}</h2>" + "".join(f"<p>{' '.join(sentence(rng) for _ in range(5))}</p>" for _ in range(3))
        for heading in SECTIONS
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} | Bench Trails</title>'
        f'<meta name="description" content="{sentence(rng)}"></head><body>'
        f'<header><a href="/">Bench Trails</a><nav><ul>{nav}</ul></nav></header>'
        f"<main><article><h1>{title}</h1>{body}"
        f'<pre><code class="language-bash">trail-plan --route {n} --days 2</code></pre>'
        f'<img src="/img/{n}.png" alt="Map of route {n}">'
        f"</article><aside><ul>{related}</ul></aside></main>"
        "<footer><p>Copyright Bench Trails. Built with a static site generator.</p></footer></body></html>"
    )


def path_of(n: int) -> str:
    return f"/section-{n % 10}/page-{n}/"


def write_site(root: Path, pages: int) -> None:
    rng = random.Random(7)
    for n in range(pages):
        target = root / path_of(n).strip("/") / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page_html(n, rng, pages))
    (root / "index.html").write_text(page_html(pages, rng, pages))


def sitemap(base: str, pages: int, lastmod: bool) -> bytes:
    date = "<lastmod>2026-11-01</lastmod>" if lastmod else ""
    entries = "".join(f"<url><loc>{base.rstrip('/')}{path_of(n)}</loc>{date}</url>" for n in range(pages))
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()


# The crawl's own process reports its peak RSS as it exits.
_RUN = """
import resource, runpy, sys
sys.argv = ["askai", *sys.argv[1:]]
try:
    runpy.run_module("askai_graph", run_name="__main__")
finally:
    print(f"peak-rss-kb {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
"""


def crawl(url: str, out: Path, *extra: str) -> dict[str, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _RUN, "index", url, "--allow-private", "--out", str(out), "-q", *extra],
        capture_output=True, text=True, env={k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")},
    )
    wall = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"askai index failed: {done.stderr.strip()}")
    match = re.search(r"crawled \S+ by .*?: (\d+) pages in ([\d.]+) s", done.stdout)
    rss = re.search(r"peak-rss-kb (\d+)", done.stderr)
    if match is None or rss is None:
        raise SystemExit(f"no crawl report in:\n{done.stdout}\n{done.stderr}")
    return {"pages": float(match.group(1)), "crawl_s": float(match.group(2)), "wall_s": wall,
            "rss_mb": int(rss.group(1)) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds added to every answer")
    parser.add_argument("--site", type=Path, help="a built site folder to serve instead of a synthetic one")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="askai-bench-crawl-"))
    try:
        site = args.site or work / "site"
        if args.site is None:
            write_site(site, args.pages)
        with SiteServer(site, latency=args.latency) as server:
            if args.site is None:
                server.routes["/sitemap.xml"] = Reply(200, {"Content-Type": "application/xml"},
                                                      sitemap(server.url, args.pages, lastmod=True))
            print(f"site: {args.pages} pages, {args.latency * 1000:.0f} ms added latency, {server.url}")
            rows = []
            for label, out, extra, change in (
                ("first crawl, default politeness", work / "index", (), None),
                ("re-crawl, nothing changed (<lastmod>)", work / "index", (), None),
                ("re-crawl, nothing changed (revalidate all)", work / "index", (), False),
                ("first crawl, unpaced (--rate 0)", work / "unpaced", ("--rate", "0"), True),
            ):
                if change is not None and args.site is None:
                    server.routes["/sitemap.xml"] = Reply(200, {"Content-Type": "application/xml"},
                                                          sitemap(server.url, args.pages, lastmod=change))
                server.clear()
                result = crawl(server.url, out, *extra)
                bodies = len(server.bodies())
                not_modified = sum(1 for hit in server.hits() if hit.status == 304)
                rows.append((label, result, bodies, not_modified))
        print(f"{'run':46} {'crawl s':>8} {'pages/s':>8} {'wall s':>7} {'bodies':>7} {'304s':>6} {'peak RSS':>9}")
        for label, result, bodies, not_modified in rows:
            rate = result["pages"] / result["crawl_s"] if result["crawl_s"] else float("inf")
            print(f"{label:46} {result['crawl_s']:8.1f} {rate:8.1f} {result['wall_s']:7.1f} {bodies:7d} "
                  f"{not_modified:6d} {result['rss_mb']:7.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
