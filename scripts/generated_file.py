"""What every script that writes a committed, generated file does: write it, or ``--check`` it.

The scripts next to this one generate files the package ships (a table, parsed pages)
so that nothing computes them at start-up. Each passes its target and a ``render``
function; ``--check`` says whether the committed file is what the script writes now.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def write_or_check(description: str, target: Path, render: Callable[[], str], script: str) -> int:
    """Write ``render()`` to ``target``, or with ``--check`` exit 1 when the committed file differs."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file is not current")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = target.is_file() and target.read_text("utf-8") == text
        print(f"{target.name}: {'current' if current else f'stale: run {script}'}")
        return 0 if current else 1
    target.write_text(text, "utf-8")
    print(f"wrote {target}")
    return 0
