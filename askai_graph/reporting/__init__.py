"""``askai report``: the run log read back as outcomes over time, coverage gaps and feedback.

``analysis`` computes the report, ``render`` writes it as Markdown, ``chart`` as a PNG,
and ``command`` is the CLI. Names are imported on first use (PEP 562), so the CLI can
register ``askai report`` without loading numpy.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from askai_graph.reporting.analysis import GapGroup, SiteReport, analyse

__all__ = ["GapGroup", "SiteReport", "analyse"]


def __getattr__(name: str) -> Any:
    """Import a public name from ``analysis`` on first use (and keep it)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("askai_graph.reporting.analysis"), name)
    globals()[name] = value
    return value
