"""Translate graph progress and results into the SSE contract's event payloads.

Pure functions, no I/O. The contract (the README's HTTP section, ``docs/ARCHITECTURE.md``):

- ``step`` ``{"node", "attempt", ...}`` as each stage completes, with a *short* summary:
  counts, pass/fail and stable failure codes only. Never retrieved text or URLs (they
  are candidate evidence, not endorsement), never the draft or the Writer's context,
  never the Critic's scores, claims or gaps.
- ``token`` ``{"text"}``: the final answer in word-aligned chunks; joined, they are the
  answer exactly.
- ``sources`` ``[{"title", "url", "section", "anchor_url", "quote"}]``: only when the
  Source Gate passed; titles and sections are plain text (no markup, no control, bidi
  or zero-width characters); ``quote`` is the passage the answer rests on, verbatim
  from the retrieved page, and ``anchor_url`` links to its place on the page.
- ``done`` ``{"outcome", "attempts", "cached", "gates", "thread_id", "thread_token", "run_id"}``;
  ``thread_token`` is the conversation's secret (``stores.thread_tokens``): it rides on
  the event only, never in the run summary, so no log or report ever holds it.
- ``error`` ``{"message"}``.

``attempt`` in a ``step`` is the draft the stage works on: Research prepares draft
``n + 1`` after ``n`` drafts; the Writer, Validation and Critic report the draft just
written; the end nodes and the Source Gate report the drafts written in total (0 when
nothing was retrieved).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from askai_graph.rules.gates import critic_passed, validation_passed
from askai_graph.state import AskState, Source
from askai_graph.summary import RunSummary
from askai_graph.text.plain import plain_text, strip_invisible

EventName = Literal["step", "token", "sources", "done", "error"]
Event = tuple[EventName, Any]
"""One SSE event before framing: its name and its JSON-ready data."""

END_NODES = frozenset({"accept", "accept_early", "degrade", "fallback"})
INTERNAL_ERROR = "Internal error while answering; please try again."
_PIECE = re.compile(r"\s*\S+\s*|\s+")


def step(node: str, update: Mapping[str, Any], state: AskState) -> Event:
    """Summarise one completed stage.

    Args:
        node: The node that completed.
        update: What it wrote.
        state: The state with ``update`` applied.

    Returns:
        The ``step`` event.
    """
    drafts = int(state.get("attempts") or 0)
    data: dict[str, Any] = {"node": node, "attempt": drafts}
    if node == "research":
        # Whether a follow-up was researched as a rewritten, standalone question.
        rewritten = bool(state.get("standalone_question")) and state.get("standalone_question") != state.get("question")
        data |= {"attempt": drafts + 1, "results": len(update.get("search_results") or []), "rewritten": rewritten}
    elif node == "writer":
        data["drafted"] = bool(update.get("draft"))
    elif node == "validation":
        report = update.get("validation")
        codes = sorted({issue.code for issue in report.errors}) if report is not None else []
        data |= {"passed": validation_passed(state), "errors": codes}
    elif node == "critic":
        data |= {"passed": critic_passed(state), "failures": [f.code for f in update.get("review_failures") or []]}
    elif node in END_NODES:
        data["outcome"] = update.get("outcome")
    elif node == "source_gate":
        data["passed"] = bool(update.get("sources"))
    return "step", data


def token_chunks(text: str, size: int) -> Iterator[str]:
    """Split ``text`` into word-aligned chunks of about ``size`` characters.

    A chunk ends after whitespace, so no word is split; a word longer than ``size`` is
    a chunk of its own. ``"".join(token_chunks(text, size)) == text`` always.
    """
    chunk = ""
    for match in _PIECE.finditer(text):
        chunk += match.group()
        if len(chunk) >= size:
            yield chunk
            chunk = ""
    if chunk:
        yield chunk


class Done(dict[str, Any]):
    """The ``done`` event's data, carrying the run's summary for the run log."""

    def __init__(self, summary: RunSummary, **secret: str) -> None:
        """Hold ``summary`` and its ``done`` payload, plus ``secret`` keys the summary never holds (the token)."""
        super().__init__(summary.done_payload() | secret)
        self.summary = summary
        self.secret = secret

    def with_summary(self, summary: RunSummary) -> Done:
        """Return the event for ``summary`` (an id added) with the same secret keys."""
        return Done(summary, **self.secret)


def answer_events(
    final: Mapping[str, Any] | RunSummary,
    *,
    cached: bool = False,
    token_chars: int,
    ids: Mapping[str, str] | None = None,
) -> Iterator[Event]:
    """Yield the events that deliver a final answer: tokens, sources, then ``done``.

    Args:
        final: The finished run's summary, or its state (or a cached answer's fields).
        cached: Whether the answer comes from the semantic cache: then ``attempts`` is 0
            (no draft was written for this request) and the sources are the cards the
            answer was stored with (``cache.CachedAnswer.sources``).
        token_chars: About how many characters each ``token`` event carries.
        ids: ``thread_id``, ``run_id`` and ``thread_token`` for ``done``, when the run is on a thread.
    """
    ids = dict(ids or {})
    secret = {"thread_token": token} if (token := ids.pop("thread_token", None)) else {}
    summary = final if isinstance(final, RunSummary) else RunSummary.from_state(final, cached=cached, **ids)
    for text in token_chunks(summary.answer, token_chars):
        yield "token", {"text": text}
    if summary.sources:
        # Titles are plain text (cleaned again here: a custom retriever's metadata may not be).
        yield "sources", [source_card(source) for source in summary.sources]
    yield "done", Done(summary, **secret)


def source_card(source: Source) -> dict[str, object]:
    """Return one card of the ``sources`` event: the page, and the evidence the answer rests on.

    Titles and sections are cleaned again here (a custom retriever's metadata may not
    be); the quote keeps its words, minus invisible characters. A page not translated
    into the reader's language yet says so: ``untranslated`` and its own ``locale``.
    """
    card: dict[str, object] = {
        "title": plain_text(source.title),
        "url": source.url,
        "section": plain_text(source.section),
        "anchor_url": source.anchor_url or source.url,
        "quote": strip_invisible(source.quote),
    }
    if source.fallback_locale:
        card.update(untranslated=True, locale=plain_text(source.fallback_locale))
    return card


def error() -> Event:
    """Return the ``error`` event; details stay in the server log, never in the stream."""
    return "error", {"message": INTERNAL_ERROR}
