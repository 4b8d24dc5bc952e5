"""Screenshot the widget for the README from a real headless-browser run (``make screenshot``).

Starts ``askai serve``'s app over the bundled sample site on a free 127.0.0.1 port, opens
``GET /`` in Debian's Chromium, asks the demo questions and writes:

- ``docs/widget.png``: light, desktop width, an accepted answer with its source cards;
- ``docs/widget-360-dark.png``: dark, 360 px wide, an off-topic question: the honest
  fallback, no cards, and the notice that says why;
- ``docs/widget-conversation.png``: light, a question and its follow-up (condensed on the
  server), the first answer rated with a thumb up;
- ``docs/widget-launcher.png``: the floating launcher opened as a dialog over a page of
  the site, with its starter questions;
- ``docs/widget-evidence.png``: light, an accepted answer whose card carries its evidence:
  the section as a subtitle, the verbatim quote, a link to the section's anchor.

``scripts/screenshot.py NAME.png ...`` writes only the named screenshots of ``SHOTS``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from askai_graph import Settings  # noqa: E402
from askai_graph.server import create_app  # noqa: E402
from askai_graph.stores.runlog import open_run_log  # noqa: E402
from tests.browser import ask, host_page, launch  # noqa: E402
from tests.live import LiveServer  # noqa: E402

SHOTS = [
    # (file, colour scheme, viewport width, question)
    ("widget.png", "light", 880, "How does a semantic cache work?"),
    ("widget-360-dark.png", "dark", 360, "How do I bake sourdough bread?"),
    ("widget-evidence.png", "light", 880, "How do BM25 and embeddings compare, and how can they be combined?"),
]


def main(only: list[str]) -> int:
    """Write the screenshots into docs/ (those named in ``only``, when it names any)."""
    out = ROOT / "docs"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as cache:
        settings = Settings(index_cache_dir=Path(cache), cache_enabled=False)
        run_log = open_run_log(f"sqlite:///{Path(cache) / 'runs.sqlite'}")  # so the thumbs record
        app = create_app(settings=settings, run_log=run_log)
        with LiveServer(app) as base, sync_playwright() as playwright:
            browser = launch(playwright)
            for name, scheme, width, question in SHOTS:
                if only and name not in only:
                    continue
                page = browser.new_page(color_scheme=scheme, viewport={"width": width, "height": 900})
                page.goto(f"{base}/")
                ask(page, question)
                shoot(page.locator("askai-widget"), out / name)
                page.close()
            if only:
                browser.close()
                run_log.close()
                return 0
            page = browser.new_page(viewport={"width": 880, "height": 900})
            page.goto(f"{base}/")
            ask(page, "What is BM25?")
            page.locator("[data-askai-feedback=up]").click()
            page.locator("[data-askai-said]").wait_for()
            ask(page, "How do I tune its parameters?")
            shoot(page.locator("askai-widget"), out / "widget-conversation.png")
            page.close()
            page = browser.new_page(viewport={"width": 1000, "height": 720})
            page.goto(host_page(page, base))
            page.locator("[data-askai-open]").click()
            page.locator("[data-askai-suggestion]").first.wait_for()
            shoot(page, out / "widget-launcher.png")
            browser.close()
        run_log.close()
    return 0


def shoot(target: Any, path: Path) -> None:
    """Screenshot ``target`` (a page or an element) into ``path``, animations stopped."""
    target.screenshot(path=str(path), animations="disabled")
    print(f"wrote docs/{path.name}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
