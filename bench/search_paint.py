"""Keystroke to search results painted, in Chromium, on the bundled sample site.

Run: ``.venv/bin/python bench/search_paint.py [--rounds 3]``.

``askai serve``'s app (the bundled site, offline) on 127.0.0.1; the widget on a host page
in headless Chromium (Debian's, as the widget tests drive it). For each query the box
holds all but its last letter (results for that shown), then the last letter is pressed
through Playwright: the time from that key's ``keydown`` to the frame after the list
shows the full query's results (a ``MutationObserver`` on the listbox, then
``requestAnimationFrame`` and a task: the frame has been painted). The box is idle
before that key, so the widget searches at once (its 30 ms debounce applies only while a
request is in flight, ``web/src/search.js``). Printed: p50 and p90 in ms,
beside the baseline measured in the same page: one ``fetch`` of ``/api/search`` for a
query of the same length (the request and the search alone).
Target: p50 <= 50 ms on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from askai_graph import Settings  # noqa: E402
from askai_graph.server import create_app  # noqa: E402
from tests.browser import host_page, launch  # noqa: E402
from tests.live import LiveServer  # noqa: E402

QUERIES = [
    "semantic cache", "prompt injection", "reciprocal rank", "cross encoder", "token costs", "context window",
    "retries and timeouts", "server sent events", "json parsing", "hallucinations", "query rewriting",
    "llama cpp", "observability", "chunking documents", "fine tuning", "guardrails", "tool calling", "latency budget",
]  # fmt: skip

KEYDOWN = "document.addEventListener('keydown', () => { window.__keydown = performance.now(); }, true)"
WATCH = """(query) => { window.__painted = new Promise((done) => {
  const root = document.querySelector("askai-widget").shadowRoot;
  const list = root.querySelector("[data-askai-search]");
  const shown = () => root.querySelector("[data-askai-ask-row]")?.textContent === "Ask AI: " + query
    && root.querySelector("[data-askai-search-result], [data-askai-search-empty]");
  const observer = new MutationObserver(() => {
    if (!shown()) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - window.__keydown)));
  });
  observer.observe(list, { childList: true, subtree: true, characterData: true });
}); }"""

FETCH = """async (query) => {
  const t = performance.now();
  const response = await fetch("/api/search?q=" + encodeURIComponent(query), { cache: "no-store" });
  await response.json();
  return performance.now() - t;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    settings = Settings(cache_enabled=False, search_per_minute=100_000)
    with LiveServer(create_app(settings=settings)) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(viewport={"width": 1000, "height": 900})
        page = context.new_page()
        page.add_init_script(KEYDOWN)
        page.goto(host_page(page, base))
        page.locator("h1").click()
        page.keyboard.press("Control+k")
        box = page.locator("[data-askai-input]")
        painted, fetched = [], []
        for round_ in range(args.rounds + 1):  # the first round warms the server, the browser and the index
            for query in QUERIES:
                box.fill(query[:-1])
                page.wait_for_function(
                    "(q) => document.querySelector('askai-widget').shadowRoot"
                    ".querySelector('[data-askai-ask-row]')?.textContent === 'Ask AI: ' + q.trim()",
                    arg=query[:-1],
                )
                # A query the browser has not cached (the round number): the server searches every time.
                query = f"{query} {round_}" if round_ else query
                box.fill(query[:-1])
                page.wait_for_function(
                    "(q) => document.querySelector('askai-widget').shadowRoot"
                    ".querySelector('[data-askai-ask-row]')?.textContent === 'Ask AI: ' + q.trim()",
                    arg=query[:-1],
                )
                page.evaluate(WATCH, query)
                page.keyboard.press(query[-1])
                took = page.evaluate("() => window.__painted")
                alone = page.evaluate(FETCH, query + "x")
                if round_:
                    painted.append(took)
                    fetched.append(alone)
        browser.close()
    p50, p90 = statistics.median(painted), sorted(painted)[int(len(painted) * 0.9)]
    print(f"keystroke to painted: p50 {p50:.1f} ms, p90 {p90:.1f} ms over {len(painted)} keystrokes")
    alone = statistics.median(fetched)
    print(f"fetch /api/search alone: p50 {alone:.1f} ms (keystroke to painted is {p50 / alone:.2f}x it)")


if __name__ == "__main__":
    main()
