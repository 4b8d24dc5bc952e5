"""/openapi.json describes the real responses, checked by schemathesis against the live server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.server.serving import uvicorn_config
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

SCHEMATHESIS = Path(sys.prefix) / "tools" / "schemathesis" / "bin" / "schemathesis"


@pytest.fixture(scope="module")
def served(index_cache: Path) -> str:  # type: ignore[misc]
    settings = Settings(index_cache_dir=index_cache, rate_limit="")
    app = create_app(settings=settings)
    with LiveServer(app, uvicorn_config(app, settings, host="127.0.0.1", port=0, log_level="warning")) as base:
        yield base


def test_openapi_describes_the_event_stream_and_every_refusal(served: str) -> None:
    document = httpx.get(f"{served}/openapi.json", timeout=5).json()
    responses = document["paths"]["/api/chat"]["post"]["responses"]
    assert list(responses["200"]["content"]) == ["text/event-stream"]
    events = responses["200"]["content"]["text/event-stream"]["schema"]["oneOf"]
    assert [event["properties"]["event"]["const"] for event in events] == ["step", "token", "sources", "done", "error"]
    schemas = set(document["components"]["schemas"])
    assert {"StepEvent", "TokenEvent", "SourcesEvent", "DoneEvent", "ErrorEvent"} <= schemas
    for status in ("400", "408", "413", "415", "422", "429", "503"):
        assert responses[status]["content"]["application/json"]["schema"]["required"] == ["detail"]
    assert "Retry-After" in responses["429"]["headers"] and "Retry-After" in responses["503"]["headers"]


def test_openapi_shows_each_cards_evidence_keys(served: str) -> None:
    document = httpx.get(f"{served}/openapi.json", timeout=5).json()
    card = document["components"]["schemas"]["SourcesEvent"]["items"]
    assert {"title", "url", "section", "anchor_url", "quote"} <= set(card["properties"]) == set(card["required"])
    assert card["properties"]["anchor_url"]["format"] == "uri"


def test_schemathesis_finds_no_issue_against_the_live_server(served: str, tmp_path: Path) -> None:
    if not SCHEMATHESIS.exists():
        pytest.fail(f"schemathesis is missing at {SCHEMATHESIS}: run `make test`, which installs it")
    command = [str(SCHEMATHESIS), "run", f"{served}/openapi.json", "--checks", "all", "--max-examples", "30",
               "--workers", "1", "--generation-database", "none", "--seed", "1"]  # fmt: skip
    # A version the served index lacks is a 422 (its versions are the index's, which no
    # schema can list): a schema-valid `version` may be refused on /api/chat, and only there.
    (tmp_path / "schemathesis.toml").write_text(
        '[[operations]]\ninclude-name = "POST /api/chat"\n'
        'checks.positive_data_acceptance.expected-statuses = ["2XX", "3XX", 401, 403, 404, 409, 422, 429, "5XX"]\n'
    )
    # Run in a temporary folder: schemathesis keeps a cache in its working directory.
    result = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=tmp_path,
                            env={"NO_COLOR": "1", "PATH": ""})  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
