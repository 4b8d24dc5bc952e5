"""A private ``redis-server`` on a free port, which a test may stop and start again.

Tests that only need *a* Redis use their own server rather than the machine's shared one
(127.0.0.1:6379): parallel test runs never see each other's keys, and stopping it
mid-test touches no one else.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.live import free_port


class RedisServer:
    """``redis-server`` without persistence on 127.0.0.1 at a free port."""

    def __init__(self, folder: Path) -> None:
        """Prepare a server whose files live in ``folder`` (nothing is written without persistence)."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.binary, self.folder, self.port = binary, folder, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's URL, database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server on its port and wait until it accepts connections."""
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [*command, "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30  # a wait, not a bound under test: room for a loaded machine
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        """Stop the server (its data goes with it)."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None
