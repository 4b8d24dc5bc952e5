"""``--graph-url`` without a server: thread ids mapped to the server's, the server's JSON typed back, settings."""

from __future__ import annotations

import json
import uuid

import pytest
from pydantic import ValidationError

from askai_graph import Critique, SearchResult, Settings, ValidationReport
from askai_graph.cli import main
from askai_graph.server.scaleout.remote import server_thread_id, typed_state
from askai_graph.state import Source, Turn
from tests.fakes import PASSING

ASKAI_THREAD = "0b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d"


def test_a_thread_maps_to_the_same_server_thread_every_time() -> None:
    assert server_thread_id(ASKAI_THREAD, "ask_ai") == server_thread_id(ASKAI_THREAD, "ask_ai")
    assert uuid.UUID(server_thread_id(ASKAI_THREAD, "ask_ai")).version == 5


def test_a_thread_maps_to_a_server_thread_of_its_own_graph() -> None:
    other_thread = "1b7c3c2e-8a4e-4f4c-9a0e-2f6a1d2b3c4d"
    mapped = {server_thread_id(ASKAI_THREAD, "ask_ai"), server_thread_id(ASKAI_THREAD, "other"),
              server_thread_id(other_thread, "ask_ai"), ASKAI_THREAD}  # fmt: skip
    assert len(mapped) == 4  # never the reader's own id: it cannot name a thread someone else made


def test_the_servers_json_state_is_typed_like_the_in_process_state() -> None:
    state = typed_state(
        {
            "question": "q",
            "search_results": [{"title": "T", "source_url": "https://a.example/1", "content": "c", "images": []}],
            "validation": {"ok": True, "errors": []},
            "critique": json.loads(PASSING),
            "review_failures": [{"code": "drift", "message": "m"}],
            "sources": [{"title": "T", "url": "https://a.example/1"}],
            "history": [
                {
                    "question": "q",
                    "standalone_question": "q",
                    "answer": "a",
                    "outcome": "accepted",
                    "cited_urls": ["https://a.example/1"],
                }
            ],  # fmt: skip
            "custom_key": {"kept": True},
        }
    )
    assert isinstance(state["search_results"][0], SearchResult)
    assert isinstance(state["validation"], ValidationReport) and state["validation"].ok
    assert isinstance(state["critique"], Critique)
    assert state["review_failures"][0].code == "drift"
    assert state["sources"] == [Source(title="T", url="https://a.example/1")]
    assert state["history"][0] == Turn(question="q", standalone_question="q", answer="a", outcome="accepted",
                                       cited_urls=("https://a.example/1",))  # fmt: skip
    assert state["custom_key"] == {"kept": True}


def test_graph_url_and_graph_id_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_GRAPH_URL", "http://127.0.0.1:2024/")
    monkeypatch.setenv("ASKAI_GRAPH_ID", "docs_ai")
    settings = Settings()
    assert (settings.graph_url, settings.graph_id) == ("http://127.0.0.1:2024", "docs_ai")
    assert Settings.model_fields["graph_url"].default is None


@pytest.mark.parametrize("url", ["ftp://host", "127.0.0.1:2024", "http://", "http://host:2024?x=1"])
def test_a_graph_url_that_is_not_an_http_address_is_refused(url: str) -> None:
    with pytest.raises(ValidationError, match="graph_url"):
        Settings(graph_url=url)


def test_graph_id_without_a_graph_url_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--graph-id", "ask_ai"]) == 2
    assert capsys.readouterr().err == "askai: error: --graph-id needs --graph-url (or ASKAI_GRAPH_URL)\n"
