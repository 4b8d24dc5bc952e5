"""The README's curl request, against `askai serve` on the bundled sample site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.live import free_port

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

SEED = """curl -N -X POST http://127.0.0.1:4321/api/chat \
  -H 'Content-Type: application/json' \
  --data '{"message":"What course articles do you have?"}'"""


@pytest.fixture(scope="module")
def served(index_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`askai serve` as a subprocess on a free port, offline models, bundled corpus."""
    log = tmp_path_factory.mktemp("serve") / "askai-serve.log"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    env["ASKAI_INDEX_CACHE_DIR"] = str(index_cache)
    script = Path(sys.executable).with_name("askai")  # the installed console script, as a user runs it
    command = (
        [str(script), "serve", "--port", str(port)]
        if script.exists()
        else [sys.executable, "-m", "askai_graph.cli", "serve", "--port", str(port)]
    )
    with log.open("wb") as output:
        server = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"askai serve did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(10)


def parse_sse(text: str) -> list[dict[str, str]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if fields:
            events.append(fields)
    return events


def test_seed_curl_command_streams_the_documented_events(served: str) -> None:
    port = served.rsplit(":", 1)[1]
    command = SEED.replace("4321", port)
    result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=30, check=True)
    events = parse_sse(result.stdout)
    kinds = [event["event"] for event in events]
    assert kinds[0] == "step" and kinds[-1] == "done"
    assert [event["id"] for event in events] == [str(n) for n in range(1, len(events) + 1)]
    steps = [json.loads(event["data"])["node"] for event in events if event["event"] == "step"]
    assert steps == ["research", "writer", "validation", "critic", "accept_early", "source_gate"]
    tokens = "".join(json.loads(event["data"])["text"] for event in events if event["event"] == "token")
    assert tokens.startswith("Here is what the site has:") and tokens.count("](https://") >= 4
    assert "sources" not in kinds  # low confidence: accepted early, shown without source cards
    done = json.loads(events[-1]["data"])
    thread_id, run_id, token = done.pop("thread_id"), done.pop("run_id"), done.pop("thread_token")
    assert thread_id and run_id and token and thread_id != run_id
    assert done == {
        "outcome": "accepted_early",
        "attempts": 1,
        "cached": False,
        "gates": {"retrieval": "passed", "validation": "passed", "critic": "failed"},
    }


def test_healthz_answers_once_the_index_is_loaded(served: str) -> None:
    response = httpx.get(f"{served}/healthz", timeout=5)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["posts"] > 0 and len(body["corpus"]) == 64


def test_default_app_answers_and_then_serves_a_paraphrase_from_the_cache(served: str) -> None:
    from tests.live import sse_events

    first = sse_events(served, "What is semantic caching?")
    again = sse_events(served, "semantic caching: what is it?")
    assert first[-1][1]["outcome"] == "accepted" and first[-2][0] == "sources"
    # A hit keeps the cards its answer was first shown with, in the same place: before done.
    assert again[-1][1]["cached"] is True and {name for name, _, _ in again} == {"token", "sources", "done"}
    assert again[-2][:2] == first[-2][:2]  # (the event id differs: it counts this stream's events)
