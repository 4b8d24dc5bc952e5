"""``askai serve``: --port 0 picks a free port and prints it; a port conflict is one line, before the corpus loads."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.live import free_port

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ASKAI = [sys.executable, "-m", "askai_graph"]


def env(index_cache: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}
    # Threads in a database of this test's own, never the user's data folder.
    threads = f"sqlite:///{index_cache / 'threads-cli-serve.sqlite'}"
    return {**base, "ASKAI_INDEX_CACHE_DIR": str(index_cache), "ASKAI_DATABASE_URL": threads, **extra}


def test_port_0_picks_a_free_port_prints_it_and_serves_there(index_cache: Path) -> None:
    server = subprocess.Popen([*ASKAI, "serve", "--port", "0"], env=env(index_cache), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert server.stdout is not None
    try:
        line = server.stdout.readline()
        match = re.fullmatch(r"askai: serving on http://127\.0\.0\.1:(\d+) \(loading the corpus first\)\n", line)
        assert match and int(match[1]) not in (0, 4321), line
        base = f"http://127.0.0.1:{match[1]}"
        for _ in range(300):  # the corpus loads after the line is printed
            try:
                response = httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert response.status_code == 200 and response.json()["status"] == "ok"
    finally:
        server.terminate()
        server.wait(10)
        server.stdout.close()


def test_a_port_conflict_is_one_line_and_a_non_zero_exit_before_the_corpus_loads(index_cache: Path) -> None:
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        # A corpus that cannot load: had it been loaded first, that error would show instead.
        broken = env(index_cache, ASKAI_CORPUS="/nonexistent")
        result = subprocess.run([*ASKAI, "serve", "--port", str(port)], env=broken, capture_output=True, text=True,
                                timeout=60)  # fmt: skip
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"askai: error: cannot listen on 127.0.0.1:{port}: ")


@pytest.mark.parametrize(
    ("args", "extra", "message"),
    [
        (["--port", "70000"], {}, "askai: error: --port must be between 0 and 65535 (got 70000)"),
        ([], {"ASKAI_RATE_LIMIT": "lots"}, "askai: error: 1 validation error for Settings rate_limit Value error,"),
    ],
)
def test_bad_serve_settings_are_one_line_errors(
    index_cache: Path, args: list[str], extra: dict[str, str], message: str
) -> None:
    result = subprocess.run([*ASKAI, "serve", *args], env=env(index_cache, **extra), capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert result.returncode != 0 and result.stderr.count("\n") == 1 and result.stderr.startswith(message)
