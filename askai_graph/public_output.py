"""The compiled graph whose ``stream`` values keep to the output schema, as ``invoke`` and LangGraph Server do.

LangGraph applies a graph's output schema to ``invoke``/``ainvoke`` and, on LangGraph
Server, to every run's ``values`` and ``updates``; but an in-process ``stream``/
``astream`` without ``output_keys`` streams every state key. ``AskGraph`` closes that
gap for ``values`` (each chunk keeps only ``OutputState``'s keys) and leaves the
``updates`` stream whole: per-node updates are how a caller (Studio, the server, a
test) follows the stages. Passing ``output_keys`` (``STATE_KEYS`` for everything) is
LangGraph's own behaviour, unchanged.

``condense_first`` runs the graph's first stage, Condense, outside any run: a caller
that must know the standalone question before Research starts (the server's answer
cache) condenses once and hands the result to the run (``nodes.condense.PRECONDENSED``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast, get_type_hints

from langgraph.graph.state import CompiledStateGraph

from askai_graph.settings import RunOptions
from askai_graph.state import AskState, InputState, OutputState, Turn


class CondenseFirst(Protocol):
    """Condense a question on a thread holding these turns, as the run's Condense stage would.

    ``context`` is the run's (its ``version`` and ``locale``: only the turns asked in them count).
    """

    def __call__(
        self, question: str, history: Sequence[Turn], context: Mapping[str, Any] | None = None
    ) -> Awaitable[dict[str, Any]]:
        """Return the Condense stage's update."""
        ...

PUBLIC_KEYS = frozenset(get_type_hints(OutputState)) | {"__interrupt__"}
"""What a ``values`` chunk keeps: the output schema's keys (and LangGraph's interrupts)."""


class AskGraph(CompiledStateGraph[AskState, RunOptions, InputState, OutputState]):
    """The compiled Ask AI graph (``build_graph`` returns one; see the module docstring)."""

    condense_first: CondenseFirst | None = None
    """Condense a question on a thread holding these turns as the run would (``build_graph`` sets it)."""

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]:
        """Stream as LangGraph does; without ``output_keys``, ``values`` chunks hold the public keys only."""
        parts = super().stream(input, config, **kwargs)
        if kwargs.get("output_keys") is not None:
            return parts
        return (_public(part, kwargs, self.stream_mode) for part in parts)

    async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        """Stream as LangGraph does; without ``output_keys``, ``values`` chunks hold the public keys only."""
        whole = kwargs.get("output_keys") is not None
        async for part in super().astream(input, config, **kwargs):
            yield part if whole else _public(part, kwargs, self.stream_mode)


def narrowed(
    graph: CompiledStateGraph[AskState, RunOptions, InputState, OutputState], condense_first: CondenseFirst
) -> AskGraph:
    """Return ``graph`` as an ``AskGraph`` whose Condense stage also runs outside a run (``condense_first``).

    The class is narrowed in place, because ``StateGraph.compile`` always builds a
    ``CompiledStateGraph``, its constructor cannot rebuild one (what ``compile`` sets
    after construction, such as the output mapper and the serde allowlist, would be
    lost), and a wrapper would be no ``Pregel`` for LangGraph Server to load. The public
    ``stream_channels`` would cut the ``values`` chunks but the ``updates`` stream too.
    """
    graph.__class__ = AskGraph
    ask = cast(AskGraph, graph)
    ask.condense_first = condense_first
    return ask


def _public(part: Any, kwargs: dict[str, Any], default_mode: Any) -> Any:
    """Return ``part`` with a ``values`` chunk cut to the public keys, in whichever shape it streams."""
    if kwargs.get("version") == "v2":
        if isinstance(part, dict) and part.get("type") == "values":
            return {**part, "data": _cut(part.get("data"))}
        return part
    mode = kwargs.get("stream_mode") or default_mode
    if kwargs.get("subgraphs"):  # (namespace, chunk) or (namespace, mode, chunk)
        namespace, rest = part[0], part[1:]
        inner = _public(rest[0] if isinstance(mode, str) else rest, {"stream_mode": mode}, mode)
        return (namespace, inner) if isinstance(mode, str) else (namespace, *inner)
    if isinstance(mode, str):
        return _cut(part) if mode == "values" else part
    name, chunk = part
    return (name, _cut(chunk)) if name == "values" else part


def _cut(chunk: Any) -> Any:
    if not isinstance(chunk, dict):
        return chunk
    return {key: value for key, value in chunk.items() if key in PUBLIC_KEYS}
