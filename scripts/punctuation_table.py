"""Write ``askai_graph/validation/punctuation_table.py``: the Unicode punctuation mistletoe scans for.

Run: ``.venv/bin/python scripts/punctuation_table.py`` (``--check`` exits 1 if the committed
table differs). mistletoe computes, at its first import, the set of every code point whose
Unicode category is P* (about 0.1 s: it asks ``unicodedata`` about all 1.1 million).
The table is that set for this Python's Unicode version, as code point ranges;
``askai_graph.validation.punctuation`` installs it in place of the scan.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from generated_file import write_or_check

TARGET = Path(__file__).resolve().parent.parent / "askai_graph" / "validation" / "punctuation_table.py"


def punctuation_ranges() -> list[tuple[int, int]]:
    """Return the inclusive code point ranges of Unicode categories P* (mistletoe's own test)."""
    ranges: list[tuple[int, int]] = []
    for code in range(sys.maxunicode + 1):
        if unicodedata.category(chr(code)).startswith("P"):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return ranges


def render() -> str:
    """Return the text of the table module."""
    rows = [f"    ({start:#x}, {end:#x}),\n" for start, end in punctuation_ranges()]
    return (
        '"""Unicode punctuation (categories P*) as code point ranges; generated, do not edit.\n\n'
        "Written by ``scripts/punctuation_table.py`` for the Unicode version below; mistletoe\n"
        "would otherwise compute the same set by scanning every code point at import.\n"
        '"""\n\n'
        f'UNIDATA_VERSION = "{unicodedata.unidata_version}"\n'
        "RANGES: tuple[tuple[int, int], ...] = (\n" + "".join(rows) + ")\n"
    )


def main() -> int:
    """Write the file, or with ``--check`` say whether the committed one is current."""
    return write_or_check(__doc__.split("\n")[0], TARGET, render, "scripts/punctuation_table.py")


if __name__ == "__main__":
    sys.exit(main())
