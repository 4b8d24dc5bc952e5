"""`askai index` on each fixture site, then `askai serve` over the index, as a site owner runs them."""

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

from tests.live import free_port, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

SITES = Path(__file__).parent / "data" / "sites"
# site, base URL, a question, the page its answer must cite
CASES = {
    "mkdocs": ("https://docs.example/", "How do I delete finished jobs older than the retention period?",
               "https://docs.example/reference/cli/"),
    "docusaurus": ("https://tern.example/docs/", "How do I rotate the passphrase of a vault?",
                   "https://tern.example/docs/reference/rotate/"),
    "hugo": ("https://trail.example/", "How do I treat water from a stream?",
             "https://trail.example/posts/water-on-the-trail/"),
    "html": ("https://lantern.example/", "Where do I copy the Lantern binary?",
             "https://lantern.example/guide/install/"),
}


def command(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("askai")  # the installed console script, as a user runs it
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "askai_graph.cli", *args]


def askai(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(*args), env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def environment(index_cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    env["ASKAI_INDEX_CACHE_DIR"] = str(index_cache)
    return env


@pytest.fixture(scope="module", params=sorted(CASES))
def indexed(request: pytest.FixtureRequest, environment: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> (
    Iterator[tuple[str, Path]]
):
    site = request.param
    out = tmp_path_factory.mktemp(site) / "index"
    result = askai("index", str(SITES / site), "--base-url", CASES[site][0], "--out", str(out), env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("indexed ")
    yield site, out


def test_ask_over_the_built_index_cites_the_right_page(indexed: tuple[str, Path], environment: dict[str, str]) -> None:
    site, out = indexed
    _, question, page = CASES[site]
    result = askai("ask", "--json", question, env={**environment, "ASKAI_CORPUS": str(out)})
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["outcome"] == "accepted"
    assert f"]({page})" in answer["answer"]
    assert answer["sources"][0]["url"] == page


def test_serve_over_the_built_index_streams_the_answer_with_its_page(
    indexed: tuple[str, Path], environment: dict[str, str], tmp_path: Path
) -> None:
    site, out = indexed
    _, question, page = CASES[site]
    port = free_port()
    with (tmp_path / "serve.log").open("wb") as log:
        env = {**environment, "ASKAI_CORPUS": str(out)}
        server = subprocess.Popen(command("serve", "--port", str(port)), env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/healthz", timeout=1)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.1)
        manifest_posts = {"mkdocs": 5, "docusaurus": 5, "hugo": 7, "html": 3}[site]
        assert health.json()["posts"] == manifest_posts
        events = sse_events(base, question)
        names = [name for name, _, _ in events]
        assert names[-1] == "done" and events[-1][1]["outcome"] == "accepted"
        (sources,) = [data for name, data, _ in events if name == "sources"]
        assert sources[0]["url"] == page
        assert len({source["url"] for source in sources}) == len(sources)  # one card per page
    finally:
        server.terminate()
        server.wait(10)
