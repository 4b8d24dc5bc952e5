"""Conversations in the widget: follow-ups continue the server's thread, per tab; the transcript stays.

Real servers on 127.0.0.1 and Debian's Chromium. The follow-up tests run the default app
over the bundled sample site (offline Writer, Critic and Condenser), whose threads live
in process memory: "How do I tune its parameters?" only finds the BM25 article when the
server condenses it with the thread's first question.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from playwright.sync_api import expect

from askai_graph import Settings, build_graph
from askai_graph.models.prompts import CLARIFY_ANSWER
from askai_graph.server import create_app
from tests.browser import ask, host_page, open_widget, received
from tests.fakes import PASSING, WallClockAhead, cited_draft, replies, retriever, url
from tests.live import LiveServer
from tests.test_server_threads import BM25_POST, FOLLOW_UP, chat

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

FIRST = "What is BM25?"


@pytest.fixture(scope="module")
def demo(index_cache: Any) -> Iterator[str]:
    """What ``askai serve`` runs, threads in memory; the cache off so every answer runs the graph."""
    with LiveServer(create_app(settings=Settings(index_cache_dir=index_cache, cache_enabled=False))) as base:
        yield base


def chat_bodies(page: Any) -> list[dict[str, Any]]:
    """Record the JSON body of every ``POST /api/chat`` the page sends (the list fills as it goes)."""
    bodies: list[dict[str, Any]] = []
    page.on("request", lambda r: bodies.append(r.post_data_json) if r.url.endswith("/api/chat") else None)
    return bodies


def stored_thread(page: Any, base: str, thread_id: str, token: str | None = None) -> None:
    """Before the page loads, leave ``thread_id`` (and its token) in this tab's storage, as an earlier visit would."""
    record = json.dumps({"threadId": thread_id, "threadToken": token, "turns": []})
    page.add_init_script(f"sessionStorage.setItem({json.dumps(f'askai:{base}/')}, {json.dumps(record)})")


def storage(page: Any, base: str, kind: str = "sessionStorage") -> dict[str, Any]:
    """The conversation the widget keeps for ``base`` in the page's ``kind`` storage."""
    return dict(page.evaluate(f"JSON.parse({kind}.getItem({json.dumps(f'askai:{base}/')}))"))


def owned(page: Any, base: str, kind: str = "sessionStorage") -> dict[str, str]:
    """The thread fields a follow-up sends: the stored thread's id and token."""
    kept = storage(page, base, kind)
    return {"thread_id": kept["threadId"], "thread_token": kept["threadToken"]}


def test_a_follow_up_carries_the_thread_and_is_condensed_on_the_server(page: Any, demo: str) -> None:
    bodies = chat_bodies(page)
    open_widget(page, f"{demo}/")
    ask(page, FIRST)
    ask(page, FOLLOW_UP)
    first, follow_up = received(page, "done")
    assert bodies == [{"message": FIRST}, {"message": FOLLOW_UP, **owned(page, demo)}]
    assert owned(page, demo)["thread_id"] == first["thread_id"]
    assert follow_up["thread_id"] == first["thread_id"]
    # Alone, the follow-up names no topic (a fresh thread answers CLARIFY_ANSWER); condensed, it finds BM25.
    assert follow_up["outcome"] == "accepted"
    assert received(page, "sources")[-1][0]["url"] == BM25_POST
    expect(page.locator("a[data-askai-source]").first).to_have_attribute("href", re.compile(re.escape(BM25_POST + "#")))


def test_the_threads_token_is_kept_in_storage_and_sent_but_never_shown_to_the_page(page: Any, demo: str) -> None:
    bodies = chat_bodies(page)
    open_widget(page, f"{demo}/")
    ask(page, FIRST)
    kept = storage(page, demo)
    ask(page, FOLLOW_UP)
    token = kept["threadToken"]
    assert isinstance(token, str) and len(token) == 43
    # Sent with the id, and the server took it: no 404 and retry, and the follow-up was condensed on the thread.
    assert bodies == [{"message": FIRST}, {"message": FOLLOW_UP, "thread_id": kept["threadId"], "thread_token": token}]
    assert received(page, "sources")[-1][0]["url"] == BM25_POST
    # The page's listeners (analytics) and the stored turns never see it.
    assert all("thread_token" not in done for done in received(page, "done"))
    assert token not in json.dumps(storage(page, demo)["turns"])


def test_a_stored_thread_without_its_token_is_refused_and_replaced(page: Any, demo: str) -> None:
    first = chat(demo, FIRST).done
    stored_thread(page, demo, first["thread_id"])  # as a widget before tokens kept it: the id alone
    bodies = chat_bodies(page)
    open_widget(page, f"{demo}/")
    ask(page, FOLLOW_UP)
    assert bodies == [{"message": FOLLOW_UP, "thread_id": first["thread_id"]}, {"message": FOLLOW_UP}]
    expect(page.locator("[data-askai-answer]")).to_have_text(CLARIFY_ANSWER)  # not the owner's BM25 thread
    assert storage(page, demo)["threadId"] != first["thread_id"]


def test_the_transcript_keeps_every_turn_and_the_hooks_follow_the_latest(page: Any, demo: str) -> None:
    open_widget(page, f"{demo}/")
    ask(page, FIRST)
    ask(page, FOLLOW_UP)
    turns = page.locator("[data-askai-turn]")
    expect(turns).to_have_count(2)
    expect(turns.first).to_contain_text(FIRST)
    expect(turns.first.locator(".answer")).not_to_be_empty()
    # The public hooks name the current answer only: one of each, in the second turn.
    expect(page.locator("[data-askai-answer]")).to_have_count(1)
    expect(turns.last.locator("[data-askai-answer]")).to_have_count(1)
    expect(page.locator("[data-askai-question]")).to_have_text(FOLLOW_UP)
    cards = page.locator("a[data-askai-source]")
    assert cards.count() == turns.last.locator("a[data-askai-source]").count() > 0


def test_new_conversation_drops_the_thread(page: Any, demo: str) -> None:
    bodies = chat_bodies(page)
    open_widget(page, f"{demo}/")
    ask(page, FIRST)
    page.locator("[data-askai-new]").click()
    expect(page.locator("[data-askai-turn]")).to_have_count(0)
    expect(page.locator("[data-askai-input]")).to_be_focused()
    ask(page, FOLLOW_UP)
    assert bodies[-1] == {"message": FOLLOW_UP}
    first, second = received(page, "done")
    assert second["thread_id"] != first["thread_id"]
    expect(page.locator("[data-askai-answer]")).to_have_text(CLARIFY_ANSWER)


def test_the_thread_lasts_for_the_tab_and_its_transcript_comes_back_on_the_next_page(
    browser: Any, page: Any, demo: str
) -> None:
    bodies = chat_bodies(page)
    open_widget(page, f"{demo}/")
    ask(page, FIRST)
    [first] = received(page, "done")
    page.reload()
    expect(page.locator("[data-askai-turn]")).to_have_count(1)
    expect(page.locator("[data-askai-turn]")).to_contain_text(FIRST)
    ask(page, FOLLOW_UP)
    assert bodies[-1] == {"message": FOLLOW_UP, **owned(page, demo)}
    assert bodies[-1]["thread_id"] == first["thread_id"]
    # Another tab (sessionStorage is per tab) starts its own conversation.
    other = page.context.new_page()
    other.goto(f"{demo}/")
    expect(other.locator("[data-askai-status]")).to_have_text("Ask a question about this site's articles.")
    expect(other.locator("[data-askai-turn]")).to_have_count(0)


def test_persist_local_shares_the_conversation_between_tabs(browser: Any, index_cache: Any) -> None:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    context = browser.new_context()
    with LiveServer(create_app(settings=settings)) as base:
        local = host_page(context, base, 'inline persist="local"')
        page = context.new_page()
        open_widget(page, local)
        ask(page, FIRST)
        [first] = received(page, "done")
        other = context.new_page()
        bodies = chat_bodies(other)
        other.goto(local)
        expect(other.locator("[data-askai-turn]")).to_have_count(1)
        ask(other, FOLLOW_UP)
        kept = owned(other, base, "localStorage")
    context.close()
    assert bodies == [{"message": FOLLOW_UP, **kept}] and kept["thread_id"] == first["thread_id"]


def test_an_expired_thread_starts_a_new_one_with_a_one_line_notice(page: Any, index_cache: Any) -> None:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False, thread_ttl_hours=1)
    clock = WallClockAhead()
    with LiveServer(create_app(settings=settings, clock=clock)) as base:
        bodies = chat_bodies(page)
        open_widget(page, f"{base}/")
        ask(page, FIRST)
        expired = owned(page, base)
        clock.skip(timedelta(hours=1, seconds=1))  # the thread's last answer is now older than its lifetime
        ask(page, "How does BM25 rank pages?")
    first, second = received(page, "done")
    assert bodies == [
        {"message": FIRST},
        {"message": "How does BM25 rank pages?", **expired},  # refused: 404
        {"message": "How does BM25 rank pages?"},
    ]
    assert expired["thread_id"] == first["thread_id"]
    assert second["thread_id"] != first["thread_id"] and second["outcome"] == "accepted"
    expect(page.locator("[data-askai-thread-notice]")).to_have_text(
        "That conversation had expired, so this question starts a new one."
    )
    expect(page.locator("[data-askai-error]")).to_be_hidden()
    # The next question continues the new thread, with the new thread's token.
    ask(page, FOLLOW_UP)
    assert bodies[-1] == {"message": FOLLOW_UP, **owned(page, base)}
    assert bodies[-1]["thread_id"] == second["thread_id"] and bodies[-1]["thread_token"] != expired["thread_token"]


def test_an_unknown_stored_thread_is_replaced_transparently(page: Any, demo: str) -> None:
    stale = "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10"
    stored_thread(page, demo, stale)
    bodies = chat_bodies(page)
    open_widget(page, f"{demo}/")
    ask(page, FIRST)
    assert bodies == [{"message": FIRST, "thread_id": stale}, {"message": FIRST}]
    [done] = received(page, "done")
    assert done["thread_id"] != stale
    expect(page.locator("[data-askai-thread-notice]")).to_be_visible()


def test_a_thread_still_streaming_elsewhere_disables_the_input_until_the_answer_is_done(
    page: Any, index_cache: Any
) -> None:
    settings = Settings(index_cache_dir=index_cache, cache_enabled=False)
    graph = build_graph(
        writer=replies(cited_draft(1), delay=3.0),
        critic=replies(PASSING),
        retriever=retriever(1),
        settings=settings,
        checkpointer=InMemorySaver(),
    )
    with LiveServer(create_app(graph, settings)) as base:
        thread = chat(base, "How does caching work?").done
        thread_id = thread["thread_id"]
        # Another tab's answer on the same thread holds it for about 3 s.
        started = threading.Event()
        elsewhere = threading.Thread(target=chat, args=(base, "How does retrieval work?", thread, started))
        elsewhere.start()
        assert started.wait(10)
        stored_thread(page, base, thread_id, thread["thread_token"])
        bodies = chat_bodies(page)
        open_widget(page, f"{base}/")
        page.locator("[data-askai-input]").fill("How does streaming work?")
        page.locator("[data-askai-input]").press("Enter")
        expect(page.locator("[data-askai-input]")).to_be_disabled()
        expect(page.locator("[data-askai-status]")).to_have_text(
            "An earlier answer in this conversation is still being written; your question follows it."
        )
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "done", timeout=20_000)
        elsewhere.join(10)
    expect(page.locator("[data-askai-input]")).to_be_enabled()
    # Refused (409) while the other answer streamed, then asked again on the same thread.
    assert len(bodies) >= 2
    sent = {"message": "How does streaming work?", "thread_id": thread_id, "thread_token": thread["thread_token"]}
    assert all(body == sent for body in bodies)
    [done] = received(page, "done")
    assert done["thread_id"] == thread_id and done["outcome"] == "accepted"
    expect(page.locator("a[data-askai-source]")).to_have_attribute("href", re.compile(re.escape(url(1) + "#")))


def test_a_long_conversation_keeps_its_last_twenty_turns_on_screen_and_in_storage(page: Any, demo: str) -> None:
    # Answered by a stub: this is about the widget's bound, not the server.
    answer = (
        'event: token\ndata: {"text": "An answer."}\n\n'
        'event: done\ndata: {"outcome": "accepted", "attempts": 1, "cached": false, "gates": {}, '
        '"thread_id": "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", "run_id": "0b5e9c1e-2f7a-4c1d-8a55-2d9e8f6c4b3a"}\n\n'
    )
    page.route("**/api/chat", lambda route: route.fulfill(content_type="text/event-stream", body=answer))
    page.goto(f"{demo}/")
    for n in range(1, 23):
        ask(page, f"Question {n}?")
    turns = page.locator("[data-askai-turn]")
    expect(turns).to_have_count(20)
    expect(turns.first.locator(".question")).to_have_text("Question 3?")
    stored = page.evaluate(f"JSON.parse(sessionStorage.getItem('askai:{demo}/')).turns.map((t) => t.question)")
    assert stored == [f"Question {n}?" for n in range(3, 23)]
