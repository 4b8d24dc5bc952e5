"""The graph's typed shared state: what the reader sends, what every stage writes.

On a thread (a checkpointer), every key persists into the next question's run. Two kinds
of keys therefore exist: the conversation (``question``, ``history``), which carries
over, and everything else, which belongs to one question and is reset by
``new_turn_state()`` when the next question starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, model_validator
from typing_extensions import TypedDict

from askai_graph.evidence.citations import Citation
from askai_graph.evidence.critique import Critique
from askai_graph.evidence.results import SearchResult
from askai_graph.text.masking import mask, mask_echoes, searchable
from askai_graph.validation import ValidationReport

Outcome = Literal["accepted", "accepted_early", "degraded", "fallback"]
GateStatus = Literal["passed", "failed", "skipped"]


class ReviewFailure(BaseModel):
    """One reason the Critic gate failed (a threshold, drift, a malformed reply...)."""

    model_config = ConfigDict(frozen=True)

    code: str
    """Stable code: a ``ReviewCode`` value (low_confidence, low_relevance, intent_mismatch,
    drift, ungrounded_claims, malformed_review or provider_error), stored as a plain string."""
    message: str
    """Human-readable detail."""


class Source(BaseModel):
    """A source card shown under an answer that passed both gates."""

    model_config = ConfigDict(frozen=True)

    title: str
    """Page title."""
    url: str
    """Exact retrieved post URL."""
    section: str = ""
    """The heading of the section the card's quote comes from ('' for a page's opening text)."""
    anchor_url: str = ""
    """``url`` with that section's anchor, or a ``#:~:text=`` fragment of the quote ('' when none)."""
    quote: str = ""
    """The passage the answer rests on, verbatim from the retrieved page (at most ~200 characters)."""
    fallback_locale: str = ""
    """The page's language when it is not the reader's: a page not translated yet ('' otherwise)."""


class Turn(BaseModel):
    """One finished question of a conversation, as later turns (and the thread's store) see it.

    A turn is masked as it is made (``masking``): the questions with their contacts,
    card numbers and secrets replaced by labels, the answer with the reader's own such
    values masked where it repeats them. Later turns and the checkpoint keep only that.
    """

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _masked(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        asked = (data.get("question"), data.get("standalone_question"))
        masked = {key: mask(data[key]) for key in ("question", "standalone_question") if isinstance(data.get(key), str)}
        if isinstance(data.get("answer"), str):
            masked["answer"] = mask_echoes(data["answer"], *(text for text in asked if isinstance(text, str)))
        return {**data, **masked}

    question: str
    """What the reader asked, in their words."""
    standalone_question: str
    """The question actually researched (the follow-up rewritten to stand alone)."""
    answer: str
    """The final answer the reader got."""
    outcome: Outcome
    """How that turn ended."""
    cited_urls: tuple[str, ...] = ()
    """Retrieved post URLs the answer cited (empty for a fallback)."""
    version: str = ""
    """The docs version the turn was asked in (the run's ``version``; '' for the site's default)."""
    locale: str = ""
    """The language the turn was asked in (the run's ``locale``; '' for the site's default)."""

    def in_scope(self, version: str | None, locale: str | None) -> bool:
        """Whether this turn was asked in ``version`` and ``locale`` (``None`` and '' alike: the default)."""
        return (self.version, self.locale) == (version or "", locale or "")


class InputState(TypedDict):
    """What a caller passes in: ``{"question": ...}``."""

    question: str
    """The reader's question."""


class OutputState(InputState, total=False):
    """What a caller of the graph sees: the answer and the gates' decision, nothing retrieved.

    The graph's output schema: ``invoke``, ``stream`` values, LangGraph Server's ``/runs/wait``
    and ``/mcp`` return these keys only. Retrieved results, drafts and verdicts are candidate
    evidence, not endorsement; they stay in the state (``STATE_KEYS``, the checkpoint).
    """

    standalone_question: str
    """The question researched, reviewed and cached: ``question`` unless a follow-up was rewritten."""
    attempts: int
    """Drafts written so far."""
    answer: str
    """The final text for the reader."""
    outcome: Outcome | None
    """How the run ended; ``None`` until it has."""
    gates: dict[str, GateStatus]
    """Per-gate status of the final draft: retrieval, validation, critic."""
    sources: list[Source]
    """Source cards; non-empty only when the Source Gate passed."""
    history_read: bool
    """A Writer or Critic prompt of this question carried the thread's earlier turns, so the
    answer may hold what the reader said there: the server never caches it for others."""


class RejectedDraft(TypedDict):
    """A draft that passed Validation and failed review, kept for the degraded answer."""

    draft: str
    confidence: float
    """The Critic's confidence in it (0 when its review was malformed or failed)."""
    retrieved: list[str]
    """The URLs of the pages (and images) retrieved for it: none may stay in its unverified text."""
    validation: ValidationReport | None
    """Its Validation report: what it cites, for the thread's turn and the run log."""
    citations: list[Citation]
    """Its citing sentences, anchored."""


class AskState(OutputState, total=False):
    """The full shared state every node reads and writes its own keys of."""

    history: list[Turn]
    """Earlier turns of this thread, oldest first, at most ``max_history_turns``."""
    needs_context: bool
    """The question leans on earlier turns that this thread does not have."""
    query: str
    """The current Research query: the question plus, on retries, the Critic's gaps."""
    search_results: list[SearchResult]
    """Candidate posts from the latest Research pass (untrusted evidence)."""
    draft: str
    """The latest Writer draft (never shown to a reader until it is final)."""
    writer_error: str | None
    """Why the Writer produced no draft (a provider failure), if it failed."""
    validation: ValidationReport | None
    """Validation of the latest draft; ``None`` when it has not run on it."""
    citations: list[Citation]
    """The latest draft's citing sentences, each anchored to the retrieved passage it rests on."""
    critique: Critique | None
    """The Critic's parsed review of the latest draft; ``None`` if none or malformed."""
    review_failures: list[ReviewFailure]
    """Why the Critic gate failed on the latest draft (empty when it passed)."""
    gaps: list[str]
    """The latest Critic's gaps, carried into the next Research query and the next draft."""
    rejected_drafts: list[str]
    """This question's earlier drafts that a gate rejected: a retry must not repeat them."""
    best_rejected: RejectedDraft | None
    """Of this question's valid drafts the Critic rejected, the one it was most confident in (the
    earliest on a tie): what ``degrade`` shows. A retry's draft answers from the Writer's
    next-best passage, so the last draft is often not the best one."""


CONVERSATION_KEYS = frozenset({"question", "history"})
"""State keys that carry over from one question of a thread to the next."""

STATE_KEYS: tuple[str, ...] = tuple(get_type_hints(AskState))
"""Every state key: ``graph.stream(..., output_keys=STATE_KEYS)`` (or ``invoke``) returns the whole
state, internals included, to a caller in the same process (the server, the CLI, the eval, tests)."""


def new_turn_state() -> dict[str, Any]:
    """Return the update that starts a question afresh: every per-question key reset.

    Without it a checkpointer hands the previous question's attempts, draft, verdicts
    and gaps to the next one (fewer retries, stale verdicts).
    """
    return {
        "standalone_question": "",
        "needs_context": False,
        "query": "",
        "search_results": [],
        "draft": "",
        "writer_error": None,
        "attempts": 0,
        "validation": None,
        "citations": [],
        "critique": None,
        "review_failures": [],
        "gaps": [],
        "rejected_drafts": [],
        "best_rejected": None,
        "answer": "",
        "outcome": None,
        "gates": {},
        "sources": [],
        "history_read": False,
    }


def researched_question(state: AskState) -> str:
    """Return the question Research, Writer, Critic and the catalog rule work on: masked, no label a term."""
    return searchable(str(state.get("standalone_question") or state["question"]))


def retrieved_urls(state: AskState) -> list[str]:
    """Return every URL of the retrieved pages (and their images): none may stay in an unverified answer."""
    results = state.get("search_results") or []
    return [result.source_url for result in results] + [image.url for result in results for image in result.images]


def checkpoint_types() -> frozenset[tuple[str, str]]:
    """Return ``(module, name)`` of every model the state holds, for a checkpoint serializer.

    Walked from the annotations, so a field added to a nested model is covered too.
    """
    found: set[type[BaseModel]] = set()

    def walk(annotation: Any) -> Iterator[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in found:
                found.add(annotation)
                yield annotation
                for field in annotation.model_fields.values():
                    yield from walk(field.annotation)
        for arg in get_args(annotation):
            yield from walk(arg)

    for hint in get_type_hints(AskState).values():
        list(walk(hint))
    return frozenset((model.__module__, model.__name__) for model in found)
