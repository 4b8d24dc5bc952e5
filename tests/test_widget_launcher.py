"""The floating widget is a modal dialog: button or Ctrl/Cmd-K opens it, focus stays in, Esc returns it.

Also what every reader needs whatever the mode: the keyboard alone carries a whole
conversation, the panel fits 360 px, and axe-core finds no serious or critical violation
in light and dark, launcher and inline, empty and after two rated turns.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.stores.runlog import open_run_log
from tests.browser import SERIOUS, axe_violations, host_page, open_widget, received, settled
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer
from tests.test_server_threads import BM25_POST, FOLLOW_UP

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DRAFT = cited_draft(1, 2) + "\n\n```python\nprint(1)\n```\n"
DONE = "root.querySelector('[data-askai]').dataset.state === 'done'"
INSIDE = "document.activeElement === document.querySelector('askai-widget')"


def run_log(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A run log of the module's own, so the servers record answers and accept ratings."""
    return open_run_log(f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.sqlite'}")


@pytest.fixture(scope="module")
def served(index_cache: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, suggestions=("How does caching work?",))
    graph = build_graph(writer=replies(DRAFT), critic=replies(PASSING), retriever=retriever(1, 2), settings=settings)
    log = run_log(tmp_path_factory)
    with LiveServer(create_app(graph, settings, run_log=log)) as base:
        yield base
    log.close()


def ask(page: Any, question: str) -> None:
    page.keyboard.type(question)
    page.keyboard.press("Enter")
    settled(page, DONE)


def test_the_button_opens_a_modal_dialog_and_escape_closes_it_and_returns_focus(page: Any, served: str) -> None:
    page.goto(host_page(page, served))
    launcher, panel = page.locator("[data-askai-open]"), page.locator("[data-askai]")
    expect(panel).to_be_hidden()
    launcher.click()
    expect(panel).to_be_visible()
    expect(panel).to_have_attribute("role", "dialog")
    expect(panel).to_have_attribute("aria-modal", "true")
    expect(panel).to_have_accessible_name("Ask AI")
    expect(launcher).to_have_attribute("aria-expanded", "true")
    expect(page.locator("[data-askai-input]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(launcher).to_be_focused()
    expect(launcher).to_have_attribute("aria-expanded", "false")


def test_ctrl_k_and_cmd_k_open_and_close_the_dialog_from_anywhere(page: Any, served: str) -> None:
    page.goto(host_page(page, served))
    panel = page.locator("[data-askai]")
    expect(page.locator("[data-askai-open]")).to_have_attribute("aria-keyshortcuts", "Control+K Meta+K")
    page.locator("h1").click()  # focus on the host page, not the widget
    page.keyboard.press("Control+k")
    expect(panel).to_be_visible()
    expect(page.locator("[data-askai-input]")).to_be_focused()
    page.keyboard.press("Control+k")
    expect(panel).to_be_hidden()
    expect(page.locator("[data-askai-open]")).to_be_focused()
    page.keyboard.press("Meta+k")
    expect(panel).to_be_visible()


def test_the_shortcut_can_be_another_key_or_off(page: Any, served: str) -> None:
    page.goto(host_page(page, served, 'shortcut="j"'))
    page.keyboard.press("Control+k")
    expect(page.locator("[data-askai]")).to_be_hidden()
    page.keyboard.press("Control+j")
    expect(page.locator("[data-askai]")).to_be_visible()
    page.goto(host_page(page, served, 'shortcut="off"'))
    expect(page.locator("[data-askai-open]")).to_be_visible()  # started: its key handler is in place
    expect(page.locator("[data-askai-open]")).not_to_have_attribute("aria-keyshortcuts", "Control+K Meta+K")
    page.keyboard.press("Control+k")
    # The shortcut opens the dialog in the keydown's own handler, which has run once press returns.
    assert page.locator("[data-askai]").is_hidden()


def test_tab_and_shift_tab_stay_inside_the_open_dialog(page: Any, served: str) -> None:
    page.goto(host_page(page, served))
    page.locator("[data-askai-open]").click()
    page.locator("[data-askai-input]").focus()
    ask(page, "How do retrieval and caching work?")
    for key in ["Tab"] * 15 + ["Shift+Tab"] * 15:
        page.keyboard.press(key)
        assert page.evaluate(INSIDE), f"focus left the dialog after {key}"
    # From the last control (Ask) Tab wraps to the first (New conversation), and back.
    page.locator("[data-askai-send]").focus()
    page.keyboard.press("Tab")
    expect(page.locator("[data-askai-new]")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.locator("[data-askai-send]")).to_be_focused()


def test_a_click_outside_the_dialog_closes_it(page: Any, served: str) -> None:
    page.goto(host_page(page, served))
    page.locator("[data-askai-open]").click()
    page.mouse.click(5, 5)
    expect(page.locator("[data-askai]")).to_be_hidden()
    expect(page.locator("[data-askai-open]")).to_be_focused()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_dialog_fits_a_360_px_screen(browser: Any, served: str, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 360, "height": 640})
    page = context.new_page()
    page.goto(host_page(page, served))
    page.locator("[data-askai-open]").click()
    ask(page, "How do retrieval and caching work?")
    for hook in ("[data-askai]", "[data-askai-input]", "[data-askai-send]", "[data-askai-feedback=down]"):
        page.locator(hook).scroll_into_view_if_needed()
        box = page.locator(hook).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, (hook, box)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360  # no sideways scrolling
    context.close()


@pytest.fixture(scope="module")
def demo(index_cache: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """What ``askai serve`` runs (the sample site, threads in memory), so a follow-up needs its thread."""
    log = run_log(tmp_path_factory)
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    with LiveServer(create_app(settings=settings, run_log=log)) as base:
        yield base
    log.close()


def test_the_keyboard_alone_carries_a_conversation_with_a_follow_up_and_a_rating(page: Any, demo: str) -> None:
    open_widget(page, host_page(page, demo))
    page.keyboard.press("Tab")  # the host page's link
    page.keyboard.press("Tab")
    expect(page.locator("[data-askai-open]")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("[data-askai-input]")).to_be_focused()
    ask(page, "What is BM25?")
    expect(page.locator("[data-askai-input]")).to_be_focused()
    ask(page, FOLLOW_UP)
    first, follow_up = received(page, "done")
    assert follow_up["thread_id"] == first["thread_id"] and received(page, "sources")[-1][0]["url"] == BM25_POST
    # Back from the input: share, copy, then thumbs down of the follow-up; a comment; Enter sends it.
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
    down = page.locator("[data-askai-turn]").last.locator("[data-askai-feedback=down]")
    expect(down).to_be_focused()
    page.keyboard.press("Enter")
    expect(down).to_have_attribute("aria-pressed", "true")
    page.keyboard.type("Say which parameter to change first")
    page.keyboard.press("Enter")
    expect(page.locator("[data-askai-turn]").last.locator("[data-askai-said]")).to_have_text(
        "Thanks for your feedback."
    )
    expect(down).to_be_focused()  # the form closed under the keyboard user: back to the chosen thumb
    page.keyboard.press("Escape")
    expect(page.locator("[data-askai]")).to_be_hidden()
    expect(page.locator("[data-askai-open]")).to_be_focused()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("mode", ["launcher", "inline"])
def test_axe_finds_no_serious_or_critical_violation(browser: Any, served: str, mode: str, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto(host_page(page, served, "inline" if mode == "inline" else ""))
    if mode == "launcher":
        assert axe_violations(page) == []
        page.locator("[data-askai-open]").click()
    expect(page.locator("[data-askai-suggestion]")).to_have_count(1)
    assert axe_violations(page) == []  # the empty panel, with its starter question
    page.locator("[data-askai-input]").focus()
    ask(page, "How do retrieval and caching work?")
    ask(page, "And how does streaming work?")
    page.locator("[data-askai-feedback=down]").last.click()
    expect(page.locator("[data-askai-comment]").last).to_be_visible()
    expect(page.locator("a[data-askai-source]")).to_have_count(2)
    assert axe_violations(page) == []  # two turns, cards, code, thumbs pressed, the comment form
    context.close()


# A command line wider than the panel at 360 px: its block scrolls sideways.
WIDE = "Serve it so:\n\n```sh\n" + "askai serve --index-cache-dir /srv/docs/index " * 4 + "\n```\n"


def wide_answer(route: Any) -> None:
    done = {"outcome": "accepted", "attempts": 1, "cached": False, "gates": {}, "run_id": None,
            "thread_id": "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", "thread_token": "t" * 43}  # fmt: skip
    body = f"event: token\ndata: {json.dumps({'text': WIDE})}\n\nevent: done\ndata: {json.dumps(done)}\n\n"
    route.fulfill(status=200, content_type="text/event-stream", body=body)


def test_axe_finds_no_moderate_violation_in_the_dialog_on_a_page_with_its_own_header(page: Any, served: str) -> None:
    page.set_viewport_size({"width": 360, "height": 800})
    page.route("**/api/chat", wide_answer)
    page.goto(host_page(page, served, banner=True))
    page.locator("[data-askai-open]").click()
    ask(page, "How do I serve it?")
    code = page.locator(".answer pre")
    assert code.evaluate("pre => pre.scrollWidth > pre.clientWidth")  # the case axe checks: a sideways scroll
    assert axe_violations(page, SERIOUS | {"moderate"}) == []
    # The keyboard reaches the block, which scrolls with the arrow keys.
    code.focus()
    expect(code).to_be_focused()
    expect(code).to_have_accessible_name("Code")
