"""Every string the widget shows a reader comes from its ``strings`` attribute, English by default."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.stores.runlog import open_run_log
from tests.browser import host_page, settled
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

STRINGS_JS = Path(__file__).resolve().parents[1] / "web" / "src" / "strings.js"
KEYS = re.findall(r"^  (\w+): \"", STRINGS_JS.read_text(), flags=re.MULTILINE)
DRAFT = cited_draft(1) + "\n\n```sh\nmake web\n```\n"

# Every text node and accessible name in the shadow root, except what the server wrote (the
# question, the answer, the cards and the starter questions) and what no reader meets
# (the steps list kept for tests, hidden from everyone).
SHOWN = """() => {
  const root = document.querySelector("askai-widget").shadowRoot;
  const server = [
    ".turn .question", ".answer > :not(.code)", ".answer pre", ".sources li", "[data-askai-suggestion]",
    "style", "[aria-hidden=true]",
  ].join(", ");
  const shown = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim() || node.parentElement.closest(server)) continue;
    shown.push(node.textContent.trim());
  }
  for (const element of root.querySelectorAll("[aria-label], [placeholder]")) {
    shown.push(...["aria-label", "placeholder"].map((name) => element.getAttribute(name)).filter(Boolean));
  }
  return shown;
}"""


@pytest.fixture(scope="module")
def served(index_cache: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, suggestions=("How does caching work?",))
    graph = build_graph(writer=replies(DRAFT), critic=replies(PASSING), retriever=retriever(1), settings=settings)
    log = open_run_log(f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.sqlite'}")
    with LiveServer(create_app(graph, settings, run_log=log)) as base:
        yield base
    log.close()


def ask(page: Any, question: str = "How do retrieval and caching work?") -> None:
    page.locator("[data-askai-input]").fill(question)
    page.locator("[data-askai-input]").press("Enter")
    settled(page, "/^(done|error)$/.test(root.querySelector('[data-askai]').dataset.state)")


def test_the_strings_are_english_by_default(page: Any, served: str) -> None:
    page.goto(host_page(page, served))
    expect(page.locator("[data-askai-open]")).to_have_text("Ask AI")
    page.locator("[data-askai-open]").click()
    expect(page.locator("[data-askai-input]")).to_have_attribute("placeholder", "Ask a question…")
    ask(page)
    expect(page.locator("[data-askai-feedback=up]")).to_have_accessible_name("Helpful")
    expect(page.locator("[data-askai-copy]")).to_have_text("Copy")
    expect(page.locator("[data-askai-input]")).to_have_attribute("placeholder", "Ask a follow-up…")


def test_every_string_a_reader_sees_can_be_replaced(page: Any, served: str) -> None:
    assert len(KEYS) > 40  # the parse of strings.js found its table
    custom = {key: f"<{key}>" for key in KEYS}
    page.goto(host_page(page, served, f"strings='{json.dumps(custom)}'"))
    seen = set(page.evaluate(SHOWN))
    page.locator("[data-askai-open]").click()
    expect(page.locator("[data-askai-suggestion]")).to_have_count(1)
    seen |= set(page.evaluate(SHOWN))
    ask(page)
    page.locator("[data-askai-feedback=down]").click()
    expect(page.locator("[data-askai-comment]")).to_be_visible()
    seen |= set(page.evaluate(SHOWN))
    page.route("**/api/chat", lambda route: route.abort("connectionrefused"))
    ask(page)
    seen |= set(page.evaluate(SHOWN))
    shown_english = sorted(text for text in seen if text not in custom.values() and text != "×")
    assert shown_english == []
    assert {"<launcher>", "<placeholder>", "<followUpPlaceholder>", "<helpful>", "<copy>", "<thanks>"} <= seen
    assert {"<commentLabel>", "<unreachable>", "<retry>", "<suggestions>", "<sources>", "<newConversation>"} <= seen


def test_a_malformed_strings_attribute_keeps_english(page: Any, served: str) -> None:
    page.goto(host_page(page, served, "strings='{not json' inline"))
    expect(page.locator("[data-askai-send]")).to_have_text("Ask")
    page.goto(host_page(page, served, """strings='{"send": 3, "stop": "Halt"}' inline"""))
    expect(page.locator("[data-askai-send]")).to_have_text("Ask")
    expect(page.locator("[data-askai-stop]")).to_have_text("Halt")
