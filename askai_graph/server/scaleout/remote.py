"""The graph on LangGraph Server: ``askai serve --graph-url URL`` streams it through ``RemoteGraph``.

``RemoteAskGraph`` gives the HTTP front end the surface of the in-process graph it
uses (``astream``, ``aget_state``, ``aupdate_state`` and a ``checkpointer`` that can
delete a thread), backed by a LangGraph Server deployment of this repo's
``langgraph.json``. The front end keeps no graph state: runs, threads and their
checkpoints live on the server, on its own workers, queue and database.

What the front end must see exactly as in-process:

- **Typed state.** The server sends JSON; every state key is validated back into the
  types of ``AskState`` (``ValidationReport``, ``Source``...), so the SSE events, the
  cache and the run log are built from the same values either way.
- **Thread ids.** A reader's thread (issued by askai; the graph runs it under the hash of
  its ``thread_id`` and ``thread_token``, ``stores.thread_tokens``) is mapped to the
  server's thread by ``server_thread_id``: a UUID5 of the graph id and that key, so the
  mapping needs no table, two front ends agree on it, and askai threads cannot name a
  server thread created by anyone else (Studio, another app). The thread is created on
  the first run (``if_not_exists="create"``); an id with no state there is unknown (404).
- **Disconnect cancels the run.** Runs are streamed with ``on_disconnect="cancel"``:
  when the front end's run task is cancelled (a reader left, a cache hit, the
  deadline) its HTTP stream closes and the server cancels the run. The server's own
  default is to keep running.
- **Failures end the stream.** A refused connection, a 5xx or an error the graph
  raised on the server is an exception of the run: the stream ends with the
  contract's ``error`` event. A server that stops answering is bounded by the
  question's deadline (``request_timeout_seconds``): the stream ends as a fallback.

The askai ``run_id`` travels in the run's metadata (``askai_run_id``), so a run on the
server can be found from the id a reader's ``done`` carries.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast, get_type_hints

import httpx
from langchain_core.runnables import RunnableConfig
from pydantic import TypeAdapter

from askai_graph.state import AskState

THREAD_NAMESPACE = uuid.UUID("6f3b2a4e-1c2d-5e8f-9a0b-7c6d5e4f3a2b")
"""Namespace of the UUID5s that map askai thread ids to LangGraph Server thread ids."""


class RemoteUnavailable(Exception):
    """The LangGraph Server cannot be reached, or does not serve the graph asked for."""


def server_thread_id(thread_id: str, graph_id: str) -> str:
    """Return the LangGraph Server thread that holds askai thread ``thread_id`` of ``graph_id``."""
    return str(uuid.uuid5(THREAD_NAMESPACE, f"{graph_id}:{thread_id}"))


@cache
def _adapters() -> dict[str, TypeAdapter[Any]]:
    return {key: TypeAdapter(hint) for key, hint in get_type_hints(AskState).items()}


def typed_state(data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the JSON of a state (or a node's update) into ``AskState``'s types.

    Keys ``AskState`` does not know are kept as they are (a custom graph's own keys).
    Not strict: JSON has lists where the models hold tuples.
    """
    adapters = _adapters()
    return {
        key: adapters[key].validate_python(value, strict=False) if key in adapters else value
        for key, value in data.items()
    }


@dataclass(frozen=True)
class RemoteState:
    """A thread's latest state as the front end reads it (``thread_status``, a cached turn)."""

    values: dict[str, Any] = field(default_factory=dict)
    """The state, typed (empty when the thread has no checkpoint)."""
    created_at: str | None = None
    """When the latest checkpoint was written; ``None``: no checkpoint, an unknown thread."""


class RemoteThreads:
    """The part of a checkpointer the front end uses: deleting an expired thread."""

    def __init__(self, graph: RemoteAskGraph) -> None:
        """Delete threads of ``graph``'s server."""
        self._graph = graph

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete askai thread ``thread_id`` on the server (a no-op if it is gone already)."""
        try:
            await self._graph.client.threads.delete(self._graph.server_thread(thread_id))
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code != 404:
                raise


class RemoteAskGraph:
    """The Ask AI graph on a LangGraph Server, streamed through ``langgraph``'s ``RemoteGraph``."""

    def __init__(
        self,
        url: str,
        graph_id: str = "ask_ai",
        *,
        config: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> None:
        """Stream ``graph_id`` from the LangGraph Server at ``url``.

        Args:
            url: The server's address (``http://host:2024``).
            graph_id: The graph (or assistant id) to run.
            config: Config merged into every run (``configurable`` values the
                deployment's graph reads).
            timeout: Seconds to wait for the server to send the next bytes; ``None``
                keeps the SDK's default (the question's deadline bounds a run anyway).
        """
        from langgraph.pregel.remote import RemoteGraph
        from langgraph_sdk import get_client

        self.url = url
        self.graph_id = graph_id
        limits = (5.0, timeout, timeout, 5.0) if timeout is not None else None  # connect, read, write, pool
        self.client = get_client(url=url, timeout=limits)
        self.remote = RemoteGraph(graph_id, client=self.client, config=cast(RunnableConfig, dict(config or {})))
        self.checkpointer = RemoteThreads(self)

    def server_thread(self, thread_id: str) -> str:
        """Return the server's thread id for askai thread ``thread_id``."""
        return server_thread_id(thread_id, self.graph_id)

    def _on_server(self, config: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return ``config`` with its askai thread id replaced by the server's."""
        config = dict(config or {})
        configurable = dict(config.get("configurable") or {})
        if configurable.get("thread_id"):
            configurable["thread_id"] = self.server_thread(str(configurable["thread_id"]))
        config["configurable"] = configurable
        return config

    async def astream(
        self,
        input: Any,
        config: Any = None,
        *,
        stream_mode: Any = "updates",
        durability: Any = None,
        output_keys: Any = None,
        context: Any = None,
    ) -> AsyncIterator[Any]:
        """Run the graph on the server; yield ``(mode, chunk)`` like the in-process ``astream`` does.

        The server applies the graph's output schema to ``updates`` and ``values``;
        ``output_keys`` (any value: the front end reads internals only) asks for the
        whole state instead, rebuilt from the ``tasks`` stream, whose task results
        carry every key a node wrote.
        """
        config = self._on_server(config)
        run_id = config.pop("run_id", None)  # the server picks its own; ours goes in the metadata
        metadata = {"askai_run_id": str(run_id)} if run_id is not None else None
        modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
        whole = output_keys is not None
        asked = [("tasks" if whole and mode == "updates" else mode) for mode in modes]
        extra: dict[str, Any] = {"on_disconnect": "cancel", "metadata": metadata}
        if durability is not None:
            extra["durability"] = durability
        if context:
            extra["context"] = context  # the run's RunOptions: the reader's version and language
        parts = self.remote.astream(input, cast(RunnableConfig, config), stream_mode=cast(Any, asked), **extra)
        state: dict[str, Any] = {}
        async for part in parts:
            mode, data = cast(tuple[str, Any], tuple(part)[:2])  # an SDK StreamPart: (event, data, id)
            if mode == "tasks":
                if not isinstance(data, Mapping) or not isinstance(data.get("result"), Mapping) or data.get("error"):
                    continue  # a task starting, or one that failed (the run's error follows)
                update = typed_state(data["result"])
                state |= update
                mode, data = "updates", {str(data["name"]): update}
            elif mode == "updates" and isinstance(data, Mapping):
                data = {
                    node: typed_state(update) if isinstance(update, Mapping) else update
                    for node, update in data.items()
                }
            elif mode == "values" and isinstance(data, Mapping):
                state |= typed_state(data)
                data = dict(state) if whole else typed_state(data)
            yield (mode, data) if len(modes) > 1 else data

    async def aget_state(self, config: Any) -> RemoteState:
        """Return the thread's latest state (no ``created_at`` when the server has no checkpoint of it).

        Read with the SDK rather than ``RemoteGraph.aget_state``, which fails on a thread
        that exists without a checkpoint (its first run was cancelled before one).
        """
        thread_id = self._on_server(config)["configurable"]["thread_id"]
        try:
            state: Mapping[str, Any] = await self.client.threads.get_state(thread_id)
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code == 404:
                return RemoteState()
            raise
        if not state.get("checkpoint"):
            return RemoteState()
        return RemoteState(typed_state(state.get("values") or {}), state.get("created_at"))

    async def aupdate_state(self, config: Any, values: Any, as_node: str | None = None) -> Any:
        """Write ``values`` into the thread as if ``as_node`` had run."""
        return await self.remote.aupdate_state(cast(RunnableConfig, self._on_server(config)), values, as_node=as_node)

    async def aclose(self) -> None:
        """Close the connections to the server."""
        await self.client.aclose()


def check_reachable(url: str, graph_id: str, timeout: float = 10.0) -> None:
    """Check that the LangGraph Server at ``url`` answers and serves ``graph_id``.

    Raises:
        RemoteUnavailable: with a one-line reason.
    """
    from langgraph_sdk import get_sync_client

    try:
        httpx.get(f"{url}/ok", timeout=timeout).raise_for_status()
        with get_sync_client(url=url, timeout=timeout) as client:
            if _found(lambda: client.assistants.search(graph_id=graph_id, limit=1)):
                return
            if _found(lambda: client.assistants.get(graph_id)):  # an assistant id works too
                return
            graphs = sorted({assistant["graph_id"] for assistant in client.assistants.search(limit=100)})
    except httpx.HTTPError as exc:
        raise RemoteUnavailable(f"cannot reach the LangGraph Server at {url}: {exc or type(exc).__name__}") from None
    raise RemoteUnavailable(f"the LangGraph Server at {url} has no graph {graph_id!r} (it has: {', '.join(graphs)})")


def _found(ask: Any) -> bool:
    """Whether ``ask()`` finds something: a 4xx (no such graph or assistant) is not found."""
    try:
        return bool(ask())
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code >= 500:
            raise
        return False
