"""Adversarial drafts through the real graph and the real widget: only retrieved URLs ever become live.

Every draft of the held-in validation suites (rejected, adversarial and valid ones) is
served by a graph whose Writer returns it and whose Critic always passes, so the
Validation gate alone decides. Whatever the outcome, the rendered answer holds no link,
image or SVG link outside the retrieved set, and no raw HTML became an element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.browser import answer_dom, ask, open_widget, received, settled
from tests.fakes import PASSING, FakeRetriever, ScriptedChatModel, replies, ungated_graph
from tests.live import LiveServer
from tests.test_validation_graph import ADVERSARIAL
from tests.test_validation_rules import REJECTED
from tests.test_validation_valid import IMG1, LINK1, LINK2, LINK3, VALID

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DRAFTS = (
    [(f"rejected_{name}", draft) for name, draft, _ in REJECTED]
    + [(f"graph_{name}", draft) for name, draft in ADVERSARIAL]
    + [(f"valid_{name}", draft) for name, draft in VALID]
)
RETRIEVED_LINKS = {LINK1, LINK2, LINK3}
RETRIEVED_IMAGES = {IMG1}
# What markdown-it (html off) emits, plus the widget's own code-block wrapper and copy button.
MARKDOWN_TAGS = {
    "a", "blockquote", "br", "code", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "img", "li", "ol", "p",
    "pre", "s", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul", "div", "button",
}  # fmt: skip
NEVER_IN_SVG = {"script", "iframe", "object", "embed", "foreignobject-script", "use", "animate", "set"}
_MARKER = re.compile(r"zqdraft(\d+)")


class DraftByQuestion(ScriptedChatModel):
    """A Writer that returns ``DRAFTS[n]`` for a question containing ``zqdraft<n>``."""

    def _next(self, messages: list[BaseMessage]) -> ChatResult:
        found = _MARKER.search("\n".join(str(m.content) for m in messages))
        assert found, "the question carries no draft marker"
        reply = DRAFTS[int(found.group(1))][1]
        return ChatResult(generations=[ChatGeneration(message=self._message(reply))])

    @staticmethod
    def _message(text: str) -> Any:
        from langchain_core.messages import AIMessage

        return AIMessage(content=text)


def documents() -> list[Document]:
    def doc(url: str, title: str, images: list[dict[str, str]] | None = None) -> Document:
        return Document(
            page_content=f"{title} explains caching.",
            metadata={"source_url": url, "title": title, "images": images or []},
        )

    return [doc(LINK1, "Page 1", [{"url": IMG1, "alt": "diagram"}]), doc(LINK2, "Page 2"), doc(LINK3, "Cache")]


@pytest.fixture(scope="module")
def widget(browser: Any, index_cache: Any) -> Iterator[Any]:
    """One server and one page for every draft."""
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    search = FakeRetriever(documents=documents(), queries=[])
    graph = build_graph(
        writer=DraftByQuestion(script=[""]), critic=replies(PASSING), retriever=search, settings=settings
    )
    context = browser.new_context()
    page = context.new_page()
    with LiveServer(create_app(graph, settings)) as base:
        open_widget(page, f"{base}/")
        yield page
    context.close()


@pytest.mark.parametrize("index", range(len(DRAFTS)), ids=[name for name, _ in DRAFTS])
def test_only_retrieved_urls_are_live_and_no_raw_html_becomes_an_element(widget: Any, index: int) -> None:
    ask(widget, f"How does caching work? zqdraft{index}")
    # Diagrams render after "done": wait until each one rendered or failed.
    settled(widget, "!root.querySelector('[data-askai-mermaid=\"\"]')")
    dom = answer_dom(widget)
    assert set(dom["hrefs"]) <= RETRIEVED_LINKS
    assert set(dom["srcs"]) <= RETRIEVED_IMAGES
    assert set(dom["svgLinks"]) <= RETRIEVED_LINKS
    assert set(dom["htmlTags"]) <= MARKDOWN_TAGS
    assert not set(dom["svgTags"]) & NEVER_IN_SVG
    assert dom["handlers"] == []
    done = received(widget, "done")[-1]
    cards = widget.locator("a[data-askai-source]")
    if done["outcome"] == "accepted":
        # Cards are the retrieved posts the answer cites (none for a draft citing
        # nothing): every link the answer makes live has its card, and no card is
        # anything but a retrieved post.
        # A card links to its anchored place on the page: the page URL plus a fragment.
        hrefs = {h.split("#")[0] for h in cards.evaluate_all("cards => cards.map(c => c.getAttribute('href'))")}
        assert set(dom["hrefs"]) <= hrefs <= RETRIEVED_LINKS
    else:
        expect(cards).to_have_count(0)


UNGATED = (
    "Raw HTML: <script>window.__fired = 1</script> <img src=x onerror=\"window.__fired = 2\"> "
    '<a href="https://evil.example/x">evil</a> <iframe src="https://evil.example/"></iframe>\n\n'
    "<div onclick=\"window.__fired = 3\">block</div>\n\n"
    "A bare https://evil.example/bare and www.evil.example and mail@evil.example.\n\n"
    "[js](javascript:alert(1)) [data](data:text/html,x) ![i](javascript:alert(1))\n"
)


def test_the_renderer_alone_keeps_raw_html_and_bare_urls_as_text(page: Any, index_cache: Any) -> None:
    # The gate would refuse this answer; served ungated, it tests the widget's renderer configuration.
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    with LiveServer(create_app(ungated_graph(UNGATED), settings)) as base:
        page.goto(f"{base}/")
        ask(page, "Anything")
    dom = answer_dom(page)
    assert dom["hrefs"] == [] and dom["srcs"] == []
    assert set(dom["htmlTags"]) == {"p"}
    assert dom["handlers"] == []
    assert "<script>window.__fired = 1</script>" in dom["text"]
    assert page.evaluate("window.__fired") is None
