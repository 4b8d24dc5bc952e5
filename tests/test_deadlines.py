"""A question's deadline holds whatever the thread pools are doing.

Real uvicorn on 127.0.0.1 (with its lifespan, as ``askai serve`` runs it), a real SQLite
run log, and a retriever whose blocking calls hang for some questions: the hung calls
fill worker threads, and the answers that follow must still end within their deadline.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from askai_graph.server.serving import uvicorn_config
from askai_graph.stores.runlog import open_run_log
from tests.fakes import PASSING, HungRetriever, cited_draft, replies
from tests.live import LiveServer, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

DEADLINE = 2.0
STUCK = 8


@pytest.mark.parametrize(
    ("threads", "outcome"),
    [(STUCK, "fallback"), (32, "accepted")],
    ids=["every-collaborator-thread-hung", "threads-to-spare"],
)
def test_after_eight_hung_retriever_calls_a_normal_question_is_done_within_its_deadline(
    settings: Settings, tmp_path: Path, threads: int, outcome: str
) -> None:
    hung = HungRetriever(release=threading.Event(), only="stuck")
    limits = {"request_timeout_seconds": DEADLINE, "max_streams": 16, "collaborator_threads": threads}
    settings = settings.model_copy(update=limits)
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=hung, settings=settings)
    log = open_run_log(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    app = create_app(graph, settings, run_log=log)
    config = uvicorn_config(app, settings, host="127.0.0.1", port=0, log_level="warning")
    stuck: list[list[Any]] = []
    try:
        with LiveServer(app, config) as base:
            askers = [
                threading.Thread(target=lambda n=n: stuck.append(sse_events(base, f"stuck question {n}?", 30)))
                for n in range(STUCK)
            ]
            for asker in askers:
                asker.start()
            waited = time.monotonic() + DEADLINE / 2
            while hung.calls < STUCK and time.monotonic() < waited:
                time.sleep(0.01)
            started = time.monotonic()
            events = sse_events(base, "How do retrieval and caching work?", 30)
            elapsed = time.monotonic() - started
            for asker in askers:
                asker.join(30)
            hung.release.set()
    finally:
        hung.release.set()  # lets the abandoned worker threads end before the server stops
        log.close()
    # With every collaborator thread hung, the question's own retrieval waits for one: a
    # fallback at the deadline, whose done waits on no worker thread (the run log has its own).
    assert events[-1][0] == "done" and events[-1][1]["outcome"] == outcome
    # A timing behaviour: unbounded, the answer would wait on the hung threads for good;
    # 5 s over the deadline is the margin a loaded 2-core machine needs.
    assert elapsed <= DEADLINE + 5.0, f"done after {elapsed:.2f}s"
    # The hung questions themselves end at their deadline with a fallback, never an error.
    assert [replies_[-1][1]["outcome"] for replies_ in stuck] == ["fallback"] * STUCK
