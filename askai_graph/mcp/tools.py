"""What each MCP tool does, whatever the transport: ask the site, search it, list its pages.

``DocsTools`` works through the app's answer desk (``server.answers.desk``): what the app serves
now, with its stream cap, per-client rate limit, thread leases, question limit,
deadline, answer cache and run log: an agent gets no more, and no less, than a reader of
``/api/chat``.

- ``ask_docs`` is admitted by the desk in ``/api/chat``'s order (its own input checks in
  their turn) and runs the desk's events, the very events the SSE stream frames, logged
  with the reader and folded into one result. ``sources`` is in it only when the ``sources`` event was
  sent, that is when the Source Gate passed.
- ``search_docs`` returns retrieved passages, each marked ``endorsed: false``: they are
  candidate evidence no gate has checked, not an answer (the same relevance floor as
  Research applies, so an off-topic query finds nothing).
- ``list_pages`` returns the site's catalog in its own order, ``PAGE_SIZE`` pages a call
  (each entry's text bounded), with a ``next_cursor`` for the next page of it.

Every tool call counts against the client's rate limit, as a question to ``/api/chat``
does: an agent listing the site in a loop is refused like a reader asking in one.

Every anticipated failure (a limit, a bad argument, an unknown thread: the desk's
``Refused`` in its words for an agent) is a ``ToolRefused`` with a one-line message; the
transport turns it into an MCP tool error.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Mapping
from typing import Any, Literal, NotRequired, cast

from langchain_core.retrievers import BaseRetriever
from typing_extensions import TypedDict

from askai_graph.retrieval.pages import PageRetriever
from askai_graph.rules.catalog import SiteCatalog
from askai_graph.rules.question import QuestionError, checked_question
from askai_graph.server.answers.desk import Asked, Desk, Refused
from askai_graph.server.answers.events import Event
from askai_graph.server.answers.recording import flat
from askai_graph.settings.answer import LOCALE_PATTERN, VERSION_PATTERN
from askai_graph.stores.thread_tokens import THREAD_TOKEN_FORMAT, is_thread_token
from askai_graph.stores.threads import THREAD_ID_FORMAT, is_thread_id
from askai_graph.summary import RunSummary
from askai_graph.text.plain import plain_text
from askai_graph.text.unlinking import unlinked as unlink

SNIPPET_CHARS = 320
"""About how much of a passage ``search_docs`` shows (plain text, cut at a word)."""
MAX_SEARCH_RESULTS = 20
"""The most passages one ``search_docs`` call returns."""
PAGE_SIZE = 100
"""Pages one ``list_pages`` call returns at most (about 100 KB at most: each entry's text is bounded)."""
TITLE_CHARS = 200
"""The most characters of a title or section ``list_pages`` shows."""
STDIO_CLIENT = "stdio"
"""The rate-limit identity of the one client of a stdio server."""


class SourceCard(TypedDict):
    """A page the accepted answer cites (a source card of the SSE ``sources`` event)."""

    title: str
    url: str
    section: str
    """The heading of the section the quote comes from ('' for the page's opening)."""
    anchor_url: str
    """The page URL with that section's anchor, or a text fragment of the quote."""
    quote: str
    """The passage the answer rests on, verbatim from the retrieved page."""


class AskResult(TypedDict):
    """What ``ask_docs`` returns."""

    answer: str
    outcome: Literal["accepted", "accepted_early", "degraded", "fallback"]
    gates: dict[str, Literal["passed", "failed", "skipped"]]
    sources: NotRequired[list[SourceCard]]
    cached: bool
    run_id: str | None
    thread_id: str | None
    thread_token: str | None


class Passage(TypedDict):
    """One retrieved passage of ``search_docs``: candidate evidence, never endorsed."""

    title: str
    url: str
    snippet: str
    endorsed: Literal[False]


class PageEntry(TypedDict):
    """One page of ``list_pages``."""

    title: str
    url: str
    section: str
    summary: str


class PageList(TypedDict):
    """What ``list_pages`` returns: a slice of the catalog, and where the next one starts."""

    pages: list[PageEntry]
    next_cursor: str | None
    """Pass it as ``cursor`` for the next pages; ``null`` after the last."""
    total: int
    """Pages the site has in all."""


class ToolRefused(Exception):
    """An anticipated failure of a tool call; ``str(error)`` is the one line the agent reads."""


class DocsTools:
    """The tools over the app's desk (see module docstring)."""

    def __init__(self, desk: Desk) -> None:
        """Answer through ``desk``: the limits, threads, cache and run log ``/api/chat`` answers with."""
        self.desk = desk
        self.settings = desk.settings

    async def ask_docs(
        self, question: str, thread_id: str | None, client: str, thread_token: str | None = None,
        scope: Mapping[str, str] | None = None,
    ) -> AskResult:
        """Answer ``question`` (a follow-up on ``thread_id``, owned by ``thread_token``, if given) for ``client``.

        Only the pages of the version and language ``scope`` names (``version``, ``locale``) are read.
        """

        async def read() -> Asked:
            checked = self._question(question)
            if thread_id is not None and not is_thread_id(thread_id):
                raise ToolRefused(f"thread_id must be an id ask_docs returned ({THREAD_ID_FORMAT})")
            if thread_token is not None and not is_thread_token(thread_token):
                raise ToolRefused(f"thread_token must be {THREAD_TOKEN_FORMAT}")
            return Asked(checked, thread_id, thread_token, _well_formed(scope or {}))

        try:
            admission = await self.desk.admitted(client, read)
        except Refused as refusal:
            raise ToolRefused(refusal.said) from None
        try:
            return await answer_result(flat(self.desk.events(admission)))
        finally:
            try:
                await admission.release()
            finally:
                await admission.slot.release()

    async def search_docs(
        self, query: str, limit: int, client: str, scope: Mapping[str, str] | None = None
    ) -> list[Passage]:
        """Return up to ``limit`` retrieved passages for ``query``, none of them endorsed.

        Only the pages of the version and language ``scope`` names (``version``, ``locale``) are searched.
        """
        await self._admit(client)
        query = self._question(query)
        scope = _well_formed(scope or {})
        try:
            self.desk.check_version(scope.get("version"), self.desk.serving().info)
        except Refused as refusal:
            raise ToolRefused(refusal.said) from None
        retriever = self._retriever()
        limit = max(1, min(limit, MAX_SEARCH_RESULTS))
        # The project's retrievers take ``k`` and the reader's scope (another retriever's ``k`` may mean
        # something else); ``ainvoke`` runs the CPU work of ranking off the event loop.
        keep: dict[str, Any] = {"k": limit, **scope} if isinstance(retriever, PageRetriever) else {}
        documents = await retriever.ainvoke(query, None, **keep)
        return [
            {
                "title": plain_text(str(document.metadata.get("title") or "")),
                "url": str(document.metadata.get("source_url") or ""),
                "snippet": snippet(document.page_content),
                "endorsed": False,
            }
            for document in documents[:limit]
        ]

    async def list_pages(self, client: str, cursor: str | None = None) -> PageList:
        """Return the site's pages in its own order (nav sections included), from ``cursor`` on."""
        await self._admit(client)
        retriever = self._retriever()
        if not isinstance(retriever, SiteCatalog):
            raise ToolRefused("this server's retriever cannot list the site's pages")
        pages = len(getattr(getattr(retriever, "corpus", None), "posts", ()))
        start = _offset(cursor, pages)
        # Ordering the catalog is CPU work on a large site: off the event loop.
        documents = (await asyncio.to_thread(retriever.catalog, start + PAGE_SIZE))[start:]
        listed: list[PageEntry] = [
            {
                "title": snippet(str(document.metadata.get("title") or ""), TITLE_CHARS),
                "url": str(document.metadata.get("source_url") or ""),
                "section": snippet(str(document.metadata.get("section") or ""), TITLE_CHARS),
                "summary": snippet(str(document.metadata.get("summary") or "")),
            }
            for document in documents
        ]
        end = start + len(listed)
        return {"pages": listed, "next_cursor": str(end) if end < pages else None, "total": pages}

    async def _admit(self, client: str) -> None:
        try:
            await self.desk.counted(client)
        except Refused as refusal:
            raise ToolRefused(refusal.said) from None

    def _question(self, text: str) -> str:
        try:
            return checked_question(text, self.settings)
        except QuestionError as exc:
            raise ToolRefused(f"the question {exc}") from None

    def _retriever(self) -> BaseRetriever:
        """The retriever of the corpus served now (refused when the app was handed a graph)."""
        retriever = self.desk.retriever()
        if retriever is None:
            raise ToolRefused("this server answers from a graph it did not build: it has no corpus to search or list")
        return retriever


def _well_formed(scope: Mapping[str, str]) -> dict[str, str]:
    """Return the reader's version and language, refused when malformed (the desk checks the version exists)."""
    for name, pattern in (("version", VERSION_PATTERN), ("locale", LOCALE_PATTERN)):
        value = scope.get(name)
        if value is not None and not re.fullmatch(pattern, value):
            raise ToolRefused(f"{name} must match {pattern}")
    return dict(scope)


async def answer_result(events: AsyncGenerator[Event, None]) -> AskResult:
    """Fold one answer's SSE events into the ``ask_docs`` result.

    ``sources`` is present only when the run sent a ``sources`` event (the Source Gate
    passed); a degraded answer comes without its links (``unlinked``); an ``error`` event
    is a tool error carrying its fixed message, never detail.
    """
    tokens: list[str] = []
    sources: list[dict[str, str]] | None = None
    done: Mapping[str, Any] | None = None
    try:
        async for name, data in events:
            if name == "token":
                tokens.append(data["text"])
            elif name == "sources":
                sources = list(data)
            elif name == "done":
                done = data  # ``events.Done``: its ``summary`` knows the retrieved URLs
            elif name == "error":
                raise ToolRefused(data["message"])
    finally:
        await events.aclose()
    if done is None:
        raise ToolRefused("the answer ended without an outcome; please try again")
    answer = "".join(tokens)
    if done["outcome"] == "degraded":
        answer = unlinked(answer, getattr(done, "summary", None))
    result: dict[str, Any] = {"answer": answer, "outcome": done["outcome"], "gates": done["gates"]}
    if sources:
        result["sources"] = sources
    result |= {"cached": done["cached"], "run_id": done.get("run_id"), "thread_id": done.get("thread_id")}
    result["thread_token"] = done.get("thread_token")
    return cast(AskResult, result)


def _offset(cursor: str | None, pages: int) -> int:
    """Return where the catalog slice a ``cursor`` names starts (``ToolRefused`` for one never returned)."""
    if cursor is None or cursor == "":
        return 0
    if not cursor.isdigit() or int(cursor) > pages or len(cursor) > 9:
        raise ToolRefused("cursor must be a next_cursor list_pages returned (the site may have changed: start over)")
    return int(cursor)


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Return ``text`` as one line of plain text, cut at a word near ``limit`` characters."""
    line = plain_text(text)
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0] + " …"


def unlinked(answer: str, summary: RunSummary | None) -> str:
    """Return a degraded answer with no retrieved URL left in it (see ``askai_graph.text.unlinking``).

    The graph already unlinks it; an answer from a graph elsewhere (``--graph-url``) is
    unlinked here again against the run's own URLs.
    """
    urls = set(summary.retrieved_urls) | set(summary.cited_urls) if summary is not None else set()
    return unlink(answer, urls)
