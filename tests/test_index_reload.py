"""`askai serve` picks up a re-built index without a restart: under load, and on SIGHUP.

A real `askai serve` process over a built index; `askai index` (its own function)
rebuilds the index in place while questions stream. Every answer in flight ends with
`done`, `/healthz` reports the new fingerprint and build time, and the question asked
before the rebuild is answered from the new pages, not from the old corpus' cache.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from askai_graph.indexing import build_index
from tests.live import AskaiServe, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

QUESTION = "How do I descale the kettle?"
OTHER = ["What does the kettle lid do?", "How do I boil water in the kettle?", QUESTION]


def write_site(root: Path, descaler: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "descaling.md").write_text(
        f"---\ntitle: Descaling\n---\n\nDescale the kettle with {descaler} once a month. "
        "Rinse the kettle twice after you descale it.\n"
    )
    (root / "lid.md").write_text(
        "---\ntitle: The lid\n---\n\nThe kettle lid keeps steam in while the water heats. "
        "Close the kettle lid before you switch the kettle on.\n"
    )
    (root / "boiling.md").write_text(
        "---\ntitle: Boiling water\n---\n\nFill the kettle to the line marked on its side before you boil water. "
        "Switch the kettle off at the wall once the water boils.\n"
    )


def health(base: str) -> dict[str, Any]:
    return httpx.get(f"{base}/healthz", timeout=5).json()  # type: ignore[no-any-return]


def wait_for(condition: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def done(events: list[tuple[str, Any, str]]) -> dict[str, Any]:
    assert events[-1][0] == "done" and not any(name == "error" for name, _, _ in events), events
    return events[-1][1]  # type: ignore[no-any-return]


def answer_text(events: list[tuple[str, Any, str]]) -> str:
    return "".join(data["text"] for name, data, _ in events if name == "token")


def test_a_rebuilt_index_is_served_under_load_without_failed_answers_or_stale_cache_hits(
    tmp_path: Path, index_cache: Path
) -> None:
    site, index = tmp_path / "site", tmp_path / "index"
    write_site(site, "citric acid")
    build_index(site, index, base_url="https://kettle.example/")
    env = {"ASKAI_CORPUS": str(index), "ASKAI_INDEX_RELOAD_SECONDS": "0.2", "ASKAI_INDEX_CACHE_DIR": str(index_cache),
           "ASKAI_RATE_LIMIT": ""}
    with AskaiServe(env, tmp_path / "serve.log") as base:
        before = health(base)
        assert before["fingerprint"] == before["corpus"] and before["built_at"]
        first = sse_events(base, QUESTION)
        assert "citric acid" in answer_text(first) and done(first)["cached"] is False, done(first)
        assert done(first)["outcome"] == "accepted", answer_text(first)
        assert done(sse_events(base, QUESTION))["cached"] is True  # the old corpus' answer is cached

        results: list[tuple[float, str, list[tuple[str, Any, str]]]] = []
        failures: list[BaseException] = []
        stop = threading.Event()

        def load() -> None:
            while not stop.is_set():
                for question in OTHER:
                    try:
                        started = time.monotonic()
                        results.append((started, question, sse_events(base, question, timeout=60)))
                    except BaseException as exc:  # noqa: BLE001 - a failed request is what this test looks for
                        failures.append(exc)

        workers = [threading.Thread(target=load) for _ in range(3)]
        for worker in workers:
            worker.start()
        def answered_since(moment: float) -> int:
            return sum(1 for started, question, _ in list(results) if question == QUESTION and started > moment)

        # Each step waits for what it needs, not for a time: on a loaded machine one
        # answer can take seconds, and a fixed sleep may see none.
        try:
            wait_for(lambda: answered_since(0.0) >= 1, 120)  # the load was served by the old index
            write_site(site, "white vinegar")
            build_index(site, index, base_url="https://kettle.example/")
            wait_for(lambda: health(base)["fingerprint"] != before["fingerprint"], 60)
            swapped = time.monotonic()
            wait_for(lambda: answered_since(swapped) >= 2, 120)  # and then by the new one
        finally:
            stop.set()
            for worker in workers:
                worker.join(60)
        assert failures == [] and len(results) >= 6
        for _, _, events in results:
            done(events)
        # Asked once the new index was served: never the old corpus' answer, cached or not.
        asked = [(started, answer_text(events)) for started, question, events in results if question == QUESTION]
        later = [text for started, text in asked if started > swapped]
        assert later and all("white vinegar" in text and "citric acid" not in text for text in later), later
        assert any("citric acid" in text for _, text in asked)  # the load did span the swap
        after = health(base)
        assert after["built_at"] >= before["built_at"] and after["posts"] == 3
        fresh = sse_events(base, QUESTION)
        text = answer_text(fresh)
        assert "white vinegar" in text and "citric acid" not in text, text


def test_sighup_reloads_the_index_when_polling_is_off(tmp_path: Path, index_cache: Path) -> None:
    site, index = tmp_path / "site", tmp_path / "index"
    write_site(site, "citric acid")
    build_index(site, index, base_url="https://kettle.example/")
    env = {"ASKAI_CORPUS": str(index), "ASKAI_INDEX_RELOAD_SECONDS": "0", "ASKAI_INDEX_CACHE_DIR": str(index_cache),
           "ASKAI_RATE_LIMIT": ""}
    server = AskaiServe(env, tmp_path / "serve.log")
    with server as base:
        before = health(base)["fingerprint"]
        write_site(site, "white vinegar")
        build_index(site, index, base_url="https://kettle.example/")
        time.sleep(1.0)
        assert health(base)["fingerprint"] == before  # not polling: still the index it opened
        server.process.send_signal(signal.SIGHUP)
        wait_for(lambda: health(base)["fingerprint"] != before)
        assert "white vinegar" in answer_text(sse_events(base, QUESTION))


def test_sighup_to_the_parent_of_several_workers_reloads_each_and_stops_none(tmp_path: Path, index_cache: Path) -> None:
    site, index = tmp_path / "site", tmp_path / "index"
    write_site(site, "citric acid")
    build_index(site, index, base_url="https://kettle.example/")
    env = {"ASKAI_CORPUS": str(index), "ASKAI_INDEX_RELOAD_SECONDS": "0", "ASKAI_INDEX_CACHE_DIR": str(index_cache),
           "ASKAI_RATE_LIMIT": ""}
    server = AskaiServe(env, tmp_path / "serve.log", "--workers", "2")
    with server as base:
        before = health(base)["fingerprint"]
        time.sleep(1.0)  # both workers up and listening for SIGHUP
        write_site(site, "white vinegar")
        build_index(site, index, base_url="https://kettle.example/")
        server.process.send_signal(signal.SIGHUP)
        # Every worker moves: twenty health checks in a row, spread over both, all see the new index.
        wait_for(lambda: all(health(base)["fingerprint"] != before for _ in range(20)))
        assert server.process.poll() is None


def cards(events: list[tuple[str, Any, str]]) -> list[Any]:
    return [card for name, data, _ in events if name == "sources" for card in data]


def test_a_cached_answer_keeps_its_cards_until_a_rebuild_drops_a_cards_page(tmp_path: Path, index_cache: Path) -> None:
    site, index = tmp_path / "site", tmp_path / "index"
    write_site(site, "citric acid")
    build_index(site, index, base_url="https://kettle.example/")
    env = {"ASKAI_CORPUS": str(index), "ASKAI_INDEX_RELOAD_SECONDS": "0", "ASKAI_INDEX_CACHE_DIR": str(index_cache),
           "ASKAI_RATE_LIMIT": ""}
    server = AskaiServe(env, tmp_path / "serve.log")
    with server as base:
        before = health(base)["fingerprint"]
        first = sse_events(base, QUESTION)
        again = sse_events(base, QUESTION)
        assert done(first)["outcome"] == "accepted" and done(again)["cached"] is True
        assert cards(again) == cards(first)
        assert "https://kettle.example/descaling/" in [card["url"] for card in cards(first)]
        # The descaling page moves: the index served no longer has the first answer's card page.
        (site / "descaling.md").rename(site / "kettle-care.md")
        build_index(site, index, base_url="https://kettle.example/")
        server.process.send_signal(signal.SIGHUP)
        wait_for(lambda: health(base)["fingerprint"] != before)
        fresh = sse_events(base, QUESTION)
        third = sse_events(base, QUESTION)
    urls = [card["url"] for card in cards(fresh)]
    assert done(fresh)["cached"] is False, "a card page gone: a miss and a fresh run"
    assert "https://kettle.example/kettle-care/" in urls and "https://kettle.example/descaling/" not in urls
    assert done(third)["cached"] is True and cards(third) == cards(fresh)  # the fresh answer replaced the entry
