"""Browser harness for the widget tests: Debian's Chromium driven by Playwright for Python.

One browser per test session (launched on first use), a fresh context per test. The
browser comes from apt (``make chromium``), never from ``playwright install``, which
cannot download here; a missing browser fails the test with the command that fixes it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
HINT = (
    f"Chromium not found at {CHROMIUM}: run 'make chromium' (it runs 'apt-get install -y chromium'), "
    "or set CHROMIUM=/path/to/chromium"
)
# As root Chromium needs --no-sandbox; the rest keeps it off the (closed) network at start.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
AXE = Path(__file__).parent.parent / "web" / "node_modules" / "axe-core" / "axe.min.js"


def launch(playwright: Any) -> Any:
    """Launch headless Chromium from ``CHROMIUM``, or fail with the hint."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(HINT)
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module.

    Not per session: Playwright's sync API keeps an event loop running in the main thread
    while it is open, so any later test calling ``asyncio.run`` would fail.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page in its own context (no shared cache, storage or cookies)."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    yield context.new_page()
    context.close()


def ask(page: Any, question: str) -> None:
    """Type ``question`` into the widget, press Enter and wait until the answer is done or failed."""
    box = page.locator("[data-askai-input]")
    box.fill(question)
    box.press("Enter")
    settled(page, "/^(done|error)$/.test(root.querySelector('[data-askai]').dataset.state)")


def settled(page: Any, condition: str) -> None:
    """Wait until ``condition`` (JS over ``root``, the widget's shadow root) holds, checking every frame.

    Every frame, not Playwright's backing-off poll (100 ms, then 250, 500, 1000 ms), keeps
    hundreds of answers in one test run quick.
    """
    page.wait_for_function(
        f"() => {{ const root = document.querySelector('askai-widget').shadowRoot; return {condition}; }}",
        polling="raf",
        timeout=20_000,
    )


RECORD_EVENTS = """
window.__askaiEvents = [];
document.addEventListener("askai:event", (event) => window.__askaiEvents.push(event.detail));
"""


def requests_reported(page: Any) -> None:
    """Return once every request the page has started so far has reached the test's ``request`` listeners.

    For a test that a request is *not* sent, instead of waiting a while for it: the page
    starts one more request of its own, and Chromium reports a page's requests in the
    order they start. The widget starts each of its requests in the very handler of what
    causes it (a click, its start-up), so one it would wrongly send is reported first.
    """
    with page.expect_request("**/askai-test-fence"):
        page.evaluate("fetch('/askai-test-fence').catch(() => {})")


def open_widget(page: Any, url: str) -> None:
    """Open ``url``, recording every SSE event the widget receives (its ``askai:event`` DOM events)."""
    page.add_init_script(RECORD_EVENTS)
    page.goto(url)


def received(page: Any, name: str) -> list[Any]:
    """The data of every ``name`` event the widget has received since the page loaded."""
    return [event["data"] for event in page.evaluate("window.__askaiEvents") if event["name"] == name]


def answer_dom(page: Any) -> dict[str, Any]:
    """What the answer holds: text, links, images, SVG links, tags (outside and inside SVG), ``on*`` attributes."""
    return page.evaluate(
        """() => {
        const root = document.querySelector("askai-widget").shadowRoot;
        const answer = root.querySelector("[data-askai-answer]");
        const all = [...answer.querySelectorAll("*")];
        const tags = (elements) => [...new Set(elements.map((e) => e.tagName.toLowerCase()))].sort();
        const xlink = "http://www.w3.org/1999/xlink";
        return {
          text: answer.textContent,
          hrefs: [...answer.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")),
          srcs: [...answer.querySelectorAll("img[src]")].map((i) => i.getAttribute("src")),
          svgLinks: [...answer.querySelectorAll("svg *")]
            .map((e) => e.getAttribute("href") || e.getAttributeNS(xlink, "href"))
            .filter((href) => href !== null && !href.startsWith("#")),
          htmlTags: tags(all.filter((e) => !e.closest("svg"))),
          svgTags: tags(all.filter((e) => e.closest("svg"))),
          handlers: all.flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
        };
    }"""
    )


def host_page(target: Any, base: str, attributes: str = "", path: str = "/page", *, banner: bool = False) -> str:
    """Serve at ``base + path`` (any query) a page of the site embedding the widget with ``attributes``.

    ``target`` is a Playwright page or context (a context serves it to all its tabs). The
    page is on the API's own origin, so it needs no CORS; returns its URL. ``banner``: the
    page has a site header of its own (a ``banner`` landmark), as most docs sites do, and
    the widget after its ``<main>``, where an embed snippet pasted before ``</body>`` puts it.
    """
    header = "<header><p>The site's header</p></header>" if banner else ""
    widget = f"<askai-widget {attributes}></askai-widget>"
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A page of the site</title>
    </head><body>{header}<main><h1>A page of the site</h1><p>Some text and <a href="#top">a link</a>.</p>
    {"" if banner else widget}</main>{widget if banner else ""}<script src="{base}/widget.js"></script></body></html>"""
    # A pattern, not a Python predicate: Playwright must hold every request of the page for a
    # predicate until the test's thread next calls into it, so a request sent while the test
    # waits on something else (a server event) stalls, and may be aborted before it leaves.
    target.route(
        re.compile("^" + re.escape(f"{base}{path}")), lambda route: route.fulfill(content_type="text/html", body=html)
    )
    return f"{base}{path}"


SERIOUS = frozenset({"serious", "critical"})
"""The impacts ``axe_violations`` reports unless told others."""


def axe_violations(page: Any, impacts: frozenset[str] = SERIOUS) -> list[dict[str, Any]]:
    """Run axe-core (from web/node_modules) on the page; return its violations of ``impacts``."""
    if not AXE.is_file():
        pytest.fail(f"axe-core is missing at {AXE}: run 'make web' (npm ci in web/)")
    # Evaluated over the DevTools protocol, not added as a <script>: the page's CSP
    # (script-src 'self') rightly refuses an inline script, as it would an attacker's.
    page.evaluate(AXE.read_text("utf-8"))
    results = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in results["violations"]
        if v["impact"] in impacts
    ]
