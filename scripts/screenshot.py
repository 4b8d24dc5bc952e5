"""Screenshot the widget for the README from a real headless-browser run (``make screenshot``).

Starts ``askai serve``'s app over the bundled sample site on a free 127.0.0.1 port, opens
``GET /`` in Debian's Chromium, asks the demo questions and writes:

- ``docs/widget.png``: light, desktop width, an accepted answer with its source cards;
- ``docs/widget-360-dark.png``: dark, 360 px wide, an off-topic question: the honest
  fallback, no cards, and the notice that says why.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from askai_graph import Settings  # noqa: E402
from askai_graph.server import create_app  # noqa: E402
from tests.browser import ask, launch  # noqa: E402
from tests.live import LiveServer  # noqa: E402

SHOTS = [
    # (file, colour scheme, viewport width, question)
    ("widget.png", "light", 880, "How does a semantic cache work?"),
    ("widget-360-dark.png", "dark", 360, "How do I bake sourdough bread?"),
]


def main() -> int:
    """Write the screenshots into docs/."""
    out = ROOT / "docs"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as cache:
        settings = Settings(index_cache_dir=Path(cache), cache_enabled=False)
        with LiveServer(create_app(settings=settings)) as base, sync_playwright() as playwright:
            browser = launch(playwright)
            for name, scheme, width, question in SHOTS:
                page = browser.new_page(color_scheme=scheme, viewport={"width": width, "height": 900})
                page.goto(f"{base}/")
                ask(page, question)
                page.locator("askai-widget").screenshot(path=str(out / name), animations="disabled")
                print(f"wrote docs/{name}")
                page.close()
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
