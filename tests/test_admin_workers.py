"""``/admin`` under ``askai serve --workers 2``: a sign-in on one worker is a session on the other.

Which worker takes a connection is the kernel's choice, so the test makes it: it pauses
one worker (SIGSTOP) while it signs in, then pauses the other while it uses the cookie.
Each request is a new connection, so the running worker is the one that accepts it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.live import AskaiServe
from tests.test_scale_out import worker_pids

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]
TOKEN = "correct-horse-battery-staple"
# Generous: the running worker may still be loading the corpus on a loaded 2-core machine.
TIMEOUT = 60


@contextlib.contextmanager
def paused(pid: int) -> Iterator[None]:
    """Stop process ``pid`` for the block (it accepts no connection meanwhile)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_session_signed_in_on_one_worker_is_valid_on_the_other(tmp_path: Path) -> None:
    env = {
        "ASKAI_ADMIN_TOKEN": TOKEN,
        "ASKAI_DATABASE_URL": f"sqlite:///{tmp_path / 'askai.sqlite'}",
        "ASKAI_RATE_LIMIT": "",
    }
    server = AskaiServe(env, tmp_path / "serve.log", "--workers", "2")
    with server as base:
        deadline = time.monotonic() + TIMEOUT
        while len(workers := worker_pids(server.process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(workers) == 2
        first, second = sorted(workers)
        with paused(second):
            signed = httpx.post(f"{base}/admin/login", data={"token": TOKEN}, timeout=TIMEOUT)
        session = {"askai_admin": signed.cookies["askai_admin"]}
        with paused(first):
            gaps = httpx.get(f"{base}/admin/gaps", cookies=session, timeout=TIMEOUT)
            api = httpx.get(f"{base}/admin/api/overview", cookies=session, timeout=TIMEOUT)
            forged = httpx.get(f"{base}/admin/api/overview", cookies={"askai_admin": "1.2.3"}, timeout=TIMEOUT)
    assert signed.status_code == 303
    assert gaps.status_code == 200 and "<h1>Coverage gaps</h1>" in gaps.text
    assert api.status_code == 200 and api.json()["total"] == 0
    assert forged.status_code == 401
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
