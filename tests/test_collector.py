"""When the app starts it loads the Validation parser and tunes the garbage collector, once (in a
child process: both are process-wide state)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc
import sys
from fastapi.testclient import TestClient
from askai_graph.server import create_app
from askai_graph.server.housekeeping.collector import THRESHOLDS, tune_collector
from tests.fakes import ungated_graph

before = gc.get_threshold()
assert "mistletoe" not in sys.modules
with TestClient(create_app(graph=ungated_graph("An answer."))):
    tuned = gc.get_threshold() == THRESHOLDS and gc.get_freeze_count() > 0
    print(before != THRESHOLDS, tuned, tune_collector(), "mistletoe.block_token" in sys.modules)
"""


def test_the_app_loads_the_parser_freezes_its_start_up_heap_and_raises_the_thresholds_once() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "False", "True"]
