"""Writer: draft a cited Markdown answer; a provider failure yields an empty draft."""

from __future__ import annotations

import logging
from typing import Any

from askai_graph.evidence.results import SearchResult
from askai_graph.models.condensing import recent_turns
from askai_graph.models.writing import DraftRequest, Writer
from askai_graph.nodes.calls import Body, arun, both, run
from askai_graph.rules.catalog import is_catalog_question
from askai_graph.settings import Settings
from askai_graph.state import AskState, researched_question

logger = logging.getLogger(__name__)


def draft_request(state: AskState, settings: Settings) -> DraftRequest:
    """Build the Writer's request, carrying why the previous draft was rejected."""
    feedback: list[str] = []
    report, critique = state.get("validation"), state.get("critique")
    if report is not None:
        feedback += [issue.message for issue in report.errors]
    feedback += [failure.message for failure in state.get("review_failures") or []]
    if critique is not None:
        feedback += [f"Unsupported claim: {claim}" for claim in critique.ungrounded_claims]
        feedback += [f"Missing from the answer: {gap}" for gap in critique.gaps]
    results = state.get("search_results", [])
    question = researched_question(state)
    return DraftRequest(
        question=question,
        search_results=results,
        feedback=feedback,
        catalog=is_catalog_question(question),
        evidence_chars=settings.writer_evidence_chars,
        history=recent_turns(
            state.get("history") or [], settings.history_prompt_turns, settings.version, settings.locale
        ),
        rejected=rejected_drafts(state),
        locale=pages_locale(settings, results),
    )


def pages_locale(settings: Settings, results: list[SearchResult]) -> str:
    """Return the language the retrieved pages are read in: the reader's, unless none is translated yet.

    A reader in a locale whose pages are all untranslated gets the default language's
    pages (their ``fallback_locale``): they, and an answer quoting them, are read in it.
    """
    fallbacks = {result.fallback_locale for result in results}
    if results and len(fallbacks) == 1 and "" not in fallbacks:
        return fallbacks.pop()
    return settings.locale or ""


def rejected_drafts(state: AskState) -> list[str]:
    """Return this question's rejected drafts, the latest one (about to be replaced) included."""
    earlier = list(state.get("rejected_drafts") or [])
    draft = state.get("draft") or ""
    return [*earlier, draft] if draft and draft not in earlier else earlier


def reads_history(role: object, history: list[Any]) -> bool:
    """Say whether ``role`` (a Writer or Critic) is given earlier turns that it reads.

    A role says it ignores them with ``reads_history = False`` (the offline ones); any
    other, a chat model's adapter above all, is taken to read what its prompt holds.
    """
    return bool(history) and bool(getattr(role, "reads_history", True))


def _drafted(state: AskState, draft: Any, error: str | None) -> dict[str, Any]:
    if error is None and not isinstance(draft, str):
        error = f"writer returned {type(draft).__name__}, not text"
    # A new draft invalidates the previous verdicts: the gates must run on it afresh.
    return {
        "rejected_drafts": rejected_drafts(state),
        "draft": draft if error is None else "",
        "writer_error": error,
        "attempts": state.get("attempts", 0) + 1,
        "validation": None,
        "critique": None,
        "review_failures": [],
    }


class Write:
    """The writer node: ask the injected Writer for a draft."""

    def __init__(self, writer: Writer) -> None:
        """Use ``writer`` for every draft."""
        self.writer = writer

    def __call__(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Draft synchronously."""
        return run(self._write(state, settings))

    async def acall(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Draft asynchronously."""
        return await arun(self._write(state, settings))

    def _write(self, state: AskState, settings: Settings) -> Body[dict[str, Any]]:
        # The request is cheap (no evidence slice): the Writer that needs one slices it off the loop.
        request = draft_request(state, settings)
        try:
            update = _drafted(state, (yield both(self.writer.write, self.writer.awrite, request)), None)
        except Exception as exc:
            logger.warning("writer failed: %r", exc)
            update = _drafted(state, "", f"writer failed: {type(exc).__name__}: {exc}")
        return update | self._read(state, request)

    def _read(self, state: AskState, request: DraftRequest) -> dict[str, Any]:
        return {"history_read": True} if reads_history(self.writer, request.history) else {}
