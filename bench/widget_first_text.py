"""Time from the widget's first ``token`` event to answer text on screen, in headless Chromium.

Run: ``.venv/bin/python bench/widget_first_text.py [--runs N]`` (needs ``make chromium``).
Serves the bundled sample site with the offline models (cache off), asks the demo
questions ``N`` times through ``GET /`` and reads the widget's performance marks:
``askai:first-token`` (the first token event parsed) to ``askai:first-text`` (its
Markdown rendered into the answer) and to ``askai:first-frame`` (the next animation
frame, i.e. painted). Baseline, measured in the same page: writing the same first token's
text into a plain ``<div>`` with ``textContent`` (averaged over 200 writes, since one write
is below ``performance.now()``'s 0.1 ms resolution), i.e. the cost without Markdown.
Chromium clamps timers to 0.1 ms here, so the widget's own figure is a ceiling.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from askai_graph import Settings  # noqa: E402
from askai_graph.server import create_app  # noqa: E402
from tests.browser import ask, launch, open_widget  # noqa: E402
from tests.live import LiveServer  # noqa: E402

QUESTIONS = [
    "How does a semantic cache decide a hit?",
    "What course articles do you have?",
    "How should I handle client disconnects when streaming?",
]
MARKS = """() => {
  const at = (name) => performance.getEntriesByName(name)[0].startTime;
  return [at("askai:first-text") - at("askai:first-token"), at("askai:first-frame") - at("askai:first-token")];
}"""
BASELINE = """(text) => {
  const div = document.createElement("div");
  document.body.append(div);
  const start = performance.now();
  for (let i = 0; i < 200; i++) {
    div.textContent = "";
    div.textContent = text + i;
    div.offsetHeight; // force layout, as the widget's first render gets before paint
  }
  const perWrite = (performance.now() - start) / 200;
  div.remove();
  return perWrite;
}"""


def first_token(events: list[dict[str, Any]]) -> str:
    """The text of the latest answer's first ``token`` event."""
    starts = [i for i, event in enumerate(events) if event["name"] == "token" and events[i - 1]["name"] != "token"]
    return str(events[starts[-1]]["data"]["text"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    text_ms: list[float] = []
    frame_ms: list[float] = []
    base_ms: list[float] = []
    with tempfile.TemporaryDirectory() as cache:
        settings = Settings(index_cache_dir=Path(cache), cache_enabled=False)
        with LiveServer(create_app(settings=settings)) as base, sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            open_widget(page, f"{base}/")
            for _ in range(args.runs):
                for question in QUESTIONS:
                    ask(page, question)
                    page.wait_for_function("performance.getEntriesByName('askai:first-frame').length > 0")
                    text, frame = page.evaluate(MARKS)
                    text_ms.append(text)
                    frame_ms.append(frame)
                    first = first_token(page.evaluate("window.__askaiEvents"))
                    base_ms.append(page.evaluate(BASELINE, first))
            browser.close()
    med = statistics.median
    print(f"samples: {len(text_ms)} answers ({args.runs} x {len(QUESTIONS)} questions), Chromium headless")
    print(f"first token -> text in the DOM (Markdown rendered): median {med(text_ms):.2f} ms")
    print(f"first token -> next animation frame (painted):      median {med(frame_ms):.2f} ms")
    print(f"baseline: plain textContent write + layout:         median {med(base_ms):.3f} ms")
    print(f"ratio, widget DOM write vs baseline:                {med(text_ms) / med(base_ms):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
