"""Gate rules as pure functions of state.

Critic thresholds, catalog early acceptance, the Source Gate, and the display list of
sources.

Routers (``edges.py``) and nodes both call these, so a rule lives in exactly one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from askai_graph.evidence.citations import Citation, best_citations, plain_heading, plain_inline
from askai_graph.evidence.critique import Critique, ReviewCode
from askai_graph.evidence.results import SearchResult
from askai_graph.rules.catalog import is_catalog_question
from askai_graph.settings import Settings
from askai_graph.state import AskState, GateStatus, ReviewFailure, Source, researched_question
from askai_graph.validation import ValidationReport


def review_failures(critique: Critique, settings: Settings) -> list[ReviewFailure]:
    """Return every way ``critique`` fails the configured thresholds (empty = passed)."""
    failures = []
    if critique.confidence < settings.min_confidence:
        failures.append(
            ReviewFailure(
                code=ReviewCode.LOW_CONFIDENCE,
                message=f"confidence {critique.confidence:.2f} < {settings.min_confidence:.2f}",
            )
        )
    if critique.answer_relevance < settings.min_answer_relevance:
        failures.append(
            ReviewFailure(
                code=ReviewCode.LOW_RELEVANCE,
                message=f"answer_relevance {critique.answer_relevance:.2f} < {settings.min_answer_relevance:.2f}",
            )
        )
    if critique.intent_alignment < settings.min_intent_alignment:
        failures.append(
            ReviewFailure(
                code=ReviewCode.INTENT_MISMATCH,
                message=f"intent_alignment {critique.intent_alignment:.2f} < {settings.min_intent_alignment:.2f}",
            )
        )
    if critique.drift_detected:
        failures.append(ReviewFailure(code=ReviewCode.DRIFT, message="the draft drifts away from the question"))
    if critique.ungrounded_claims:
        failures.append(
            ReviewFailure(
                code=ReviewCode.UNGROUNDED_CLAIMS,
                message=f"{len(critique.ungrounded_claims)} claim(s) not supported by the evidence",
            )
        )
    return failures


def cited_page_urls(state: AskState) -> list[str]:
    """Return the distinct retrieved post URLs the latest draft links to (per Validation)."""
    report: ValidationReport | None = state.get("validation")
    return list(report.cited_urls) if report is not None else []


def validation_passed(state: AskState) -> bool:
    """Whether the latest draft was validated and passed (missing = failed: fail closed)."""
    report = state.get("validation")
    return report is not None and report.ok


def critic_passed(state: AskState) -> bool:
    """Whether the latest draft was reviewed and passed every threshold (missing = failed)."""
    return state.get("critique") is not None and not state.get("review_failures")


def is_early_catalog_acceptance(state: AskState, settings: Settings) -> bool:
    """Whether a catalog answer may stop now although the Critic did not fully pass.

    Requires: a catalog question, Validation passed, a parsed (not malformed) review whose
    only failure is low confidence, and at least ``catalog_min_sources`` distinct
    retrieved posts cited.
    """
    if not is_catalog_question(researched_question(state)) or not validation_passed(state):
        return False
    if state.get("critique") is None:
        return False
    if any(failure.code != ReviewCode.LOW_CONFIDENCE for failure in state.get("review_failures", [])):
        return False
    return len(cited_page_urls(state)) >= settings.catalog_min_sources


def should_expose_retrieved_links(state: AskState | Mapping[str, Any]) -> bool:
    """Return whether source cards may be shown: the Source Gate rule, exactly.

    Results exist AND no Validation failure AND no Critic failure, where low confidence
    counts as a Critic failure and a missing validation or review counts as a failure.

    ``state`` is the whole state (the checkpoint, ``output_keys=STATE_KEYS``) or what
    ``invoke`` returns: the public output holds no retrieved results or verdicts, only
    the ``gates`` the run recorded from them (``gate_statuses``), which say the same.
    """
    if "gates" in state and not _holds_verdicts(state):
        gates = state["gates"] or {}
        return all(gates.get(gate) == "passed" for gate in ("retrieval", "validation", "critic"))
    whole = cast(AskState, state)
    return bool(whole.get("search_results")) and validation_passed(whole) and critic_passed(whole)


def _holds_verdicts(state: Mapping[str, Any]) -> bool:
    """Whether ``state`` carries what the gates are decided from (else it is the public output)."""
    return any(key in state for key in ("search_results", "validation", "critique", "review_failures"))


def gate_statuses(state: AskState) -> dict[str, GateStatus]:
    """Say which gate the final draft passed, failed or never reached."""
    retrieval: GateStatus = "passed" if state.get("search_results") else "failed"
    validation: GateStatus = (
        "skipped" if state.get("validation") is None else "passed" if validation_passed(state) else "failed"
    )
    reviewed = state.get("critique") is not None or bool(state.get("review_failures"))
    critic: GateStatus = "skipped" if not reviewed else "passed" if critic_passed(state) else "failed"
    return {"retrieval": retrieval, "validation": validation, "critic": critic}


def display_sources(state: AskState) -> list[Source]:
    """Return the source cards: the retrieved posts the answer links, in order of first citation.

    An uncited retrieved post is never a card: a card says "the answer used this page",
    and a page that was only retrieved is candidate evidence, not a source. Validation's
    ``cited_urls`` are distinct and in draft order; a URL outside this request's results
    (impossible once Validation passed) is never shown.
    """
    results: list[SearchResult] = state.get("search_results", [])
    by_url: dict[str, SearchResult] = {}
    for result in results:
        by_url.setdefault(result.source_url, result)
    evidence = card_evidence(state.get("citations", []))
    return [
        Source(title=by_url[url].title, url=url, fallback_locale=by_url[url].fallback_locale, **evidence.get(url, {}))
        for url in cited_page_urls(state)
        if url in by_url
    ]


def card_evidence(citations: list[Citation]) -> dict[str, dict[str, str]]:
    """Return each cited URL's card evidence: its best-supported citation (the first on a tie).

    Validation checked every citation's quote and anchor against the retrieved text, so
    a card shows only what the page says, where it says it. The section and the quote are
    shown as plain text, as the page renders them (no Markdown link, emphasis or code markers).
    """
    return {
        url: {"section": plain_heading(c.section), "anchor_url": c.anchor_url, "quote": plain_inline(c.quote)}
        for url, c in best_citations(citations).items()
    }
