"""One adapter that lets any LangChain chat model play the Writer, the Critic and the Condenser.

The three roles differ only in their prompts (``writing``, ``reviewing``, ``condensing``
build the messages); asking the model and reading its reply text is the same for all,
sync and async. Provider failures are not handled here: they propagate to the node,
which turns them into a gate failure (or, for the Condenser, the lexical rewrite).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langchain_core.messages import BaseMessage

from askai_graph.models.condensing import CondenseRequest, condenser_messages
from askai_graph.models.reviewing import ReviewRequest, critic_messages
from askai_graph.models.writing import DraftRequest, writer_messages

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class ChatModelAdapter:
    """A ``Writer``, ``Critic`` and ``Condenser`` backed by one chat model and the project's prompts."""

    def __init__(self, model: BaseChatModel) -> None:
        """Wrap ``model``."""
        self.model = model

    def write(self, request: DraftRequest) -> str:
        """Ask the model for a draft."""
        return self._ask(writer_messages(request))

    async def awrite(self, request: DraftRequest) -> str:
        """Ask the model for a draft, asynchronously."""
        # Slicing the evidence analyses every retrieved post: CPU work, kept off the event loop.
        return await self._aask(await asyncio.to_thread(writer_messages, request))

    def review(self, request: ReviewRequest) -> str:
        """Ask the model for a review (Critique JSON text, parsed strictly by the Critic node)."""
        return self._ask(critic_messages(request))

    async def areview(self, request: ReviewRequest) -> str:
        """Ask the model for a review, asynchronously."""
        return await self._aask(critic_messages(request))

    def condense(self, request: CondenseRequest) -> str:
        """Ask the model for the standalone question."""
        return self._ask(condenser_messages(request))

    async def acondense(self, request: CondenseRequest) -> str:
        """Ask the model for the standalone question, asynchronously."""
        return await self._aask(condenser_messages(request))

    def _ask(self, messages: Sequence[BaseMessage]) -> str:
        return self.model.invoke(list(messages)).text

    async def _aask(self, messages: Sequence[BaseMessage]) -> str:
        return (await self.model.ainvoke(list(messages))).text
