"""The launcher's box searches as the reader types (Chromium): results, keys, the Ask row, stale responses, axe."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect
from starlette.types import ASGIApp, Receive, Scope, Send

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.stores.runlog import open_run_log
from tests.browser import SERIOUS, axe_violations, host_page, settled
from tests.live import LiveServer
from tests.test_search import DOCS, PAGES

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

SLOW = "pydan"
"""The query the test server answers late (``Delayed``), to make its response arrive after a newer one's."""
RESULTS = "[data-askai-search-result]"
ASK_ROW = "[data-askai-ask-row]"


class Delayed:
    """An ASGI wrapper that holds the response to ``GET /api/search?q=SLOW`` until ``release`` is set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.release = threading.Event()
        self.received = threading.Event()
        self.answered = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        slow = scope["type"] == "http" and scope["path"] == "/api/search"
        slow = slow and scope["query_string"] == f"q={SLOW}".encode()
        if slow:
            self.received.set()
            await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 30)
        await self.app(scope, receive, send)
        if slow:
            self.answered.set()


@pytest.fixture(scope="module")
def served(index_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Delayed]]:
    site = tmp_path_factory.mktemp("site") / "pages.jsonl"
    site.write_text("\n".join(json.dumps(page) for page in PAGES), "utf-8")
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, corpus=site)
    run_log = open_run_log(f"sqlite:///{site.parent / 'runs.sqlite'}")  # searches are logged, and name their row
    app = Delayed(create_app(settings=settings, run_log=run_log))
    with LiveServer(app) as base:  # type: ignore[arg-type]
        yield base, app
    app.release.set()
    run_log.close()


@pytest.fixture
def docs_site(page: Any) -> Any:
    """The documentation site the results link to, served by the browser itself (nothing leaves the machine)."""
    html = "<title>docs</title><h1>Docs</h1>"
    page.route(f"{DOCS}/**", lambda route: route.fulfill(content_type="text/html", body=html))
    return page


def open_box(page: Any, base: str, attributes: str = "") -> Any:
    page.goto(host_page(page, base, attributes))
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    box = page.locator("[data-askai-input]")
    expect(box).to_be_focused()
    return box


def test_typing_shows_the_matching_sections_under_an_ask_row(page: Any, served: tuple[str, Delayed]) -> None:
    box = open_box(page, served[0])
    page.keyboard.type("configuration")
    expect(page.locator(RESULTS).first).to_contain_text("Configuration")
    rows = page.locator("[role=option]")
    expect(rows.first).to_have_attribute("data-askai-ask-row", "")
    expect(rows.first).to_have_text("Ask AI: configuration")
    expect(box).to_have_attribute("aria-expanded", "true")
    # Matched words are marked from the offsets, as text.
    marks = page.locator(f"{RESULTS} mark")
    expect(marks.first).to_have_text("Configuration")
    assert page.locator(f"{RESULTS} script").count() == 0


def test_arrows_and_enter_open_a_results_anchor(docs_site: Any, served: tuple[str, Delayed]) -> None:
    page = docs_site
    open_box(page, served[0])
    page.keyboard.type("configuration ")
    expect(page.locator(RESULTS).first).to_contain_text("Configuration")
    page.keyboard.press("ArrowDown")  # the Ask row
    expect(page.locator(ASK_ROW)).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowDown")  # the first result
    expect(page.locator(RESULTS).first).to_have_attribute("aria-selected", "true")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == f"{DOCS}/reference/#config-file"


def test_opening_a_result_tells_the_server_which_one_for_the_search_log(
    docs_site: Any, served: tuple[str, Delayed]
) -> None:
    page = docs_site
    open_box(page, served[0])
    page.keyboard.type("configuration ")
    expect(page.locator(RESULTS).first).to_contain_text("Configuration")
    with page.expect_request(lambda request: request.url.endswith("/api/search/click")) as sent:
        page.locator(RESULTS).first.click()
    click = sent.value
    assert click.method == "POST" and click.headers["content-type"] == "application/json"
    assert json.loads(click.post_data or "") == {"query": "configuration", "url": f"{DOCS}/reference/#config-file"}


def test_the_ask_row_and_ctrl_enter_ask_what_was_typed(page: Any, served: tuple[str, Delayed]) -> None:
    open_box(page, served[0])
    page.keyboard.type("How do I install it?")
    expect(page.locator(RESULTS).first).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    settled(page, "/^(done|error)$/.test(root.querySelector('[data-askai]').dataset.state)")
    expect(page.locator("[data-askai-question]").last).to_have_text("How do I install it?")
    expect(page.locator("[data-askai-search]")).to_be_hidden()
    # Ctrl-Enter asks even with a result selected.
    page.keyboard.type("pip")
    expect(page.locator(RESULTS).first).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Control+Enter")
    expect(page.locator("[data-askai-question]").last).to_have_text("pip")  # (earlier turns lose their hooks)


# Ctrl+Enter asks from the results; Enter with no row chosen asks from the box: both name the search.
@pytest.mark.parametrize("key", ["Control+Enter", "Enter"])
def test_a_question_asked_from_the_box_names_its_search(page: Any, served: tuple[str, Delayed], key: str) -> None:
    searched: list[Any] = []
    page.on("response", lambda response: searched.append(response) if "/api/search?" in response.url else None)
    open_box(page, served[0])
    page.keyboard.type("configuration")
    # The results of the whole word, not of a prefix typed on the way ("configura" shows the same pages).
    expect(page.locator('[data-askai-shown-query="configuration"]')).to_have_count(1)
    (shown,) = [response for response in searched if parse_qs(urlsplit(response.url).query)["q"] == ["configuration"]]
    search_id = shown.json().get("search_id")
    assert isinstance(search_id, str) and len(search_id) == 32
    with page.expect_request(lambda request: request.url.endswith("/api/chat")) as sent:
        page.keyboard.press(key)
    assert json.loads(sent.value.post_data or "")["search_id"] == search_id


def test_a_late_response_never_overwrites_a_newer_one(page: Any, served: tuple[str, Delayed]) -> None:
    base, server = served
    server.release.clear()
    server.received.clear()
    server.answered.clear()
    open_box(page, base)
    with page.expect_request(lambda request: f"q={SLOW}" in request.url and request.url.endswith(SLOW)):
        page.keyboard.type(SLOW)
    # The page has sent it; the server must hold it before the next words are typed, or the
    # widget aborts it on the way and there is no late response to drop (a loaded machine
    # did that once, when the page's requests waited on a Playwright route predicate).
    assert server.received.wait(10)
    page.keyboard.type("tic models")
    expect(page.locator(RESULTS).first).to_contain_text("Validation with Pydantic")
    expect(page.locator(ASK_ROW)).to_have_text("Ask AI: pydantic models")
    server.release.set()
    assert server.answered.wait(10)
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    expect(page.locator(ASK_ROW)).to_have_text("Ask AI: pydantic models")
    expect(page.locator(RESULTS)).to_have_count(1)


def test_no_match_says_so_and_offers_to_ask(page: Any, served: tuple[str, Delayed]) -> None:
    open_box(page, served[0])
    page.keyboard.type("sourdough bread")
    expect(page.locator("[data-askai-search-empty]")).to_contain_text("No pages match “sourdough bread”")
    expect(page.locator(ASK_ROW)).to_be_visible()
    page.keyboard.press("Enter")
    settled(page, "/^(done|error)$/.test(root.querySelector('[data-askai]').dataset.state)")
    expect(page.locator("[data-askai-question]").last).to_have_text("sourdough bread")


def test_a_first_letter_is_not_searched_and_never_flashes_no_match(page: Any, served: tuple[str, Delayed]) -> None:
    searched: list[str] = []
    page.on("request", lambda request: searched.append(request.url) if "/api/search?" in request.url else None)
    open_box(page, served[0])
    # Every "No pages match" the list ever shows, a flash of one frame included.
    page.evaluate(
        """() => {
      window.__askaiEmpty = [];
      const root = document.querySelector("askai-widget").shadowRoot;
      new MutationObserver(() => {
        const empty = root.querySelector("[data-askai-search-empty]");
        if (empty && !window.__askaiEmpty.includes(empty.textContent)) window.__askaiEmpty.push(empty.textContent);
      }).observe(root, { subtree: true, childList: true, characterData: true });
    }"""
    )
    page.keyboard.type("i")
    expect(page.locator(ASK_ROW)).to_have_text("Ask AI: i")
    page.keyboard.type("nstall")
    expect(page.locator(RESULTS).first).to_contain_text("Install")
    assert page.evaluate("window.__askaiEmpty") == []
    assert not any(url.endswith("q=i") for url in searched), searched


def test_escape_closes_the_result_list_before_the_dialog(page: Any, served: tuple[str, Delayed]) -> None:
    box = open_box(page, served[0])
    page.keyboard.type("configuration")
    expect(page.locator(RESULTS).first).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("[data-askai-search]")).to_be_hidden()
    expect(page.locator("[data-askai]")).to_be_visible()
    expect(box).to_be_focused()
    expect(box).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("Escape")
    expect(page.locator("[data-askai]")).to_be_hidden()


def test_recent_searches_are_kept_in_the_tab(page: Any, served: tuple[str, Delayed]) -> None:
    open_box(page, served[0])
    page.keyboard.type("pip")
    expect(page.locator(RESULTS).first).to_be_visible()
    page.keyboard.press("Control+Enter")
    settled(page, "/^(done|error)$/.test(root.querySelector('[data-askai]').dataset.state)")
    page.locator("[data-askai-input]").blur()
    page.locator("[data-askai-input]").focus()
    expect(page.locator("[data-askai-recent]")).to_have_text(["pip"])
    assert page.evaluate("JSON.parse(sessionStorage.getItem('askai:recent-searches'))") == ["pip"]


def test_search_mode_only_searches(docs_site: Any, served: tuple[str, Delayed]) -> None:
    page = docs_site
    open_box(page, served[0], 'mode="search"')
    expect(page.locator("[data-askai-send]")).to_be_hidden()
    page.keyboard.type("installer")
    expect(page.locator(RESULTS).first).to_be_visible()
    assert page.locator(ASK_ROW).count() == 0
    with page.expect_navigation():
        page.keyboard.press("Enter")  # the first result
    assert page.url.startswith(f"{DOCS}/install/")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious_with_results_shown_at_360_px(
    browser: Any, served: tuple[str, Delayed], scheme: str
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, color_scheme=scheme)
    page = context.new_page()
    try:
        open_box(page, served[0])
        page.keyboard.type("configuration")
        expect(page.locator(RESULTS).first).to_be_visible()
        page.keyboard.press("ArrowDown")
        box = page.locator("[data-askai-search]").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
        assert axe_violations(page) == []
    finally:
        context.close()


def test_axe_finds_no_moderate_violation_with_results_shown_on_a_page_with_its_own_header(
    page: Any, served: tuple[str, Delayed]
) -> None:
    page.goto(host_page(page, served[0], banner=True))
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    page.keyboard.type("configuration")
    expect(page.locator(RESULTS).first).to_be_visible()
    page.keyboard.press("ArrowDown")
    assert axe_violations(page, SERIOUS | {"moderate"}) == []
