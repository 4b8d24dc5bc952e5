"""Wire the Ask AI graph: nodes, edges and routers, top to bottom like the diagram.

Nodes and routers are plain functions of the typed state and the run's ``Settings``;
``wiring.Wiring`` turns each into a native LangGraph node with the run's settings.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from askai_graph.edges import route_after_condense, route_after_critic, route_after_research, route_after_validation
from askai_graph.models.providers import (
    as_critic,
    as_writer,
    default_condenser,
    default_critic,
    default_retriever,
    default_writer,
    synonym_vocabulary,
)
from askai_graph.models.reviewing import Critic
from askai_graph.models.writing import Writer
from askai_graph.nodes.condense import Condense
from askai_graph.nodes.critic import Review
from askai_graph.nodes.finish import accept, accept_early, degrade, fallback
from askai_graph.nodes.research import Research
from askai_graph.nodes.source_gate import source_gate
from askai_graph.nodes.validation import Validate
from askai_graph.nodes.writer import Write
from askai_graph.public_output import AskGraph, narrowed
from askai_graph.settings import RunOptions, Settings
from askai_graph.state import AskState, InputState, OutputState
from askai_graph.stores.checkpoints import with_state_types
from askai_graph.stores.masked_checkpoints import masking_checkpoints
from askai_graph.wiring import Wiring

if TYPE_CHECKING:  # imported by whoever builds a chat model, never at start-up
    from langchain_core.language_models import BaseChatModel


def build_graph(
    *,
    writer: BaseChatModel | Writer | None = None,
    critic: BaseChatModel | Critic | None = None,
    retriever: BaseRetriever | None = None,
    settings: Settings | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
) -> AskGraph:
    """Build and compile the Ask AI graph.

    Args:
        writer: A chat model (wrapped with the Writer prompts; it also condenses follow-ups)
            or a ``Writer``; ``None``: the configured default (offline unless a model is set).
        critic: A chat model (wrapped with the Critic prompts) or a ``Critic``; ``None`` as above.
        retriever: A LangChain retriever (Documents with ``source_url``, ``title``, optional
            ``images``); ``None``: BM25 over the corpus.
        settings: Configuration; ``Settings()`` (defaults + ``ASKAI_*`` env) when ``None``.
        checkpointer: Optional LangGraph checkpointer for threads (follow-ups).

    Returns:
        The graph: ``invoke({"question": ...}, context=RunOptions)`` returns ``OutputState``,
        the answer and the gates' decision (``output_keys=STATE_KEYS`` for the rest).
    """
    base = settings or Settings()
    research = Research(retriever if retriever is not None else default_retriever(base))
    # The extractive Writer ranks sections with the retriever's embedding model, if any.
    shared = getattr(research.retriever, "embeddings", None)
    shared = shared if isinstance(shared, Embeddings) else None
    write = Write(as_writer(writer) if writer is not None else default_writer(base, shared))
    check = Validate(shared)  # anchoring tells tied sections apart with the same model
    vocabulary = synonym_vocabulary(research.retriever, shared)  # a reader's synonym weighs less (hybrid)
    review = Review(as_critic(critic) if critic is not None else default_critic(base, vocabulary))
    condense = Condense(default_condenser(base, writer))
    wire = Wiring(base)

    # The output schema keeps the Source Gate on every surface that returns a run's state
    # (invoke, stream values, LangGraph Server's /runs/wait and /mcp): no retrieved URL the gate refused.
    builder = StateGraph(AskState, context_schema=RunOptions, input_schema=InputState, output_schema=OutputState)
    builder.add_node("condense", wire.condense_node(condense))
    builder.add_node("research", wire.node("research", research, research.acall))
    builder.add_node("writer", wire.node("writer", write, write.acall))
    builder.add_node("validation", wire.node("validation", check, check.acall))
    builder.add_node("critic", wire.node("critic", review, review.acall))
    builder.add_node("accept", wire.node("accept", accept))
    builder.add_node("accept_early", wire.node("accept_early", accept_early))
    builder.add_node("degrade", wire.node("degrade", degrade))
    builder.add_node("fallback", wire.node("fallback", fallback))
    builder.add_node("source_gate", wire.node("source_gate", source_gate))

    builder.add_edge(START, "condense")
    builder.add_conditional_edges("condense", *wire.branch(route_after_condense))
    builder.add_conditional_edges("research", *wire.branch(route_after_research))
    builder.add_edge("writer", "validation")
    builder.add_conditional_edges("validation", *wire.branch(route_after_validation))
    builder.add_conditional_edges("critic", *wire.branch(route_after_critic))
    for end in ("accept", "accept_early", "degrade", "fallback"):
        builder.add_edge(end, "source_gate")
    builder.add_edge("source_gate", END)
    # What a thread stores is masked like every other store (``stores.masked_checkpoints``).
    graph = builder.compile(checkpointer=masking_checkpoints(with_state_types(checkpointer)), name="askai")
    return narrowed(graph, functools.partial(condense.before_run, settings=base))
