"""The index a bench that reads a built index uses when it is given none: the bundled sample site's.

The benches that measure answers on a real docs site (``--corpus IDX --questions
evals/SITE.jsonl``) run without them too, so ``make bench`` runs them to the end on a
fresh clone: they build the bundled 26-page sample site with ``askai index`` into a
temporary folder (removed when the process exits) and read its labelled questions.
Figures on it say the script works, not how a real site does.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "evals" / "sample_site.jsonl"
"""The bundled site's labelled questions."""


@cache
def sample_index() -> Path:
    """Build the bundled sample site into a temporary folder, once per process; return the index folder."""
    from askai_graph.indexing import build_index
    from askai_graph.indexing.loader import bundled_site

    work = Path(tempfile.mkdtemp(prefix="askai-bench-sample-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    build_index(bundled_site(), work / "index")
    return work / "index"


def corpus_or_sample(corpus: str | None) -> str:
    """Return ``corpus``, or the sample site's index when none was given."""
    return corpus if corpus else str(sample_index())


def sample_report(corpus: str) -> Path:
    """Run ``askai eval`` on the sample site's questions over ``corpus``; return its ``report.json``."""
    out = Path(tempfile.mkdtemp(prefix="askai-bench-eval-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    command = [sys.executable, "-m", "askai_graph", "eval", str(QUESTIONS), "--out", str(out)]
    subprocess.run(command, env={**os.environ, "ASKAI_CORPUS": corpus}, check=True, stdout=subprocess.DEVNULL)
    return out / "report.json"
