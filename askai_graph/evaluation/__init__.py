"""``askai eval``: run a labelled question set through the graph and measure the answers.

``dataset`` reads the questions, ``runner`` runs them, ``metrics`` scores them,
``report`` and ``chart`` render the result, ``baseline`` compares it with an earlier one
and ``command`` is the CLI. Names are imported on first use (PEP 562): registering
``askai eval`` on the command line loads none of them (nor numpy).
"""

from typing import TYPE_CHECKING

from askai_graph.lazy import lazy_exports

if TYPE_CHECKING:
    from askai_graph.evaluation.dataset import DatasetError, EvalQuestion, load_questions
    from askai_graph.evaluation.metrics import compute_metrics
    from askai_graph.evaluation.runner import GateVerdict, QuestionResult, run_questions

_EXPORTS = {
    "DatasetError": "askai_graph.evaluation.dataset",
    "EvalQuestion": "askai_graph.evaluation.dataset",
    "GateVerdict": "askai_graph.evaluation.runner",
    "QuestionResult": "askai_graph.evaluation.runner",
    "compute_metrics": "askai_graph.evaluation.metrics",
    "load_questions": "askai_graph.evaluation.dataset",
    "run_questions": "askai_graph.evaluation.runner",
}

__all__ = [
    "DatasetError",
    "EvalQuestion",
    "GateVerdict",
    "QuestionResult",
    "compute_metrics",
    "load_questions",
    "run_questions",
]


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
