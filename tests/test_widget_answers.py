"""What the reader sees in a real browser: cards only under a reviewed answer, and why none show otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.answers.events import INTERNAL_ERROR
from askai_graph.state import Source
from tests.browser import answer_dom, ask, open_widget, received
from tests.fakes import (
    LOW_CONFIDENCE,
    PASSING,
    ScriptedChatModel,
    catalog_draft,
    cited_draft,
    exploding_graph,
    replies,
    retriever,
    ungated_graph,
    url,
)
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do retrieval and caching work?"
CATALOG = "What course articles do you have?"
# The widget's renderer configuration (markdown-it's default preset, html/linkify/typographer off).
RENDERER = MarkdownIt("js-default", {"html": False, "linkify": False, "typographer": False})


def serve(
    index_cache: Any, writer: ScriptedChatModel, critic: ScriptedChatModel, search: Any, **options: Any
) -> LiveServer:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, **options)
    graph = build_graph(writer=writer, critic=critic, retriever=search, settings=settings)
    return LiveServer(create_app(graph, settings))


@pytest.fixture(scope="module")
def accepted(index_cache: Any) -> Iterator[str]:
    draft = cited_draft(2, 1) + "\n\n- **Retrieval** finds posts\n- `cache` keys are questions\n"
    with serve(index_cache, replies(draft), replies(PASSING), retriever(1, 2, 3)) as base:
        yield base


def test_accepted_answer_cards_equal_the_sources_event_in_order(page: Any, accepted: str) -> None:
    open_widget(page, f"{accepted}/")
    ask(page, QUESTION)
    [sources] = received(page, "sources")
    cards = page.locator("a[data-askai-source]")
    hrefs = cards.evaluate_all("cards => cards.map(c => c.getAttribute('href'))")
    assert hrefs == [s["anchor_url"] for s in sources]
    assert all(href.startswith(source["url"] + "#") for href, source in zip(hrefs, sources, strict=True))
    assert [s["url"] for s in sources] == [url(2), url(1)]  # cited, in citation order; post 3 was only retrieved
    expect(cards.first).to_contain_text("Page 2")
    expect(cards.first).to_contain_text("site.example/posts/2")
    expect(page.locator("[data-askai-gate-notice]")).to_be_hidden()
    expect(page.locator("[data-askai]")).to_have_attribute("data-state", "done")


def test_accepted_answer_text_is_the_final_answer_rendered(page: Any, accepted: str) -> None:
    open_widget(page, f"{accepted}/")
    ask(page, QUESTION)
    answer = "".join(data["text"] for data in received(page, "token"))
    expected = page.evaluate(
        "html => { const t = document.createElement('template'); t.innerHTML = html; return t.content.textContent; }",
        RENDERER.render(answer),
    )
    dom = answer_dom(page)
    assert dom["text"] == expected
    assert dom["hrefs"] == [url(2), url(1)]
    assert {"ul", "strong", "code"} <= set(dom["htmlTags"])


def test_answer_links_open_in_a_new_tab_without_opener_or_referrer(page: Any, accepted: str) -> None:
    page.goto(f"{accepted}/")
    ask(page, QUESTION)
    for link in page.locator("[data-askai-answer] a, a[data-askai-source]").all():
        assert link.get_attribute("target") == "_blank"
        assert link.get_attribute("rel") == "noopener noreferrer"


NO_CARDS = [
    pytest.param(
        QUESTION,
        replies("See [this](https://evil.example/x)."),
        replies(PASSING),
        retriever(1, 2),
        "fallback",
        "Sources are hidden because no draft passed the checks on its links and review.",
        id="fallback",
    ),
    pytest.param(
        QUESTION,
        replies(cited_draft(1)),
        replies(PASSING),
        retriever(),
        "fallback",
        "I couldn't find this in the site's articles.",
        id="fallback_nothing_retrieved",
    ),
    pytest.param(
        QUESTION,
        replies(cited_draft(1)),
        replies(LOW_CONFIDENCE),
        retriever(1, 2),
        "degraded",
        "Sources are hidden because the answer could not be fully verified by review.",
        id="degraded",
    ),
    pytest.param(
        CATALOG,
        replies(catalog_draft(1, 2, 3, 4)),
        replies(LOW_CONFIDENCE),
        retriever(1, 2, 3, 4, 5),
        "accepted_early",
        "Sources are hidden because the answer was not confirmed by review (low confidence).",
        id="catalog_low_confidence",
    ),
]


@pytest.mark.parametrize(("question", "writer", "critic", "search", "outcome", "notice"), NO_CARDS)
def test_an_answer_without_review_shows_no_cards_and_says_why(
    page: Any, index_cache: Any, question: str, writer: Any, critic: Any, search: Any, outcome: str, notice: str
) -> None:
    with serve(index_cache, writer, critic, search) as base:
        open_widget(page, f"{base}/")
        ask(page, question)
    [done] = received(page, "done")
    assert done["outcome"] == outcome
    expect(page.locator("a[data-askai-source]")).to_have_count(0)
    expect(page.locator("[data-askai-gate-notice]")).to_have_text(notice)
    expect(page.locator("[data-askai-answer]")).not_to_be_empty()


def test_cache_hit_shows_the_answer_and_its_cards_without_steps_and_with_the_cache_mark(
    page: Any, index_cache: Any
) -> None:
    settings = Settings(index_cache_dir=index_cache)
    graph = build_graph(
        writer=replies(cited_draft(2, 1)), critic=replies(PASSING), retriever=retriever(1, 2), settings=settings
    )
    with LiveServer(create_app(graph, settings)) as base:
        open_widget(page, f"{base}/")
        ask(page, QUESTION)
        first = page.locator("[data-askai-answer]").inner_text()
        expect(page.locator("[data-askai-steps] li")).not_to_have_count(0)
        expect(page.locator("[data-askai-cache]")).to_be_hidden()
        ask(page, QUESTION)
    expect(page.locator("[data-askai-cache]")).to_be_visible()
    expect(page.locator("[data-askai-cache]")).to_have_text("Answered from cache")
    expect(page.locator("[data-askai-gate-notice]")).to_be_hidden()
    expect(page.locator("[data-askai-steps] li")).to_have_count(0)
    assert page.locator("[data-askai-answer]").inner_text() == first
    # The cards the fresh answer showed, in their order, under the cached one.
    fresh, cached = received(page, "sources")
    assert [card["url"] for card in fresh] == [url(2), url(1)] and cached == fresh
    hrefs = page.locator("a[data-askai-source]").evaluate_all("cards => cards.map(c => c.getAttribute('href'))")
    assert hrefs == [card["anchor_url"] for card in cached]


def test_an_error_event_shows_the_message_and_retry_asks_again(page: Any, index_cache: Any) -> None:
    with LiveServer(create_app(exploding_graph(), Settings(index_cache_dir=index_cache))) as base:
        page.goto(f"{base}/")
        ask(page, QUESTION)
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "error")
        expect(page.locator("[data-askai-error]")).to_contain_text(INTERNAL_ERROR)
        with page.expect_request(f"{base}/api/chat") as retried:
            page.locator("[data-askai-retry]").click()
        assert retried.value.post_data_json == {"message": QUESTION}
        expect(page.locator("[data-askai-input]")).to_be_focused()
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "error")


def test_an_unreachable_server_shows_a_clear_message(page: Any, accepted: str) -> None:
    page.goto(f"{accepted}/")
    page.route("**/api/chat", lambda route: route.abort("connectionrefused"))
    ask(page, QUESTION)
    expect(page.locator("[data-askai]")).to_have_attribute("data-state", "error")
    expect(page.locator("[data-askai-error]")).to_contain_text("Could not reach the Ask AI server")
    expect(page.locator("[data-askai-retry]")).to_be_visible()


def test_a_refused_question_shows_the_servers_reason(page: Any, index_cache: Any) -> None:
    with serve(index_cache, replies(cited_draft(1)), replies(PASSING), retriever(1), max_question_chars=10) as base:
        page.goto(f"{base}/")
        ask(page, "A question far longer than ten characters")
    expect(page.locator("[data-askai-error]")).to_contain_text("the limit is 10")


STATUS_LOG = """() => {
  window.__status = [];
  const status = document.querySelector("askai-widget").shadowRoot.querySelector("[data-askai-status]");
  // One record per text written, even when several land before the observer runs.
  const log = (records) => records.forEach((r) => r.addedNodes.forEach((n) => window.__status.push(n.textContent)));
  new MutationObserver(log).observe(status, { childList: true });
}"""


def test_progress_is_announced_with_the_attempt_number_on_retries(page: Any, index_cache: Any) -> None:
    with serve(index_cache, replies(cited_draft(1)), replies(LOW_CONFIDENCE), retriever(1, 2)) as base:
        page.goto(f"{base}/")
        # The widget announces its intro once it is set up: log only what follows the question.
        expect(page.locator("[data-askai-status]")).to_have_text("Ask a question about this site's articles.")
        page.evaluate(STATUS_LOG)
        ask(page, QUESTION)
    assert page.locator("[data-askai-status]").get_attribute("aria-live") == "polite"
    announced = page.evaluate("window.__status")
    assert announced[:4] == ["Searching the articles…", "Writing…", "Checking links…", "Reviewing…"]
    assert "Revising… (attempt 1)" not in announced and "Revising…" in announced
    assert "Writing… (attempt 2)" in announced and "Writing… (attempt 3)" in announced
    assert announced[-1] == "Answer ready."


def test_the_copy_button_copies_a_code_block(browser: Any, index_cache: Any) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    draft = cited_draft(1) + "\n\n```python\nprint('cached')\n```\n"
    with serve(index_cache, replies(draft), replies(PASSING), retriever(1)) as base:
        page.goto(f"{base}/")
        ask(page, QUESTION)
    page.locator("[data-askai-copy]").click()
    expect(page.locator("[data-askai-copy]")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "print('cached')\n"
    context.close()


def test_a_source_that_is_not_an_http_url_never_becomes_a_card(page: Any, index_cache: Any) -> None:
    # The Source Gate only lists retrieved http(s) URLs; this bypasses it to test the widget's own check.
    sources = [Source(title="Page 1", url=url(1)), Source(title="Click me", url="javascript:alert(1)")]
    graph = ungated_graph(cited_draft(1), sources)
    with LiveServer(create_app(graph, Settings(index_cache_dir=index_cache, cache_enabled=False))) as base:
        page.goto(f"{base}/")
        ask(page, QUESTION)
    cards = page.locator("a[data-askai-source]")
    assert cards.evaluate_all("cards => cards.map(c => c.getAttribute('href'))") == [url(1)]
