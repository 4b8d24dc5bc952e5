"""The serving process tunes the garbage collector once, when the app starts (in a child process:
the collector is process-wide state)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc
from fastapi.testclient import TestClient
from askai_graph.server import create_app
from askai_graph.server.collector import THRESHOLDS, tune_collector
from tests.fakes import ungated_graph

before = gc.get_threshold()
with TestClient(create_app(graph=ungated_graph("An answer."))):
    print(before != THRESHOLDS, gc.get_threshold() == THRESHOLDS, gc.get_freeze_count() > 0, tune_collector())
"""


def test_the_app_freezes_its_start_up_heap_and_raises_the_thresholds_once() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "True", "False"]
