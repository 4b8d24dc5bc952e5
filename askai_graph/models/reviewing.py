"""The Critic seam: the review request, the Critic protocol and its chat-model prompt."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict

from askai_graph.evidence.results import EvidencePassage
from askai_graph.models.condensing import history_block
from askai_graph.models.prompts import CRITIC_SYSTEM, CRITIC_USER
from askai_graph.models.writing import format_sources
from askai_graph.state import Turn
from askai_graph.text.fencing import fence


class ReviewRequest(BaseModel):
    """Everything the Critic may see for one review."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The question the draft must answer (a follow-up already rewritten to stand alone)."""
    draft: str
    """The draft under review."""
    evidence: list[EvidencePassage]
    """A bounded slice of the retrieved evidence."""
    history: list[Turn] = []
    """The conversation's most recent turns (bounded), oldest first."""
    locale: str = ""
    """The reader's language (the run's ``locale``; '' for the site's default): the pages' language."""


@runtime_checkable
class Critic(Protocol):
    """Anything that reviews a draft and replies with Critique JSON text."""

    def review(self, request: ReviewRequest) -> str:
        """Return the raw reply text (parsed strictly by the Critic node)."""
        ...

    async def areview(self, request: ReviewRequest) -> str:
        """Return the raw reply text without blocking the event loop."""
        ...


def critic_messages(request: ReviewRequest) -> list[BaseMessage]:
    """Build the Critic's chat messages for ``request``."""
    evidence = format_sources(
        [passage.result for passage in request.evidence],
        content=[passage.text for passage in request.evidence],
    )
    user = CRITIC_USER.format(
        question=fence(request.question),
        history=history_block(request.history),
        draft=fence(request.draft),
        evidence=evidence,
    )
    return [SystemMessage(CRITIC_SYSTEM), HumanMessage(user)]
