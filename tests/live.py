"""Test harness for integration tests: a real uvicorn in a thread, a free port, an SSE client."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from askai_graph.models.local import free_port

__all__ = ["AskaiServe", "LiveServer", "free_port", "sse_events"]

ROOT = Path(__file__).resolve().parent.parent


class AskaiServe:
    """``askai serve [args]`` as a process on a free port; ``with`` yields its URL and stops it.

    The process sees no ``ASKAI_*`` variable of the test run but those in ``env``.
    """

    def __init__(self, env: dict[str, str], log: Path, *args: str, port: int | None = None) -> None:
        self.port = port or free_port()
        base = {name: value for name, value in os.environ.items() if not name.startswith("ASKAI_")}
        self.log = log.open("ab")
        command = [sys.executable, "-m", "askai_graph", "serve", "--port", str(self.port), *args]
        self.process = subprocess.Popen(command, cwd=ROOT, env=base | env, stdout=self.log, stderr=subprocess.STDOUT)

    def __enter__(self) -> str:
        base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    return base
            except httpx.HTTPError:
                time.sleep(0.1)
        self.__exit__()
        raise RuntimeError(f"askai serve did not start: {Path(self.log.name).read_text()[-2000:]}")

    def __exit__(self, *exc_info: object) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


class LiveServer:
    """A real uvicorn serving ``app`` on a free 127.0.0.1 port, in a thread; ``with`` yields its URL."""

    def __init__(self, app: Any, config: Any = None, sockets: list[socket.socket] | None = None) -> None:
        """Serve ``app`` with ``config``; on ``sockets`` already bound (as ``askai serve`` does) if given."""
        import uvicorn

        config = config or uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", ws="none", lifespan="off", timeout_graceful_shutdown=2
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": sockets}, name="uvicorn-test", daemon=True
        )

    def __enter__(self) -> str:
        self.thread.start()
        # Its lifespan opens the stores first: a loaded 2-core machine has taken over 10 s.
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc_info: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def sse_events(base_url: str, message: str, timeout: float = 20) -> list[tuple[str, Any, str]]:
    """POST ``{"message": message}`` and return every SSE event as ``(event, data, id)``."""
    import httpx
    from httpx_sse import connect_sse

    with httpx.Client(timeout=timeout) as client:
        with connect_sse(client, "POST", f"{base_url}/api/chat", json={"message": message}) as source:
            source.response.raise_for_status()
            return [(sse.event, json.loads(sse.data), sse.id) for sse in source.iter_sse()]
