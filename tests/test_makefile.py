"""The Makefile's shared steps: two ``make test`` runs on one machine do not build into one folder at once."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
WHEEL = "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl"
# Stands in for `python -m pip wheel ... -w DIR`: records DIR, then writes the wheel in two
# parts with a pause between, as a compile's last step would.
FAKE_PIP = f"""#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -w) shift; out="$1";; esac; shift; done
echo "$out" >> "$(dirname "$0")/builds.log"
printf 'first half\\n' > "$out/{WHEEL}"
sleep 1
printf 'second half\\n' >> "$out/{WHEEL}"
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_two_concurrent_llama_builds_each_build_apart_and_rename_the_wheel_into_place(tmp_path: Path) -> None:
    bin_dir, wheels = tmp_path / "bin", tmp_path / "wheels"
    bin_dir.mkdir()
    python = bin_dir / "python"
    python.write_text(FAKE_PIP)
    python.chmod(0o755)
    stamp = wheels / ".llama-cpp-python-0.3.36-portable"
    command = ["make", "--no-print-directory", "-C", str(ROOT), f"BIN={bin_dir}", f"LLAMA_WHEELS={wheels}", str(stamp)]
    env = {**os.environ, "MAKEFLAGS": ""}
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(2)]
    outputs = [run.communicate(timeout=60)[0].decode() for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    builds = (bin_dir / "builds.log").read_text().split()
    # Each run built in a folder of its own, never in the shared one pip --find-links reads.
    assert len(builds) == 2 and len(set(builds)) == 2 and str(wheels) not in builds
    assert sorted(path.name for path in wheels.iterdir()) == [stamp.name, WHEEL]  # no build folder left over
    assert (wheels / WHEEL).read_text() == "first half\nsecond half\n"
