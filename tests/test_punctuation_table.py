"""The shipped Unicode punctuation table: current, equal to mistletoe's own set, and it replaces the scan."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from askai_graph.validation import punctuation

ROOT = Path(__file__).resolve().parents[1]

# In a fresh interpreter: count unicodedata.category calls (the scan asks it about every
# code point), optionally install the table, import mistletoe, print the set it uses.
_PROBE = """
import json, sys, unicodedata
calls = 0
category = unicodedata.category
def counting(c):
    global calls
    calls += 1
    return category(c)
unicodedata.category = counting
if sys.argv[1] == "table":
    from askai_graph.validation.punctuation import install
    assert install()
import mistletoe.block_token
from mistletoe import core_tokens
print(json.dumps({"calls": calls, "punctuation": sorted(map(ord, core_tokens.punctuation)),
                  "sys_is_sys": core_tokens.sys is sys}))
"""


def _probe(mode: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_committed_table_is_what_the_generator_writes_for_this_python() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/punctuation_table.py", "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout


def test_with_the_table_mistletoe_uses_its_own_punctuation_set_without_scanning() -> None:
    own, shipped = _probe("scan"), _probe("table")
    assert own["calls"] == sys.maxunicode + 1  # the probe sees the scan it replaces
    assert shipped["calls"] == 0
    assert shipped["punctuation"] == own["punctuation"]
    assert shipped["sys_is_sys"] is True  # the module's own globals are the real ones afterwards


def test_a_table_for_another_unicode_version_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(punctuation, "UNIDATA_VERSION", "0.0.0")
    finders = list(sys.meta_path)
    assert punctuation.install() is False
    assert sys.meta_path == finders


def _load_with_table(tmp_path: Path, source: str) -> ModuleType:
    path = tmp_path / "core_tokens_like.py"
    path.write_text(source, "utf-8")
    loader = punctuation._TableLoader("core_tokens_like", str(path))
    spec = importlib.util.spec_from_file_location("core_tokens_like", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_a_module_keeping_no_punctuation_set_runs_as_it_is(tmp_path: Path) -> None:
    module = _load_with_table(tmp_path, "import sys\nseen = [i for i in range(sys.maxunicode + 1) if i < 3]\n")
    assert module.seen == [0, 1, 2]  # its scan ran in full
    assert module.sys is sys


def test_a_module_keeping_a_punctuation_set_gets_the_table_without_its_scan(tmp_path: Path) -> None:
    source = "import sys\npunctuation = {'!'} | {chr(i) for i in range(sys.maxunicode + 1) if chr(i) == 'A'}\n"
    module = _load_with_table(tmp_path, source)
    assert module.punctuation == {"!"} | punctuation.table()  # no "A": the scan visited no code point
