"""``askai eval``: run a labelled question set through the graph and measure the answers.

``dataset`` reads the questions, ``runner`` runs them, ``metrics`` scores them,
``report`` and ``chart`` render the result, ``baseline`` compares it with an earlier one
and ``command`` is the CLI.
"""

from askai_graph.evaluation.dataset import DatasetError, EvalQuestion, load_questions
from askai_graph.evaluation.metrics import compute_metrics
from askai_graph.evaluation.runner import GateVerdict, QuestionResult, run_questions

__all__ = [
    "DatasetError",
    "EvalQuestion",
    "GateVerdict",
    "QuestionResult",
    "compute_metrics",
    "load_questions",
    "run_questions",
]
