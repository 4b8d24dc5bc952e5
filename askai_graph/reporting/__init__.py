"""``askai report``: the run log read back as outcomes over time, coverage gaps and feedback.

``analysis`` computes the report, ``render`` writes it as Markdown, ``chart`` as a PNG,
and ``command`` is the CLI. Names are imported on first use (PEP 562), so the CLI can
register ``askai report`` without loading numpy.
"""

from typing import TYPE_CHECKING

from askai_graph.lazy import lazy_exports

if TYPE_CHECKING:
    from askai_graph.reporting.analysis import SiteReport, analyse
    from askai_graph.stores.runlog.coverage import GapGroup

__all__ = ["GapGroup", "SiteReport", "analyse"]


__getattr__ = lazy_exports(
    __name__,
    {"GapGroup": "askai_graph.stores.runlog.coverage", "SiteReport": "askai_graph.reporting.analysis",
     "analyse": "askai_graph.reporting.analysis"},
    globals(),
)  # fmt: skip
