"""Shared fixtures. Unit tests run with sockets disabled (pytest-socket); integration
tests opt in with ``pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph import Settings


@pytest.fixture(scope="session")
def index_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BM25 index cache private to this test session (never the user's cache)."""
    return tmp_path_factory.mktemp("bm25-cache")


@pytest.fixture
def settings(index_cache: Path, _no_askai_env: None) -> Settings:
    """Default settings with the index cache in a temp folder."""
    return Settings(index_cache_dir=index_cache)


@pytest.fixture(autouse=True)
def _no_askai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's ASKAI_* variables (a real model, a corpus) out of the tests."""
    import os

    for name in list(os.environ):
        if name.startswith("ASKAI_"):
            monkeypatch.delenv(name)
