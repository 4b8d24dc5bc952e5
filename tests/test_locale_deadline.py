"""A question abandoned at its deadline ends with the fallback in the reader's language (issue #39).

Real uvicorn on 127.0.0.1 and a retriever slower than the deadline: the server, not a
node, writes that fallback.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from askai_graph import Settings, build_graph
from askai_graph.models.prompts import FALLBACK_ANSWER
from askai_graph.server import create_app
from askai_graph.server.serving import uvicorn_config
from askai_graph.settings.messages import LocaleMessages
from tests.fakes import PASSING, SlowAsyncRetriever, cited_draft, replies
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ES_FALLBACK = "No pude responder a eso de forma fiable con los artículos de este sitio."


def answer(base: str, **body: Any) -> tuple[str, dict[str, Any]]:
    """Ask with ``body``; return the answer the tokens spell and ``done``."""
    with httpx.Client(timeout=30) as client:
        with connect_sse(client, "POST", f"{base}/api/chat", json={"message": "¿Cómo uso la caché?", **body}) as sse:
            sse.response.raise_for_status()
            events = [(event.event, json.loads(event.data)) for event in sse.iter_sse()]
    return "".join(data["text"] for name, data in events if name == "token"), events[-1][1]


def test_the_deadlines_fallback_is_in_the_readers_configured_locale(settings: Settings) -> None:
    messages = {"es": LocaleMessages(fallback=ES_FALLBACK)}
    limits = {"request_timeout_seconds": 0.5, "messages": messages, "cache_enabled": False}
    settings = settings.model_copy(update=limits)
    slow = SlowAsyncRetriever(delay=2.0)
    graph = build_graph(writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=slow, settings=settings)
    app = create_app(graph, settings)
    with LiveServer(app, uvicorn_config(app, settings, host="127.0.0.1", port=0, log_level="warning")) as base:
        spanish, done = answer(base, locale="es")
        english, _ = answer(base)
    assert (spanish, done["outcome"]) == (ES_FALLBACK, "fallback")
    assert english == FALLBACK_ANSWER
