"""One chat-model adapter plays the Writer, the Critic and the Condenser, each with its own prompt."""

from __future__ import annotations

import asyncio

import pytest

from askai_graph.models.adapter import ChatModelAdapter
from askai_graph.models.condensing import Condenser, CondenseRequest
from askai_graph.models.prompts import CONDENSE_SYSTEM, CRITIC_SYSTEM, WRITER_SYSTEM
from askai_graph.models.providers import as_critic, as_writer, default_condenser
from askai_graph.models.reviewing import Critic, ReviewRequest
from askai_graph.models.writing import DraftRequest, Writer
from askai_graph.settings import Settings
from askai_graph.state import Turn
from tests.fakes import replies

QUESTION = "How does BM25 rank documents?"
TURN = Turn(
    question="What is BM25?", standalone_question="What is BM25?", answer="A ranking function.", outcome="accepted"
)
ROLES = {
    "write": (DraftRequest(question=QUESTION, search_results=[]), WRITER_SYSTEM),
    "review": (ReviewRequest(question=QUESTION, draft="A draft.", evidence=[]), CRITIC_SYSTEM),
    "condense": (CondenseRequest(question="And its tuning?", history=[TURN]), CONDENSE_SYSTEM),
}


@pytest.mark.parametrize("role", ROLES)
def test_each_role_sends_its_own_system_prompt_and_returns_the_reply_text(role: str) -> None:
    model = replies("the reply")
    request, system = ROLES[role]
    assert getattr(ChatModelAdapter(model), role)(request) == "the reply"
    assert model.prompts[0].startswith(system)


@pytest.mark.parametrize("role", ROLES)
def test_each_role_asks_the_model_asynchronously(role: str) -> None:
    model = replies("the reply")
    request, system = ROLES[role]
    assert asyncio.run(getattr(ChatModelAdapter(model), "a" + role)(request)) == "the reply"
    assert model.prompts[0].startswith(system)


def test_a_chat_model_is_wrapped_once_for_every_role() -> None:
    model = replies("x")
    roles = [as_writer(model), as_critic(model), default_condenser(Settings(), model)]
    assert all(isinstance(role, ChatModelAdapter) and role.model is model for role in roles)
    assert isinstance(roles[0], Writer) and isinstance(roles[1], Critic) and isinstance(roles[2], Condenser)


def test_a_provider_failure_propagates_to_the_node() -> None:
    with pytest.raises(TimeoutError):
        ChatModelAdapter(replies(TimeoutError("slow"))).write(ROLES["write"][0])  # type: ignore[arg-type]
