"""askai-graph: an "Ask AI" answer engine for content sites, as a LangGraph state machine.

No source card is ever shown under an answer that failed review, and no citation reaches
the reader unless it was actually retrieved.
"""

from askai_graph.catalog import is_catalog_question
from askai_graph.condensing import Condenser, CondenseRequest
from askai_graph.corpus import Corpus, CorpusError, Post, load_corpus
from askai_graph.critique import Critique, MalformedReview, ReviewCode, parse_critique
from askai_graph.evidence import ImageRef, SearchResult
from askai_graph.gates import should_expose_retrieved_links
from askai_graph.graph import build_graph
from askai_graph.offline import ExtractiveWriter, LexicalCondenser, LexicalCritic
from askai_graph.retrieval import BM25Retriever
from askai_graph.reviewing import Critic, ReviewRequest
from askai_graph.settings import RunOptions, Settings
from askai_graph.state import AskState, InputState, Outcome, ReviewFailure, Source, Turn
from askai_graph.validation import ValidationIssue, ValidationReport, validate_draft
from askai_graph.writing import DraftRequest, Writer

__version__ = "0.1.0"

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
