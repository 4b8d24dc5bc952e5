"""Copying and linking in the widget: a code block and the answer to the clipboard, ``?askai=`` links."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.browser import host_page, open_widget, received, requests_reported, settled
from tests.fakes import PASSING, cited_draft, replies, retriever, url
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do retrieval and caching work?"
# Indentation, a tab, a blank line, trailing spaces and characters HTML would escape.
CODE = "def cached(key):\n    if key < 1 and '&' in \"<b>\":  \n\treturn {}\n\n    return None\n"
DRAFT = f"{cited_draft(1)}\n\n```python\n{CODE}```\n"
DONE = "root.querySelector('[data-askai]').dataset.state === 'done'"


@pytest.fixture(scope="module")
def served(index_cache: Any) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    graph = build_graph(writer=replies(DRAFT), critic=replies(PASSING), retriever=retriever(1), settings=settings)
    with LiveServer(create_app(graph, settings)) as base:
        yield base


@pytest.fixture
def clipboard_page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    yield context.new_page()
    context.close()


def ask(page: Any, question: str = QUESTION) -> None:
    page.locator("[data-askai-input]").fill(question)
    page.locator("[data-askai-input]").press("Enter")
    settled(page, DONE)


def clipboard(page: Any) -> str:
    return str(page.evaluate("navigator.clipboard.readText()"))


def test_copy_puts_the_code_blocks_exact_text_on_the_clipboard(clipboard_page: Any, served: str) -> None:
    clipboard_page.goto(f"{served}/")
    ask(clipboard_page)
    copy = clipboard_page.locator("[data-askai-copy]")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert clipboard(clipboard_page) == CODE
    expect(copy).to_have_text("Copy", timeout=3000)


def test_copy_as_markdown_copies_the_answer_as_sent_with_its_sources(clipboard_page: Any, served: str) -> None:
    open_widget(clipboard_page, f"{served}/")
    ask(clipboard_page)
    answer = "".join(token["text"] for token in received(clipboard_page, "token"))
    assert answer.strip() == DRAFT.strip()
    clipboard_page.locator("[data-askai-copy-answer]").click()
    expect(clipboard_page.locator("[data-askai-copy-answer]")).to_have_text("Copied")
    assert clipboard(clipboard_page) == f"{answer.rstrip()}\n\nSources:\n\n- [Page 1](<{url(1)}>)\n"


def test_a_deep_link_opens_the_launcher_and_asks_on_load(page: Any, served: str) -> None:
    bodies: list[Any] = []
    page.on("request", lambda r: bodies.append(r.post_data_json) if r.url.endswith("/api/chat") else None)
    # A conversation already kept in this tab: the linked question starts its own.
    record = json.dumps({"threadId": "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", "turns": []})
    page.add_init_script(f"sessionStorage.setItem({json.dumps(f'askai:{served}/')}, {json.dumps(record)})")
    link = host_page(page, served) + f"?topic=1&askai={quote(QUESTION)}#intro"
    open_widget(page, link)
    expect(page.locator("[data-askai]")).to_be_visible()
    settled(page, DONE)
    assert bodies == [{"message": QUESTION}]
    expect(page.locator("[data-askai-question]")).to_have_text(QUESTION)
    # Asked once: the parameter leaves the address, so a reload goes on with the conversation.
    assert page.url == host_page(page, served) + "?topic=1#intro"
    page.reload()
    expect(page.locator("[data-askai-open]")).to_be_visible()  # started: it would have asked again
    requests_reported(page)
    assert len(bodies) == 1


def test_the_link_parameter_is_configurable(page: Any, served: str) -> None:
    bodies: list[Any] = []
    page.on("request", lambda r: bodies.append(r.post_data_json) if r.url.endswith("/api/chat") else None)
    base = host_page(page, served, 'inline link-param="q"')
    page.goto(f"{base}?askai=Ignored")
    expect(page.locator("[data-askai-status]")).to_have_text("Ask a question about this site's articles.")
    page.goto(f"{base}?q={quote(QUESTION)}")
    settled(page, DONE)
    assert bodies == [{"message": QUESTION}]


def test_without_a_link_parameter_there_is_no_deep_link_and_no_share(page: Any, served: str) -> None:
    page.goto(host_page(page, served, 'inline link-param=""') + f"?askai={quote(QUESTION)}")
    expect(page.locator("[data-askai-status]")).to_have_text("Ask a question about this site's articles.")
    ask(page)
    expect(page.locator("[data-askai-share]")).to_be_hidden()


def test_share_copies_a_link_that_asks_the_question(clipboard_page: Any, served: str) -> None:
    base = host_page(clipboard_page.context, served, "inline")
    clipboard_page.goto(f"{base}?topic=1#intro")
    ask(clipboard_page)
    share = clipboard_page.locator("[data-askai-share]")
    share.click()
    expect(share).to_have_text("Link copied")
    link = clipboard(clipboard_page)
    assert link == f"{base}?topic=1&askai={quote(QUESTION).replace('%20', '+')}"
    opened = clipboard_page.context.new_page()
    opened.goto(link)
    settled(opened, DONE)
    expect(opened.locator("[data-askai-question]")).to_have_text(QUESTION)
