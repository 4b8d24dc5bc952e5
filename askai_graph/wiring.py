"""Turn the typed nodes and routers into LangGraph's native nodes, with each run's settings.

Nodes and routers are plain functions of the typed state and the run's ``Settings``
(easy to test without a graph). ``Wiring`` adapts each to what LangGraph calls: a
node taking ``runtime: Runtime[RunOptions]``, whose per-run overrides it resolves into
``Settings`` once per distinct set of overrides, whatever the number of nodes and
routers asking.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, get_args, get_type_hints

from langchain_core.runnables import RunnableConfig

# LangGraph's own node runnable (what add_node wraps a plain function in): it takes a sync
# and an async variant, so async runs need no thread-pool hop for cheap nodes, and it
# reads each function's signature once, at build time. No public API takes both variants
# (docs/ARCHITECTURE.md, "Traps worth knowing", says what was measured and tried).
from langgraph._internal._runnable import RunnableCallable
from langgraph.runtime import Runtime

from askai_graph.nodes.condense import Condense, precondensed
from askai_graph.settings import RunOptions, Settings
from askai_graph.state import AskState

Update = dict[str, Any]
NodeFn = Callable[[AskState, Settings], Update]
AsyncNodeFn = Callable[[AskState, Settings], Awaitable[Update]]
Router = Callable[[AskState, Settings], str]


class Wiring:
    """Makes native nodes and routers that run with the graph's settings and each run's overrides."""

    def __init__(self, base: Settings) -> None:
        """Wire nodes against ``base``, the graph's configured settings."""
        self.base = base
        # RunOptions is frozen, so equal overrides share one Settings; bounded for servers.
        self._resolve = functools.lru_cache(maxsize=256)(base.with_overrides)

    def settings(self, runtime: Runtime[RunOptions]) -> Settings:
        """Return the run's settings: the base with the run's context applied."""
        options = runtime.context
        return self.base if options is None else self._resolve(options)

    def node(self, name: str, fn: NodeFn, afn: AsyncNodeFn | None = None) -> RunnableCallable:
        """Return a native node: ``fn`` in sync runs; ``afn``, else ``fn`` inline, in async runs."""

        def run(state: AskState, runtime: Runtime[RunOptions]) -> Update:
            return fn(state, self.settings(runtime))

        async def arun(state: AskState, runtime: Runtime[RunOptions]) -> Update:
            if afn is not None:  # model and retriever calls: awaited, never blocking the loop
                return await afn(state, self.settings(runtime))
            return fn(state, self.settings(runtime))  # cheap CPU work: no thread-pool hop

        return RunnableCallable(run, arun, name=name, trace=False)

    def condense_node(self, condense: Condense) -> RunnableCallable:
        """Return Condense, which reuses a condensation the caller made before the run (``PRECONDENSED``)."""

        def run(state: AskState, runtime: Runtime[RunOptions], config: RunnableConfig) -> Update:
            given = precondensed(state, config)
            return given if given is not None else condense(state, self.settings(runtime))

        async def arun(state: AskState, runtime: Runtime[RunOptions], config: RunnableConfig) -> Update:
            given = precondensed(state, config)
            return given if given is not None else await condense.acall(state, self.settings(runtime))

        return RunnableCallable(run, arun, name="condense", trace=False)

    def branch(self, router: Router) -> tuple[RunnableCallable, list[str]]:
        """Return a native router (inline in async runs too) and its targets, from its return type."""
        targets = list(get_args(get_type_hints(router)["return"]))

        def route(state: AskState, runtime: Runtime[RunOptions]) -> str:
            return router(state, self.settings(runtime))

        async def aroute(state: AskState, runtime: Runtime[RunOptions]) -> str:
            return router(state, self.settings(runtime))

        return RunnableCallable(route, aroute, name=router.__name__, trace=False), targets
