"""Wire the Ask AI graph: nodes, edges and routers, top to bottom like the diagram.

Nodes and routers are plain functions of the typed state and the run's ``Settings``;
this module turns each into a native LangGraph node taking ``runtime: Runtime[RunOptions]``
and resolves the run's settings from it (once per run).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast, get_args, get_type_hints

from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig

# LangGraph's own node runnable (what add_node wraps a plain function in): it takes a sync
# and an async variant, so async runs need no thread-pool hop for cheap nodes, and it
# reads each function's signature once, at build time.
from langgraph._internal._runnable import RunnableCallable
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from askai_graph.edges import route_after_condense, route_after_critic, route_after_research, route_after_validation
from askai_graph.nodes.condense import Condense, precondensed
from askai_graph.nodes.critic import Review
from askai_graph.nodes.finish import accept, accept_early, degrade, fallback
from askai_graph.nodes.research import Research
from askai_graph.nodes.source_gate import source_gate
from askai_graph.nodes.validation import Validate
from askai_graph.nodes.writer import Write
from askai_graph.providers import (
    as_critic,
    as_writer,
    default_condenser,
    default_critic,
    default_retriever,
    default_writer,
)
from askai_graph.public_output import AskGraph
from askai_graph.reviewing import Critic
from askai_graph.settings import RunOptions, Settings
from askai_graph.state import AskState, InputState, OutputState, Turn
from askai_graph.stores.checkpoints import with_state_types
from askai_graph.stores.masked_checkpoints import masking_checkpoints
from askai_graph.writing import Writer

if TYPE_CHECKING:  # imported by whoever builds a chat model, never at start-up
    from langchain_core.language_models import BaseChatModel

Update = dict[str, Any]
NodeFn = Callable[[AskState, Settings], Update]
AsyncNodeFn = Callable[[AskState, Settings], Awaitable[Update]]
Router = Callable[[AskState, Settings], str]


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
        writer: A chat model (wrapped with the Writer prompts) or a ``Writer``; ``None``
            means the configured default (offline extractive writer unless a model is set).
            A chat model Writer also condenses follow-ups into standalone questions (with
            the condensation prompt); otherwise the offline lexical rewrite does.
        critic: A chat model (wrapped with the Critic prompts) or a ``Critic``; ``None``
            means the configured default (offline lexical critic unless a model is set).
        retriever: Any LangChain retriever whose Documents carry ``source_url``, ``title``
            and optionally ``images`` metadata; ``None`` means BM25 over the corpus.
        settings: Configuration; ``Settings()`` (defaults + ``ASKAI_*`` env) when ``None``.
        checkpointer: Optional LangGraph checkpointer for threads (conversations with
            follow-ups); the state's types are registered with its serializer.

    Returns:
        The compiled graph; invoke it with ``{"question": ...}`` and optionally
        ``context={...}`` per-run overrides (``RunOptions``). Its output is
        ``OutputState``: the answer and the gates' decision, never the retrieved
        candidates (``output_keys=STATE_KEYS`` or the checkpoint has those).
    """
    base = settings or Settings()
    research = Research(retriever if retriever is not None else default_retriever(base))
    # The extractive Writer ranks sections with the retriever's embedding model, if any.
    shared = getattr(research.retriever, "embeddings", None)
    shared = shared if isinstance(shared, Embeddings) else None
    write = Write(as_writer(writer) if writer is not None else default_writer(base, shared))
    review = Review(as_critic(critic) if critic is not None else default_critic(base))
    condense = Condense(default_condenser(base, writer))

    # LangGraph validates a run's context into one RunOptions object per run; the run's
    # settings are resolved from it once, whatever the number of nodes and routers asking.
    # Keyed by identity (checked, so a recycled id never matches), bounded for servers.
    resolved: dict[int, tuple[RunOptions, Settings]] = {}

    def run_settings(runtime: Runtime[RunOptions]) -> Settings:
        options = runtime.context
        if options is None:
            return base
        cached = resolved.get(id(options))
        if cached is not None and cached[0] is options:
            return cached[1]
        if len(resolved) >= 256:
            resolved.clear()
        settings = base.with_overrides(options)
        resolved[id(options)] = (options, settings)
        return settings

    def node(name: str, fn: NodeFn, afn: AsyncNodeFn | None = None) -> RunnableCallable:
        """Return a native node: ``fn`` in sync runs; ``afn``, else ``fn`` inline, in async runs."""

        def run(state: AskState, runtime: Runtime[RunOptions]) -> Update:
            return fn(state, run_settings(runtime))

        async def arun(state: AskState, runtime: Runtime[RunOptions]) -> Update:
            if afn is not None:  # model and retriever calls: awaited, never blocking the loop
                return await afn(state, run_settings(runtime))
            return fn(state, run_settings(runtime))  # cheap CPU work: no thread-pool hop

        return RunnableCallable(run, arun, name=name, trace=False)

    def condense_node() -> RunnableCallable:
        """Return Condense, which reuses a condensation the caller made before the run (``PRECONDENSED``)."""

        def run(state: AskState, runtime: Runtime[RunOptions], config: RunnableConfig) -> Update:
            given = precondensed(state, config)
            return given if given is not None else condense(state, run_settings(runtime))

        async def arun(state: AskState, runtime: Runtime[RunOptions], config: RunnableConfig) -> Update:
            given = precondensed(state, config)
            return given if given is not None else await condense.acall(state, run_settings(runtime))

        return RunnableCallable(run, arun, name="condense", trace=False)

    async def condense_first(question: str, history: Sequence[Turn]) -> Update:
        return await condense.before_run(question, history, base)

    def branch(router: Router) -> tuple[RunnableCallable, list[str]]:
        """Return a native router (inline in async runs too) and its targets, from its return type."""
        targets = list(get_args(get_type_hints(router)["return"]))

        def route(state: AskState, runtime: Runtime[RunOptions]) -> str:
            return router(state, run_settings(runtime))

        async def aroute(state: AskState, runtime: Runtime[RunOptions]) -> str:
            return router(state, run_settings(runtime))

        return RunnableCallable(route, aroute, name=router.__name__, trace=False), targets

    # The output schema keeps the Source Gate on every surface that returns a run's state
    # (invoke, stream values, LangGraph Server's /runs/wait and /mcp): no retrieved URL the gate refused.
    builder = StateGraph(AskState, context_schema=RunOptions, input_schema=InputState, output_schema=OutputState)
    builder.add_node("condense", condense_node())
    builder.add_node("research", node("research", research, research.acall))
    builder.add_node("writer", node("writer", write, write.acall))
    check = Validate(shared)  # anchoring tells tied sections apart with the same model
    builder.add_node("validation", node("validation", check, check.acall))
    builder.add_node("critic", node("critic", review, review.acall))
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
    # What a thread stores is masked like every other store (``stores.masked_checkpoints``).
    graph = builder.compile(checkpointer=masking_checkpoints(with_state_types(checkpointer)), name="askai")
    # LangGraph compiles into its own class; AskGraph only narrows what ``stream`` values show.
    graph.__class__ = AskGraph
    ask = cast(AskGraph, graph)
    ask.condense_first = condense_first
    return ask
