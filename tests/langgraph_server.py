"""A real ``langgraph dev`` as the LangGraph Server of the tests, and the graphs it serves them.

``LangGraphDev`` starts the server on a free port from a ``langgraph.json`` (the repo's,
for the Studio tests) kept off the network, and stops it. It runs in ``cwd`` (graph
paths in a ``langgraph.json`` are relative to it), by default the folder of its log;
``.langgraph_api/``, where it keeps its threads, is removed after unless it was there
before (a developer's own Studio threads).

The remote-graph tests need the *same* test doubles on the server as in process
(scripted models that count their calls, a fake retriever). ``RemoteScenarios`` writes
each graph a test builds (a builder function and its arguments, pickled) to a file;
``scenario_graph`` is a graph factory the server calls per run with that file's path
in ``configurable``, and builds each scenario once, so its models keep their script
position and counts across runs as they do in process. Each scripted model writes its
call count to a file the test process reads back (``sync_calls``).

The session fixture ``langgraph_server`` serves ``ask_ai`` (the repo's graph) and
``scenario`` from one ``langgraph dev`` for the whole run.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.runnables import RunnableConfig

from askai_graph.models.local import free_port, stop

ROOT = Path(__file__).resolve().parent.parent
OFFLINE_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "1",
    "LANGSMITH_TRACING": "false",
}
SCENARIO_GRAPH = "scenario"
SCENARIO_KEY = "askai_scenario"
"""The ``configurable`` key that names a scenario file."""


class LangGraphDev:
    """``langgraph dev`` on a free port from ``config``; ``with`` yields its URL, then stops it."""

    def __init__(self, config: Path, log: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.config, self.log_path, self.url = config, log, f"http://127.0.0.1:{free_port()}"
        self.cwd = cwd or log.parent
        self.state = self.cwd / ".langgraph_api"
        base = {name: value for name, value in os.environ.items() if not name.startswith("ASKAI_")}
        self.env = base | OFFLINE_ENV | {"PYTHONPATH": str(ROOT)} | (env or {})

    def __enter__(self) -> str:
        self.had_state = self.state.exists()
        command = [str(Path(sys.executable).parent / "langgraph"), "dev", "--no-browser", "--no-reload"]
        # Without --n-jobs-per-worker, runs here started one after another (concurrent streams queued).
        command += ["--config", str(self.config), "--port", self.url.rsplit(":", 1)[1], "--n-jobs-per-worker", "10"]
        started = time.monotonic()
        self.log = self.log_path.open("w+b")
        self.process = subprocess.Popen(
            command,
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            self.wait_ok()
        except BaseException:
            self.__exit__()
            raise
        print(f"\nlanggraph dev up in {time.monotonic() - started:.1f}s at {self.url}")
        return self.url

    def wait_ok(self, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"langgraph dev exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if httpx.get(f"{self.url}/ok", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        pytest.fail(f"langgraph dev did not answer /ok within {seconds}s:\n{self.tail()}")

    def tail(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]

    def __exit__(self, *exc_info: object) -> None:
        stop(self.process)
        self.log.close()
        if not self.had_state:
            shutil.rmtree(self.state, ignore_errors=True)


# --- scenarios: the tests' graphs, built on the server ----------------------------------


class RemoteScenarios:
    """Write the graphs a test builds for the server to build (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def add(self, build: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Save ``build(*args, **kwargs)`` as a scenario; return the run config that selects it.

        Scripted models among the arguments get a calls file (read back by ``sync_calls``).
        """
        name = uuid.uuid4().hex
        for model in _scripted(args, kwargs):
            model.calls_file = str(self.folder / f"{name}-{id(model)}.calls")
        path = self.folder / f"{name}.pickle"
        path.write_bytes(pickle.dumps((build, args, kwargs)))
        return {"configurable": {SCENARIO_KEY: str(path)}}


def sync_calls(*values: Any) -> None:
    """Set each scripted model among ``values`` to the call count its server-side copy reached."""
    for model in _scripted(values, {}):
        if model.calls_file and Path(model.calls_file).exists():
            model.calls = int(Path(model.calls_file).read_text() or 0)


def _scripted(args: Any, kwargs: dict[str, Any]) -> list[Any]:
    from tests.fakes import ScriptedChatModel

    return [value for value in [*args, *kwargs.values()] if isinstance(value, ScriptedChatModel)]


_BUILT: dict[str, Any] = {}


def scenario_graph(config: RunnableConfig) -> Any:
    """The ``scenario`` graph factory ``langgraph dev`` calls per run (and for its schemas)."""
    # Thread state reads and schema requests carry no scenario: any graph of the same
    # shape reads a thread; this one loads no corpus (blocking I/O the dev server refuses).
    path = (config.get("configurable") or {}).get(SCENARIO_KEY) or ""
    if path not in _BUILT:
        if path:
            build, args, kwargs = pickle.loads(Path(path).read_bytes())
            _BUILT[path] = build(*args, **kwargs)
        else:
            from askai_graph import build_graph
            from tests.fakes import PASSING, replies, retriever

            _BUILT[path] = build_graph(writer=replies(""), critic=replies(PASSING), retriever=retriever())
    return _BUILT[path]


class ClosingApp:
    """An ASGI app that closes ``graph`` (a ``RemoteAskGraph`` the test made) when the server stops."""

    def __init__(self, app: Any, graph: Any) -> None:
        self.app, self.graph = app, graph

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            return await self.app(scope, receive, send)
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.graph.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


def remote_live_server(app: Any, graph: Any) -> Any:
    """A ``LiveServer`` for ``app`` whose remote ``graph`` is closed on the server's own loop at the end."""
    import uvicorn

    from tests.live import LiveServer

    config = uvicorn.Config(
        ClosingApp(app, graph),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        ws="none",
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    return LiveServer(app, config)


@pytest.fixture(scope="session")
def langgraph_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One ``langgraph dev`` serving ``ask_ai`` and ``scenario`` for the test session."""
    tmp = tmp_path_factory.mktemp("langgraph-server")
    config = tmp / "langgraph.json"
    graphs = {"ask_ai": str(ROOT / "graphs/ask_ai.py:graph"), SCENARIO_GRAPH: f"{__file__}:scenario_graph"}
    config.write_text(json.dumps({"python_version": "3.11", "dependencies": [str(ROOT)], "graphs": graphs}))
    env = {"ASKAI_INDEX_CACHE_DIR": str(tmp / "bm25"), "ASKAI_RATE_LIMIT": ""}
    with LangGraphDev(config, tmp / "langgraph-dev.log", env) as url:
        yield url


@pytest.fixture(scope="session")
def remote_scenarios(tmp_path_factory: pytest.TempPathFactory) -> RemoteScenarios:
    """Where scenario files of this session go."""
    return RemoteScenarios(tmp_path_factory.mktemp("scenarios"))


class GraphHost:
    """Serve a test's graph to a real ``askai`` HTTP app: in process, or on the LangGraph Server.

    ``live(settings, build, *args, **kwargs)`` builds ``build(*args, **kwargs)`` here (in
    process) or on the server (remote: the app streams it through ``RemoteAskGraph``) and
    returns a ``LiveServer`` of ``create_app(graph, settings, **app_kwargs)``. After the
    server stops, scripted models among the arguments hold the calls made on the server.
    """

    def __init__(self, kind: str, server: str | None = None, scenarios: RemoteScenarios | None = None) -> None:
        self.kind, self.server, self.scenarios = kind, server, scenarios

    @property
    def remote(self) -> bool:
        return self.kind == "remote"

    def live(
        self,
        app_settings: Any,
        build: Callable[..., Any],
        /,
        *args: Any,
        app_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        from askai_graph.server import create_app
        from tests.live import LiveServer

        if not self.remote:
            return LiveServer(create_app(build(*args, **kwargs), app_settings, **(app_kwargs or {})))
        from askai_graph.server.scaleout.remote import RemoteAskGraph

        assert self.server is not None and self.scenarios is not None
        config = self.scenarios.add(build, *args, **kwargs)
        graph = RemoteAskGraph(self.server, SCENARIO_GRAPH, config=config)
        return _Synced(
            remote_live_server(create_app(graph, app_settings, **(app_kwargs or {})), graph), [*args, *kwargs.values()]
        )


class _Synced:
    """A live server that, once stopped, copies the server-side call counts into the test's models."""

    def __init__(self, live: Any, values: list[Any]) -> None:
        self.live, self.values = live, values

    def __enter__(self) -> str:
        return str(self.live.__enter__())

    def __exit__(self, *exc_info: object) -> None:
        self.live.__exit__(*exc_info)
        sync_calls(*self.values)


@pytest.fixture(params=["in_process", "remote"])
def graph_host(request: pytest.FixtureRequest) -> GraphHost:
    """Each test using it runs twice: the graph in process, and on ``langgraph dev``."""
    if request.param == "in_process":
        return GraphHost("in_process")
    return GraphHost("remote", request.getfixturevalue("langgraph_server"), request.getfixturevalue("remote_scenarios"))
