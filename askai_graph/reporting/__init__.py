"""``askai report``: the run log read back as outcomes over time, coverage gaps and feedback.

``analysis`` computes the report, ``render`` writes it as Markdown, ``chart`` as a PNG,
and ``command`` is the CLI.
"""

from askai_graph.reporting.analysis import GapGroup, SiteReport, analyse

__all__ = ["GapGroup", "SiteReport", "analyse"]
