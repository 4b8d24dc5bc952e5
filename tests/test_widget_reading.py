"""What a reader meets in a long conversation: where the view goes, what a 404, a second tab,
a deep link and Esc do to it.

The server is the default app (it serves ``widget.js``); ``/api/chat`` is answered by a stub
in the browser, so each answer is as long and on the thread the test needs.
"""

from __future__ import annotations

import asyncio
import json
import queue
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from starlette.types import ASGIApp, Receive, Scope, Send

from askai_graph import Settings
from askai_graph.server import create_app
from tests.browser import host_page, settled
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

TOKEN = "t" * 43
# Long enough to overflow the dialog's body several times over.
LONG = "\n\n".join(f"Paragraph {n} of a long answer, which wraps onto a second line in the dialog." for n in range(14))
DONE = "/^(done|error)$/.test(root.querySelector('[data-askai]').dataset.state)"
# Where a node of the widget is, relative to the dialog's scrolling body: its top, and the body's height.
PLACE = """([selector, index]) => {
  const root = document.querySelector("askai-widget").shadowRoot;
  const body = root.querySelector("[data-askai-body]").getBoundingClientRect();
  const node = root.querySelectorAll(selector)[index ?? 0].getBoundingClientRect();
  return { top: node.top - body.top, height: body.height };
}"""


@pytest.fixture(scope="module")
def server(index_cache: Any) -> Iterator[str]:
    with LiveServer(create_app(settings=Settings(index_cache_dir=index_cache, cache_enabled=False))) as base:
        yield base


class HeldChat:
    """The app, but ``POST /api/chat`` streams what the test puts in ``chunks``, as it puts it (``None`` ends it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.chunks: queue.Queue[str | None] = queue.Queue()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/api/chat":
            return await self.app(scope, receive, send)
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        loop = asyncio.get_running_loop()
        while (chunk := await loop.run_in_executor(None, self.chunks.get, True, 30)) is not None:
            await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


@pytest.fixture
def held_chat(index_cache: Any) -> Iterator[tuple[str, HeldChat]]:
    app = HeldChat(create_app(settings=Settings(index_cache_dir=index_cache, cache_enabled=False)))
    with LiveServer(app) as base:  # type: ignore[arg-type]
        yield base, app
        app.chunks.put(None)


def token(text: str) -> str:
    return f"event: token\ndata: {json.dumps({'text': text})}\n\n"


def done_event(thread: str = "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", run: str = "") -> str:
    """The SSE ``done`` of an accepted answer on ``thread``."""
    done = {"outcome": "accepted", "attempts": 1, "cached": False, "gates": {}, "thread_id": thread,
            "thread_token": TOKEN, "run_id": run or None}  # fmt: skip
    return f"event: done\ndata: {json.dumps(done)}\n\n"


def answer(text: str, thread: str = "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", run: str = "") -> str:
    """An SSE answer: ``text``, then ``done`` on ``thread``."""
    return token(text) + done_event(thread, run)


def stub_chat(target: Any, reply: Any) -> list[dict[str, Any]]:
    """Answer every ``POST /api/chat`` of ``target`` (a page or context) with ``reply(body)``; return the bodies."""
    bodies: list[dict[str, Any]] = []

    def handle(route: Any) -> None:
        body = route.request.post_data_json
        bodies.append(body)
        status, text = reply(body)
        kind = "text/event-stream" if status == 200 else "application/json"
        route.fulfill(status=status, content_type=kind, body=text)

    target.route("**/api/chat", handle)
    return bodies


def long_answers(body: dict[str, Any]) -> tuple[int, str]:
    return 200, answer(f"{body['message']}\n\n{LONG}", run=f"run-{body['message']}")


def ask(page: Any, question: str) -> None:
    page.locator("[data-askai-input]").fill(question)
    page.locator("[data-askai-input]").press("Enter")
    settled(page, DONE)


def stored(page: Any, base: str, kind: str = "sessionStorage") -> Any:
    return page.evaluate(f"JSON.parse({kind}.getItem({json.dumps(f'askai:{base}/')}))")


def keep(page: Any, base: str, questions: list[str], thread: str = "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10") -> None:
    """Before the page loads, leave a conversation of ``questions`` (long answers) in the tab's storage."""
    done = {"outcome": "accepted", "attempts": 1, "cached": False, "gates": {}, "thread_id": thread, "run_id": None}
    turns = [{"question": q, "text": f"{q}\n\n{LONG}", "sources": [], "done": done, "rating": None} for q in questions]
    record = json.dumps({"threadId": thread, "threadToken": TOKEN, "turns": turns})
    page.add_init_script(f"sessionStorage.setItem({json.dumps(f'askai:{base}/')}, {json.dumps(record)})")


def test_a_new_answer_starts_at_the_top_of_the_dialogs_view(page: Any, server: str) -> None:
    stub_chat(page, long_answers)
    page.goto(host_page(page, server))
    page.locator("[data-askai-open]").click()
    ask(page, "First question?")
    ask(page, "Second question?")
    place = page.evaluate(PLACE, ["[data-askai-turn]", 1])
    # The second turn's question is at the top of the view and its answer fills the rest,
    # not a few pixels of it peeking in at the bottom.
    assert 0 <= place["top"] <= 20, place
    answer_top = page.evaluate(PLACE, ["[data-askai-answer]", 0])["top"]
    assert answer_top < place["height"] / 3, answer_top


def test_the_view_moves_with_the_stream_only_while_the_reader_is_at_its_end(
    page: Any, held_chat: tuple[str, HeldChat]
) -> None:
    base, chat = held_chat
    keep(page, base, ["First question?"])
    page.goto(host_page(page, base))
    page.locator("[data-askai-open]").click()
    page.locator("[data-askai-input]").fill("Second question?")
    page.locator("[data-askai-input]").press("Enter")
    settled(page, "root.querySelectorAll('[data-askai-turn]').length === 2")
    # The question goes to the top of the view at once, before any answer, and stays there.
    assert 0 <= page.evaluate(PLACE, ["[data-askai-turn]", 1])["top"] <= 20
    chat.chunks.put(token(LONG))
    settled(page, "root.querySelector('[data-askai-answer]').textContent.includes('Paragraph 13')")
    assert 0 <= page.evaluate(PLACE, ["[data-askai-turn]", 1])["top"] <= 20
    body = page.locator("[data-askai-body]")
    frame = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    # A reader who scrolls down to read ahead is left there as the answer grows.
    ahead = body.evaluate("b => { b.scrollTop += 100; return b.scrollTop; }")
    page.evaluate(frame)
    chat.chunks.put(token("\n\nMore text, read later."))
    settled(page, "root.querySelector('[data-askai-answer]').textContent.includes('read later')")
    page.evaluate(frame)
    assert body.evaluate("b => b.scrollTop") == ahead
    # A reader at the end of the answer follows it.
    body.evaluate("b => { b.scrollTop = b.scrollHeight; }")
    page.evaluate(frame)
    chat.chunks.put(token("\n\n" + LONG.replace("Paragraph", "Section")))
    settled(page, "root.querySelector('[data-askai-answer]').textContent.includes('Section 13')")
    page.evaluate(frame)
    assert body.evaluate("b => b.scrollHeight - b.clientHeight - b.scrollTop") <= 2
    chat.chunks.put(done_event())
    chat.chunks.put(None)
    settled(page, DONE)


def test_a_reader_who_scrolled_up_while_waiting_is_left_where_they_are(page: Any, server: str) -> None:
    keep(page, server, ["First question?", "Second question?"])
    held: list[Any] = []
    page.route("**/api/chat", lambda route: held.append(route))  # answered when the test says so
    page.goto(host_page(page, server))
    page.locator("[data-askai-open]").click()
    page.locator("[data-askai-input]").fill("Third question?")
    page.locator("[data-askai-input]").press("Enter")
    settled(page, "root.querySelectorAll('[data-askai-turn]').length === 3")
    body = page.locator("[data-askai]").locator("[data-askai-body]")
    assert body.evaluate("b => b.scrollTop") > 0  # the new turn was brought into view
    body.evaluate("b => { b.scrollTop = 0; }")  # the reader goes back to the first answer
    while not held:
        page.wait_for_timeout(50)
    held[0].fulfill(status=200, content_type="text/event-stream", body=answer(f"Third question?\n\n{LONG}"))
    settled(page, DONE)
    assert body.evaluate("b => b.scrollTop") == 0


def test_after_a_reload_the_dialog_opens_at_the_latest_turn(page: Any, server: str) -> None:
    keep(page, server, ["First question?", "Second question?", "Third question?"])
    page.goto(host_page(page, server))
    page.locator("[data-askai-open]").click()
    expect(page.locator("[data-askai-turn]")).to_have_count(3)
    place = page.evaluate(PLACE, ["[data-askai-turn]", 2])
    assert 0 <= place["top"] <= 20, place


def test_an_expired_thread_leaves_screen_and_storage_agreeing_and_its_notice_in_view(page: Any, server: str) -> None:
    keep(page, server, ["An old question?", "Another old question?"])
    expired = (404, '{"detail": "unknown thread"}')
    bodies = stub_chat(page, lambda body: expired if "thread_id" in body else long_answers(body))
    page.goto(host_page(page, server))
    page.locator("[data-askai-open]").click()
    ask(page, "A new question?")
    assert bodies == [
        {"message": "A new question?", "thread_id": "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", "thread_token": TOKEN},
        {"message": "A new question?"},
    ]
    # The old turns are gone from the screen as from storage: only the new question's turn is left.
    expect(page.locator("[data-askai-turn]")).to_have_count(1)
    expect(page.locator("[data-askai-turn] .question")).to_have_text("A new question?")
    assert [turn["question"] for turn in stored(page, server)["turns"]] == ["A new question?"]
    notice = page.locator("[data-askai-thread-notice]")
    expect(notice).to_have_text("That conversation had expired, so this question starts a new one.")
    expect(notice).to_be_in_viewport()


def test_two_tabs_with_persist_local_keep_both_turns_and_one_thread(browser: Any, server: str) -> None:
    context = browser.new_context()
    bodies = stub_chat(context, lambda b: (200, answer(b["message"], "thread-one", f"run-{b['message']}")))
    url = host_page(context, server, 'inline persist="local"')
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)  # open before the first tab asks: its memory holds no turn
    ask(first, "First question?")
    expect(second.locator("[data-askai-turn]")).to_have_count(1)  # the other tab's answer shows here too
    ask(second, "Second question?")
    kept = stored(second, server, "localStorage")
    expect(first.locator("[data-askai-turn]")).to_have_count(2)
    context.close()
    # The second tab continued the first tab's thread and kept its turn: nothing was overwritten.
    assert bodies[1] == {"message": "Second question?", "thread_id": "thread-one", "thread_token": TOKEN}
    assert [turn["question"] for turn in kept["turns"]] == ["First question?", "Second question?"]


def test_two_tabs_answering_at_once_keep_both_turns(browser: Any, server: str) -> None:
    context = browser.new_context()
    stub_chat(context, lambda b: (200, answer(b["message"], run=f"run-{b['message']}")))
    url = host_page(context, server, 'inline persist="local"')
    first, second = context.new_page(), context.new_page()
    first.goto(url)
    second.goto(url)
    # Both asked before either saw the other's answer (as two tabs streaming at the same time).
    second.evaluate("window.addEventListener('storage', (e) => e.stopImmediatePropagation(), true)")
    ask(first, "Asked in the first tab?")
    ask(second, "Asked in the second tab?")
    kept = stored(first, server, "localStorage")
    context.close()
    assert sorted(turn["question"] for turn in kept["turns"]) == ["Asked in the first tab?", "Asked in the second tab?"]


def test_escape_returns_focus_to_where_the_reader_was_before_ctrl_k(page: Any, server: str) -> None:
    page.goto(host_page(page, server))
    link = page.locator("main a")
    link.focus()
    page.keyboard.press("Control+k")
    expect(page.locator("[data-askai-input]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("[data-askai]")).to_be_hidden()
    expect(link).to_be_focused()
    # Opened with the button, Esc goes back to the button.
    page.locator("[data-askai-open]").click()
    page.keyboard.press("Escape")
    expect(page.locator("[data-askai-open]")).to_be_focused()


def test_a_deep_link_does_not_replace_a_conversation_in_progress(page: Any, server: str) -> None:
    keep(page, server, ["An earlier question?"])
    bodies = stub_chat(page, long_answers)
    page.goto(host_page(page, server) + f"?askai={quote('A linked question?')}")
    expect(page.locator("[data-askai]")).to_be_visible()
    # Nothing asked yet: the question waits in the box, the conversation is still there, a notice says so.
    expect(page.locator("[data-askai-input]")).to_have_value("A linked question?")
    expect(page.locator("[data-askai-turn]")).to_have_count(1)
    notice = page.locator("[data-askai-thread-notice]")
    expect(notice).to_contain_text("press Ask to add it to this conversation, or New conversation to start over")
    expect(notice).to_be_in_viewport()
    assert bodies == []
    # Asked here, it continues the conversation.
    page.locator("[data-askai-input]").press("Enter")
    settled(page, DONE)
    assert bodies == [
        {"message": "A linked question?", "thread_id": "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", "thread_token": TOKEN}
    ]
    expect(page.locator("[data-askai-turn]")).to_have_count(2)
    expect(notice).to_be_hidden()
