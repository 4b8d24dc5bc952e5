"""Write ``askai_graph/sample_site.jsonl``: the bundled sample site's pages, parsed.

Run: ``.venv/bin/python scripts/bundled_pages.py`` after changing a post under
``askai_graph/sample_site/`` or how Markdown pages are read (``--check`` exits 1 if the
committed file differs). ``askai ask`` on the bundled site then loads the pages as they
were parsed, without importing the YAML, Markdown and HTML readers at every start.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's package, whichever one the venv installed

from generated_file import write_or_check  # noqa: E402

from askai_graph.indexing.loader import BUNDLED_PAGES, bundled_site  # noqa: E402
from askai_graph.indexing.sources import scan_source  # noqa: E402

TARGET = ROOT / "askai_graph" / BUNDLED_PAGES


def render() -> str:
    """Return the file's text: each page of the bundled site as JSON, one a line, in site order."""
    scan = scan_source(bundled_site(), base_url=None)
    if scan.skips:
        raise SystemExit("the bundled site must parse without skips: " + "; ".join(map(str, scan.skips)))
    return "".join(page.model_dump_json() + "\n" for page in scan.items)


def main() -> int:
    """Write the file, or with ``--check`` say whether the committed one is current."""
    return write_or_check(__doc__.split("\n")[0], TARGET, render, "scripts/bundled_pages.py")


if __name__ == "__main__":
    sys.exit(main())
