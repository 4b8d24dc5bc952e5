"""The MCP server: the three tools declared on the official SDK's ``MCPServer``, and ``/mcp`` on the app.

``DocsMCP`` is built over the desk ``create_app`` shares with ``/api/chat``, by the
first request to ``/mcp`` (``server.routes.mcp_endpoint``, which loads this module by name and
runs the SDK's streamable-HTTP session manager inside the app's lifespan). The same
server runs on stdin/stdout for ``askai mcp`` (``stdio``).

``/mcp`` is stateless (every request stands alone, JSON responses): a conversation is
carried by ``thread_id`` in the tool arguments, not by an MCP session, so any worker of
``askai serve --workers N`` can answer any call. On the loopback interface only local
``Host`` and ``Origin`` headers are accepted (``transport_security``).
"""

# No ``from __future__ import annotations``: the SDK reads each tool's parameters from its
# annotations, which name this function's locals (the question limit of these settings).
import logging
from collections.abc import Callable
from importlib.metadata import version
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import Field

from askai_graph.mcp.tools import (
    MAX_SEARCH_RESULTS,
    STDIO_CLIENT,
    AskResult,
    DocsTools,
    PageList,
    Passage,
    ToolRefused,
)
from askai_graph.server.answers.desk import Desk
from askai_graph.settings import Settings

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Answers about this documentation site, checked before they reach you. Prefer ask_docs: its answer "
    "passed or failed two gates (a deterministic validation and a reviewer), and it carries `sources` only "
    "when both passed. search_docs returns raw retrieved passages (endorsed: false) for you to read, not "
    "facts to cite. list_pages is the site's table of contents."
)

ASK_DOCS = """Ask the documentation site a question; get a checked answer.

Returns {answer, outcome, gates, sources?, cached, run_id, thread_id, thread_token}. What `outcome` means:
- "accepted": the answer passed both gates (validation and review). `sources` lists the pages it
  cites; those, and only those, are endorsed links.
- "accepted_early": a listing of the site's pages, accepted after one review pass; `sources` only
  when the reviewer passed it too.
- "degraded": the reviewer could not verify the answer within the allowed attempts. No `sources`.
  Treat the text as unverified; do not present it as what the docs say.
- "fallback": the site has no reliable answer (off-topic, nothing retrieved, or no usable draft).
  Nothing from the site is returned; rephrase, ask something else, or look elsewhere.
`gates` gives retrieval, validation and critic as passed, failed or skipped. `sources` is absent
whenever any gate failed. Pass the returned `thread_id` and `thread_token` to ask a follow-up in the same conversation
(the token is its secret: without it the thread_id is unknown)."""

SEARCH_DOCS = """Search the documentation site's pages; get retrieved passages, not an answer.

Each item is {title, url, snippet, endorsed: false}: candidate evidence that no gate has checked.
Read them yourself before relying on any; use ask_docs for a checked answer with sources.
An empty list means no page is relevant to the query."""

LIST_PAGES = """List the pages of the documentation site, in the site's own order (its navigation).

Returns {pages, next_cursor, total}: at most 100 pages a call, each {title, url, section, summary}.
When next_cursor is not null, call again with it as `cursor` for the next pages."""


class DocsMCP:
    """The MCP server over one app's tools (see module docstring)."""

    def __init__(self, desk: Desk) -> None:
        """Declare the tools over ``desk``, the one ``/api/chat`` answers through."""
        self.settings = desk.settings
        self.tools = DocsTools(desk)
        self.server = docs_server(self)
        # Builds the session manager ``server.routes.mcp_endpoint`` hands each /mcp request to
        # (its Starlette app goes unused).
        self.http = self.server.streamable_http_app(
            streamable_http_path="/mcp",
            stateless_http=True,
            json_response=True,
            transport_security=transport_security(self.settings),
        )


LOOPBACK = ("127.0.0.1", "localhost", "::1")


VERSION_HELP = "The docs version to answer from (e.g. 29.7), on a site with versions; default: its latest release."
LOCALE_HELP = "The language to answer in (e.g. es), on a site with languages; untranslated pages come in the default."


def scope_of(version: str | None, locale: str | None) -> dict[str, str]:
    """Return the reader's version and language as far as the call names them."""
    return {key: value for key, value in (("version", version), ("locale", locale)) if value}


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """Return the ``Host``/``Origin`` checks of ``/mcp``.

    A server bound to the loopback interface accepts local ``Host`` and ``Origin`` values
    only: a web page whose name resolves to 127.0.0.1 (DNS rebinding) cannot drive its
    tools. Bound elsewhere, or behind a trusted reverse proxy (which forwards the public
    ``Host``), the proxy or the network is the front door, and nothing is checked here.
    """
    if settings.host in LOOPBACK and not settings.trusted_proxies.strip():
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def client_of(context: Context[Any, Any]) -> str:
    """Return who is calling, for the rate limit: the HTTP client's address, or the one stdio peer."""
    request = context.request_context.request
    client = getattr(request, "client", None)
    return str(client.host) if client is not None else STDIO_CLIENT


async def _refused_as_tool_error(call: Any) -> Any:
    """Await ``call``; an anticipated failure is a tool error, anything else a fixed message (logged)."""
    try:
        return await call
    except ToolRefused as exc:
        raise ToolError(str(exc)) from None
    except Exception:
        logger.exception("MCP tool call failed")
        raise ToolError("Internal error while answering; please try again.") from None


def _quietly(build: Callable[[], MCPServer[Any]]) -> MCPServer[Any]:
    """Build an SDK server without its logging set-up.

    ``MCPServer()`` calls ``logging.basicConfig`` with a Rich handler when the root logger
    has none: the server's warnings would then be reformatted and wrapped at 80 columns
    (one log line split in several). The app's logging stays as the CLI and uvicorn set it.
    """
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        return build()
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers


def docs_server(mcp: DocsMCP) -> MCPServer[Any]:
    """Return the SDK server declaring ``ask_docs``, ``search_docs`` and ``list_pages``."""
    server: MCPServer[Any] = _quietly(
        lambda: MCPServer(name="askai-graph", version=version("askai-graph"), instructions=INSTRUCTIONS)
    )
    limit = mcp.settings.max_question_chars
    read_only = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

    @server.tool(name="ask_docs", description=ASK_DOCS, annotations=read_only)
    async def ask_docs(
        question: Annotated[str, Field(description=f"The question, in plain words (at most {limit} characters).")],
        context: Context[Any, Any],
        thread_id: Annotated[
            str | None, Field(description="A thread_id an earlier ask_docs returned, to ask a follow-up.")
        ] = None,
        thread_token: Annotated[
            str | None, Field(description="The thread_token returned with that thread_id (its secret).")
        ] = None,
        version: Annotated[str | None, Field(description=VERSION_HELP)] = None,
        locale: Annotated[str | None, Field(description=LOCALE_HELP)] = None,
    ) -> AskResult:
        asked = mcp.tools.ask_docs(question, thread_id, client_of(context), thread_token, scope_of(version, locale))
        return await _refused_as_tool_error(asked)  # type: ignore[no-any-return]

    @server.tool(name="search_docs", description=SEARCH_DOCS, annotations=read_only)
    async def search_docs(
        query: Annotated[str, Field(description="What to look for.")],
        context: Context[Any, Any],
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_RESULTS, description="How many passages at most.")] = 5,
        version: Annotated[str | None, Field(description=VERSION_HELP)] = None,
        locale: Annotated[str | None, Field(description=LOCALE_HELP)] = None,
    ) -> list[Passage]:
        searched = mcp.tools.search_docs(query, limit, client_of(context), scope_of(version, locale))
        return await _refused_as_tool_error(searched)  # type: ignore[no-any-return]

    @server.tool(name="list_pages", description=LIST_PAGES, annotations=read_only)
    async def list_pages(
        context: Context[Any, Any],
        cursor: Annotated[
            str | None, Field(description="The next_cursor of the previous call; omit it for the first pages.")
        ] = None,
    ) -> PageList:
        return await _refused_as_tool_error(mcp.tools.list_pages(client_of(context), cursor))  # type: ignore[no-any-return]

    return server
