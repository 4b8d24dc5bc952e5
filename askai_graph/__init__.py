"""askai-graph: an "Ask AI" answer engine for content sites, as a LangGraph state machine.

No source card is ever shown under an answer that failed review, and no citation reaches
the reader unless it was actually retrieved.
"""

from typing import TYPE_CHECKING

from askai_graph.lazy import lazy_exports

if TYPE_CHECKING:  # the names below are imported on first use (see __getattr__)
    from askai_graph.evidence.critique import Critique, MalformedReview, ReviewCode, parse_critique
    from askai_graph.evidence.results import ImageRef, SearchResult
    from askai_graph.graph import build_graph
    from askai_graph.indexing.loader import load_corpus
    from askai_graph.models.condensing import Condenser, CondenseRequest
    from askai_graph.models.offline import ExtractiveWriter, LexicalCondenser, LexicalCritic
    from askai_graph.models.reviewing import Critic, ReviewRequest
    from askai_graph.models.writing import DraftRequest, Writer
    from askai_graph.retrieval.corpus import Corpus, CorpusError, Page, Post
    from askai_graph.retrieval.pages import BM25Retriever
    from askai_graph.rules.catalog import is_catalog_question
    from askai_graph.rules.gates import should_expose_retrieved_links
    from askai_graph.settings import RunOptions, Settings
    from askai_graph.state import AskState, InputState, Outcome, ReviewFailure, Source, Turn
    from askai_graph.validation import ValidationIssue, ValidationReport, validate_draft

__version__ = "0.1.0"

# Where each public name lives. Importing the package imports none of them: a command
# line that needs only ``askai_graph.settings`` (``askai --help``) does not pay for
# LangGraph, langchain-core's model classes and bm25s (PEP 562 lazy attributes).
_EXPORTS = {
    "AskState": "askai_graph.state",
    "BM25Retriever": "askai_graph.retrieval.pages",
    "CondenseRequest": "askai_graph.models.condensing",
    "Condenser": "askai_graph.models.condensing",
    "Corpus": "askai_graph.retrieval.corpus",
    "CorpusError": "askai_graph.retrieval.corpus",
    "Critic": "askai_graph.models.reviewing",
    "Critique": "askai_graph.evidence.critique",
    "DraftRequest": "askai_graph.models.writing",
    "ExtractiveWriter": "askai_graph.models.offline",
    "ImageRef": "askai_graph.evidence.results",
    "InputState": "askai_graph.state",
    "LexicalCondenser": "askai_graph.models.offline",
    "LexicalCritic": "askai_graph.models.offline",
    "MalformedReview": "askai_graph.evidence.critique",
    "Outcome": "askai_graph.state",
    "Page": "askai_graph.retrieval.corpus",
    "Post": "askai_graph.retrieval.corpus",
    "ReviewCode": "askai_graph.evidence.critique",
    "ReviewFailure": "askai_graph.state",
    "ReviewRequest": "askai_graph.models.reviewing",
    "RunOptions": "askai_graph.settings",
    "SearchResult": "askai_graph.evidence.results",
    "Settings": "askai_graph.settings",
    "Source": "askai_graph.state",
    "Turn": "askai_graph.state",
    "ValidationIssue": "askai_graph.validation",
    "ValidationReport": "askai_graph.validation",
    "Writer": "askai_graph.models.writing",
    "build_graph": "askai_graph.graph",
    "is_catalog_question": "askai_graph.rules.catalog",
    "load_corpus": "askai_graph.indexing.loader",
    "parse_critique": "askai_graph.evidence.critique",
    "should_expose_retrieved_links": "askai_graph.rules.gates",
    "validate_draft": "askai_graph.validation",
}


__all__ = [
    "AskState",
    "BM25Retriever",
    "CondenseRequest",
    "Condenser",
    "Corpus",
    "CorpusError",
    "Critic",
    "Critique",
    "DraftRequest",
    "ExtractiveWriter",
    "ImageRef",
    "InputState",
    "LexicalCondenser",
    "LexicalCritic",
    "MalformedReview",
    "Outcome",
    "Page",
    "Post",
    "ReviewCode",
    "ReviewFailure",
    "ReviewRequest",
    "RunOptions",
    "SearchResult",
    "Settings",
    "Source",
    "Turn",
    "ValidationIssue",
    "ValidationReport",
    "Writer",
    "__version__",
    "build_graph",
    "is_catalog_question",
    "load_corpus",
    "parse_critique",
    "should_expose_retrieved_links",
    "validate_draft",
]


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    """List the public names with the module's own."""
    return sorted(set(globals()) | set(__all__))
