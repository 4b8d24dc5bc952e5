"""Condense: start a question afresh, and rewrite a follow-up into a standalone question.

Every question on a thread starts here, so the per-question keys (attempts, drafts,
verdicts, gaps, results) are reset whatever the checkpointer holds. With earlier turns,
a question that leans on them (a reference, an elliptical opening or no topical term,
as ``offline.condenser`` detects) is rewritten by the injected ``Condenser``; one that
stands alone costs no model call. A model's reply that is empty, too long, or a
provider failure falls back to the deterministic lexical rewrite, so a follow-up is
never researched on a model's error message.

The reader's text is masked here, at the graph's edge (``masking``): the state keeps
the question masked from this stage on, so no later stage, model or store sees a
pasted e-mail, key or card number, or derives a term from one.

A caller that condensed the question before the run (the server, to look its answer
cache up before any Research) passes the standalone question under ``PRECONDENSED`` in
the run's ``configurable``: the node then starts the question with it and asks no
condenser again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from askai_graph.models.condensing import Condenser, CondenseRequest, recent_turns
from askai_graph.models.offline.condenser import LexicalCondenser, leans_on_history, needs_context
from askai_graph.nodes.calls import Body, arun, both, run
from askai_graph.settings import Settings
from askai_graph.state import AskState, Turn, new_turn_state
from askai_graph.text.masking import mask
from askai_graph.text.plain import clean_question

logger = logging.getLogger(__name__)
_LEXICAL = LexicalCondenser()

PRECONDENSED = "askai_condensed"
"""The ``configurable`` key of a run whose question was condensed before it started:
``{"question": <the reader's words>, "standalone_question": <the condensed question>}``."""


def condense_request(state: AskState, settings: Settings) -> CondenseRequest | None:
    """Return the request for the condenser, or ``None`` when there is nothing to condense.

    That is a thread's first question, or a question that stands alone.
    """
    history = recent_turns(
        state.get("history") or [], max(1, settings.history_prompt_turns), settings.version, settings.locale
    )
    question = mask(clean_question(state["question"]))  # a condenser model never receives a reader's secret
    if not history or not leans_on_history(question):
        return None
    return CondenseRequest(question=question, history=history)


def checked(reply: Any, request: CondenseRequest, settings: Settings) -> str:
    """Return the model's standalone question, or the lexical rewrite if the reply is unusable."""
    lines = reply.strip().splitlines() if isinstance(reply, str) else []
    text = lines[0].strip().strip("\"'“”").strip() if lines else ""
    if not text or len(text) > settings.max_question_chars:
        logger.warning("condenser reply unusable (%d chars); using the lexical rewrite", len(text))
        return _LEXICAL.condense(request)
    return text


def in_scope(state: AskState, settings: Settings) -> bool:
    """Whether the thread has a turn in this run's version and language (``recent_turns``)."""
    return bool(recent_turns(state.get("history") or [], 1, settings.version, settings.locale))


def started(state: AskState, standalone: str, *, first: bool) -> dict[str, Any]:
    """Return the state update that starts this question."""
    update = new_turn_state()
    update["needs_context"] = first and needs_context(state["question"])
    # Every surface (HTTP, CLI, invoke) asks through here: research what the reader saw, masked.
    update["question"] = mask(state["question"])
    update["standalone_question"] = mask(clean_question(standalone))
    return update


def precondensed(state: AskState, config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Return the update that starts this question with the caller's condensation, if one came with the run.

    Only for the very question it was made for: a stale value never rewrites another.
    """
    given = ((config or {}).get("configurable") or {}).get(PRECONDENSED)
    if not isinstance(given, Mapping) or given.get("question") != state["question"]:
        return None
    return started(state, str(given["standalone_question"]), first=not state.get("history"))


class Condense:
    """Reset the per-question state and condense a follow-up with the injected Condenser."""

    def __init__(self, condenser: Condenser) -> None:
        """Use ``condenser`` for follow-ups."""
        self.condenser = condenser

    def __call__(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Condense synchronously."""
        return run(self._condense(state, settings))

    async def acall(self, state: AskState, settings: Settings) -> dict[str, Any]:
        """Condense asynchronously."""
        return await arun(self._condense(state, settings))

    def _condense(self, state: AskState, settings: Settings) -> Body[dict[str, Any]]:
        request = condense_request(state, settings)
        if request is None:
            return started(state, state["question"], first=not in_scope(state, settings))
        try:
            reply = yield both(self.condenser.condense, self.condenser.acondense, request)
        except Exception as exc:
            logger.warning("condenser failed: %r; using the lexical rewrite", exc)
            reply = _LEXICAL.condense(request)
        return started(state, checked(reply, request, settings), first=False)

    async def before_run(
        self, question: str, history: Sequence[Turn], context: Mapping[str, Any] | None = None, *, settings: Settings
    ) -> dict[str, Any]:
        """Condense ``question`` on a thread holding ``history``, outside any run (with the run's ``context``).

        Returns the update the node would write (``standalone_question``,
        ``needs_context``...): pass its ``standalone_question`` under ``PRECONDENSED`` so
        the run does not condense again.
        """
        run_settings = settings.with_overrides(dict(context or {}))
        return await self.acall({"question": question, "history": list(history)}, run_settings)
