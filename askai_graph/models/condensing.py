"""The condenser seam: turn a follow-up into a standalone question, and show history to models.

A follow-up ("how do I tune it?") cannot be researched, reviewed or cached on its own
words. A ``Condenser`` rewrites it from the thread's recent turns; the chat-model one
uses a fixed prompt in which the history is fenced, labelled data. Earlier answers were
built from retrieved posts, so they are as untrusted as the posts themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict

from askai_graph.models.prompts import CONDENSE_SYSTEM, CONDENSE_USER, HISTORY_BLOCK, HISTORY_TURN
from askai_graph.state import Turn
from askai_graph.text.fencing import fence

ANSWER_CHARS = 500
"""Characters of each earlier answer a model sees: enough to resolve "it", not a transcript."""


class CondenseRequest(BaseModel):
    """A follow-up and the turns it may lean on."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The reader's question, in their words."""
    history: list[Turn]
    """The most recent turns, oldest first (never empty when a condenser is asked)."""


@runtime_checkable
class Condenser(Protocol):
    """Anything that rewrites a follow-up into a standalone question, sync and async."""

    def condense(self, request: CondenseRequest) -> str:
        """Return the standalone question (the question itself when it stands alone)."""
        ...

    async def acondense(self, request: CondenseRequest) -> str:
        """Return the standalone question without blocking the event loop."""
        ...


def recent_turns(
    history: Sequence[Turn], turns: int, version: str | None = None, locale: str | None = None
) -> list[Turn]:
    """Return the last ``turns`` turns asked in ``version`` and ``locale`` (none when ``turns`` is 0).

    A thread's turns in another version or language are left out: a follow-up on the
    Spanish 1.0 pages leans on what was asked there, never on an answer from other pages.
    """
    if turns <= 0:
        return []
    return [turn for turn in history if turn.in_scope(version, locale)][-turns:]


def format_turns(history: Sequence[Turn]) -> str:
    """Render turns as fenced ``<turn>`` blocks, each answer shortened to ``ANSWER_CHARS``."""
    blocks = []
    for index, turn in enumerate(history, start=1):
        answer = turn.answer if len(turn.answer) <= ANSWER_CHARS else turn.answer[:ANSWER_CHARS] + " …"
        blocks.append(
            HISTORY_TURN.format(
                index=index, question=fence(turn.standalone_question), answer=fence(" ".join(answer.split()))
            )
        )
    return "\n".join(blocks)


def history_block(history: Sequence[Turn]) -> str:
    """Return the history section of a Writer or Critic prompt ("" without history)."""
    return HISTORY_BLOCK.format(turns=format_turns(history)) if history else ""


def condenser_messages(request: CondenseRequest) -> list[BaseMessage]:
    """Build the condensation prompt for ``request``."""
    user = CONDENSE_USER.format(history=format_turns(request.history), question=fence(request.question))
    return [SystemMessage(CONDENSE_SYSTEM), HumanMessage(user)]
