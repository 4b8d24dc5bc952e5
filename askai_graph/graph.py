"""Wire the Ask AI graph: nodes, edges and routers, top to bottom like the diagram."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, get_args, get_type_hints

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime

from askai_graph.checkpoints import with_state_types
from askai_graph.edges import route_after_condense, route_after_critic, route_after_research, route_after_validation
from askai_graph.nodes.condense import Condense
from askai_graph.nodes.critic import Critic
from askai_graph.nodes.finish import accept, accept_early, degrade, fallback
from askai_graph.nodes.research import Research
from askai_graph.nodes.source_gate import source_gate
from askai_graph.nodes.validation import validate
from askai_graph.nodes.writer import Draft
from askai_graph.providers import (
    as_reviewer,
    as_writer,
    default_condenser,
    default_retriever,
    default_reviewer,
    default_writer,
)
from askai_graph.reviewing import Reviewer
from askai_graph.settings import RunOptions, Settings
from askai_graph.state import AskState, InputState
from askai_graph.writing import Writer

NodeFn = Callable[[Mapping[str, Any], Settings], dict[str, Any]]
AsyncNodeFn = Callable[[Mapping[str, Any], Settings], Awaitable[dict[str, Any]]]


def build_graph(
    *,
    writer: BaseChatModel | Writer | None = None,
    critic: BaseChatModel | Reviewer | None = None,
    retriever: BaseRetriever | None = None,
    settings: Settings | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
) -> CompiledStateGraph[AskState, RunOptions, InputState, AskState]:
    """Build and compile the Ask AI graph.

    Args:
        writer: A chat model (wrapped with the Writer prompts) or a ``Writer``; ``None``
            means the configured default (offline extractive writer unless a model is set).
            A chat model Writer also condenses follow-ups into standalone questions (with
            the condensation prompt); otherwise the offline lexical rewrite does.
        critic: A chat model (wrapped with the Critic prompts) or a ``Reviewer``; ``None``
            means the configured default (offline lexical critic unless a model is set).
        retriever: Any LangChain retriever whose Documents carry ``source_url``, ``title``
            and optionally ``images`` metadata; ``None`` means BM25 over the corpus.
        settings: Configuration; ``Settings()`` (defaults + ``ASKAI_*`` env) when ``None``.
        checkpointer: Optional LangGraph checkpointer for threads (conversations with
            follow-ups); the state's types are registered with its serializer.

    Returns:
        The compiled graph; invoke it with ``{"question": ...}`` and optionally
        ``context={...}`` per-run overrides (``RunOptions``).
    """
    settings = settings or Settings()
    research = Research(retriever if retriever is not None else default_retriever(settings))
    draft = Draft(as_writer(writer) if writer is not None else default_writer(settings))
    critique = Critic(as_reviewer(critic) if critic is not None else default_reviewer(settings))
    condense = Condense(default_condenser(settings, writer))

    def run_settings() -> Settings:
        return settings.with_overrides(get_runtime(RunOptions).context)

    def node(name: str, fn: NodeFn, afn: AsyncNodeFn | None = None) -> RunnableLambda:
        def sync(state: Mapping[str, Any]) -> dict[str, Any]:
            return fn(state, run_settings())

        async def asynchronous(state: Mapping[str, Any]) -> dict[str, Any]:
            assert afn is not None
            return await afn(state, run_settings())

        return RunnableLambda(sync, afunc=asynchronous if afn else None, name=name)

    def branch(router: Callable[..., Any]) -> tuple[Callable[[Mapping[str, Any]], str], list[str]]:
        targets = list(get_args(get_type_hints(router)["return"]))
        return (lambda state: router(state, run_settings())), targets

    builder = StateGraph(AskState, context_schema=RunOptions, input_schema=InputState)
    builder.add_node("condense", node("condense", condense, condense.acall))
    builder.add_node("research", node("research", research, research.acall))
    builder.add_node("writer", node("writer", draft, draft.acall))
    builder.add_node("validation", node("validation", validate))
    builder.add_node("critic", node("critic", critique, critique.acall))
    builder.add_node("accept", node("accept", accept))
    builder.add_node("accept_early", node("accept_early", accept_early))
    builder.add_node("degrade", node("degrade", degrade))
    builder.add_node("fallback", node("fallback", fallback))
    builder.add_node("source_gate", node("source_gate", source_gate))

    builder.add_edge(START, "condense")
    builder.add_conditional_edges("condense", *branch(route_after_condense))
    builder.add_conditional_edges("research", *branch(route_after_research))
    builder.add_edge("writer", "validation")
    builder.add_conditional_edges("validation", *branch(route_after_validation))
    builder.add_conditional_edges("critic", *branch(route_after_critic))
    for end in ("accept", "accept_early", "degrade", "fallback"):
        builder.add_edge(end, "source_gate")
    builder.add_edge("source_gate", END)
    return builder.compile(checkpointer=with_state_types(checkpointer), name="askai")
