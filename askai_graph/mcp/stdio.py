"""``askai mcp``: the MCP server on stdin/stdout, for an agent that starts it as a subprocess.

It builds the same app as ``askai serve`` (corpus, graph, threads database, answer
cache, limits, run log) without listening on any port, runs the app's lifespan, and
serves the app's MCP tools over stdio. Stdout carries the protocol only: everything
else (logs, warnings) goes to stderr.
"""

from __future__ import annotations

import anyio

from askai_graph.mcp.server import DocsMCP
from askai_graph.settings import Settings


def serve_stdio(settings: Settings) -> int:
    """Serve the MCP tools on stdin/stdout until the client closes them; return the exit status."""
    from askai_graph.server import create_app

    app = create_app(settings=settings)
    mcp = DocsMCP(app.state.desk)  # over the app's desk; /mcp's session manager is never started here

    async def main() -> None:
        async with app.router.lifespan_context(app):
            await mcp.server.run_stdio_async()

    anyio.run(main)
    return 0
