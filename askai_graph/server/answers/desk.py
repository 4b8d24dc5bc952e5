"""The answer desk: one admission and one answer-with-cache, whatever face a question came in by.

``POST /api/chat`` (``chat``) and the MCP tool ``ask_docs`` (``askai_graph.mcp.tools``)
both hand a question to the ``Desk`` that ``create_app`` builds once. ``admitted`` runs
the admission in one order, and refuses with one ``Refused`` at the first step that fails:

1. ready: the graph is built (a threads database opens with the app's lifespan) - 503;
2. a stream slot is free - 503 with ``Retry-After`` (first: refusing costs nothing and,
   unlike a 429, uses none of the client's quota);
3. the client's rate limit - 429 with ``Retry-After``;
4. the face's own input checks (the HTTP body, the tool's arguments) - what the face raises;
5. the version the reader reads is one the site has - 422;
6. a stream slot is taken - 503 (another request took the last one meanwhile);
7. the thread is leased (``leases``): 404 unknown, 409 busy, 503 when the threads
   database is unreachable (the slot is given back).

``events`` then yields the run's batches of events (``answering.answer_batches``: the
answer cache around the run), logged by ``recording`` with the reader and the search
the question came from. Each face maps a ``Refused`` to its protocol (an HTTP status,
``{"detail"}`` and ``Retry-After``; an MCP tool error) and frames the events (SSE; one
tool result), and gives the slot and the lease back when its answer ends.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.retrievers import BaseRetriever

from askai_graph.nodes.finish import fallback_answer
from askai_graph.retrieval.scope import NoVersions, ScopeError, SiteVariants
from askai_graph.server.answers.answering import answer_batches
from askai_graph.server.answers.cache import SemanticCache
from askai_graph.server.answers.events import Event
from askai_graph.server.answers.leases import ThreadLeases
from askai_graph.server.answers.recording import RecordingGraph, recorded
from askai_graph.server.answers.reload import Generation, IndexReloader
from askai_graph.server.answers.run import StreamingGraph
from askai_graph.server.answers.search_settle import SearchSettler
from askai_graph.server.answers.thread_run import ThreadRun
from askai_graph.server.guards.limits import ClientRateLimit, Slot, StreamSlots
from askai_graph.server.guards.request import BadRequest
from askai_graph.server.scaleout.outages import THREADS_UNREACHABLE, database_outage
from askai_graph.settings import Settings
from askai_graph.stores.readers import ReaderHash
from askai_graph.stores.runlog import RunLog

BUSY = "the server is answering as many questions as it can; retry shortly"
NOT_READY = "the threads database is not open yet"


class Refused(Exception):
    """A question the desk does not admit: its HTTP status, its one sentence, and when to retry."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None, said: str | None = None) -> None:
        """Refuse with ``status`` and ``message``; ``said`` is the sentence for a face with no status or headers."""
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.said = said or message
        """What an MCP agent reads: it sees no ``Retry-After`` header, so the words say when to retry."""


@dataclass(frozen=True)
class Asked:
    """A question as a face read it, checked by that face's own rules."""

    question: str
    """The question, within ``max_question_chars``."""
    thread_id: str | None = None
    """A follow-up on this conversation (well formed; whether it exists is the lease's to say)."""
    thread_token: str | None = None
    """That conversation's secret."""
    scope: Mapping[str, str] = field(default_factory=dict)
    """The reader's ``version`` and ``locale``, as far as the question names them."""
    search_id: str | None = None
    """The launcher search the question was asked from, if any."""


@dataclass(frozen=True)
class Admission:
    """An admitted question: it holds a stream slot and its thread's lease until the face gives them back."""

    asked: Asked
    graph: StreamingGraph
    """The graph of the generation served when the question arrived (kept to its end)."""
    cache: SemanticCache | None
    """That generation's answer cache."""
    thread: ThreadRun
    """The thread the answer runs on, and its run id."""
    slot: Slot
    """The stream slot (released once, however often asked)."""
    release: Callable[[], Awaitable[None]]
    """Gives the thread's lease back (idempotent)."""
    reader: str
    """The keyed hash of the client (``stores.readers``), never its address."""


class Desk:
    """Admission and the answer-with-cache for every face (see module docstring)."""

    def __init__(
        self,
        settings: Settings,
        *,
        slots: StreamSlots,
        rate_limit: ClientRateLimit,
        leases: ThreadLeases,
        run_log: RunLog | None,
        readers: ReaderHash,
        reloader: IndexReloader | None,
        fixed: Generation | None = None,
        settled: SearchSettler | None = None,
    ) -> None:
        """Keep what every face shares: limits, leases, the run log, and what is served (``reloader`` or ``fixed``)."""
        self.settings = settings
        self.slots = slots
        self.rate_limit = rate_limit
        self.leases = leases
        self.run_log = run_log
        self.readers = readers
        self.reloader = reloader
        self.fixed = fixed
        self.settled = settled

    def serving(self) -> Generation:
        """Return what is served now: the reloader's current generation, else the one given."""
        if self.reloader is not None:
            return self.reloader.current
        if self.fixed is None:
            raise RuntimeError("a desk serves a reloader's generation or a fixed one")
        return self.fixed

    def retriever(self) -> BaseRetriever | None:
        """Return the retriever of the corpus served now (``None`` for a graph the app did not build)."""
        return self.reloader.retriever if self.reloader is not None else None

    async def admitted(self, client: str, read: Callable[[], Awaitable[Asked]]) -> Admission:
        """Admit ``client``'s question, read by ``read`` in its turn, or raise the first ``Refused`` (see module)."""
        serving = await self.opened()
        graph = serving.graph
        assert graph is not None  # ``opened`` refuses a generation without one
        await self.counted(client)
        asked = await read()
        self.check_version(asked.scope.get("version"), serving.info)
        slot = await self.slots.try_acquire()
        if slot is None:
            raise self._busy()
        thread, release = await self._claim(graph, asked, slot)
        reader = self.readers(client)
        if self.settled is not None:
            self.settled.settle(reader)  # asking settles the reader's search: the log keeps it now
        return Admission(asked, graph, serving.cache, thread, slot, release, reader)

    def events(self, admission: Admission) -> AsyncGenerator[list[Event], None]:
        """Return the admitted question's batches of events: the cache around its run, logged before ``done``."""
        asked, settings = admission.asked, self.settings
        recorder = RecordingGraph(admission.graph)
        scope = dict(asked.scope)
        run = answer_batches(
            asked.question,
            graph=recorder,
            cache=admission.cache,
            token_chars=settings.token_chars,
            thread=admission.thread,
            deadline_seconds=settings.request_timeout_seconds,
            scope=scope,
            fallback=fallback_answer(settings, scope.get("locale")),
        )
        return recorded(
            run,
            question=asked.question,
            recorder=recorder,
            run_log=self.run_log,
            run_id=admission.thread.run_id,
            reader=admission.reader,
            search_id=self._own_search(asked.search_id, admission.reader),
        )

    def _own_search(self, search_id: str | None, reader: str) -> str | None:
        """Return ``search_id`` if ``reader``'s own search issued it: another reader's (shared, guessed) is dropped."""
        return search_id if search_id and self.readers.issued(search_id, reader) else None

    async def opened(self) -> Generation:
        """Return what is served now, or refuse (503): the graph is not built yet, or every stream slot is taken.

        The first two steps of the admission; ``/mcp`` takes them for every request it gets.
        """
        serving = self.serving()
        if serving.graph is None:
            raise Refused(503, NOT_READY, said=f"{NOT_READY}; retry shortly")
        if await self.slots.full():
            raise self._busy()
        return serving

    async def counted(self, client: str) -> None:
        """Count one request of ``client`` against the rate limit; refuse (429) past it."""
        wait = await self.rate_limit.admit(client)
        if wait is not None:
            reached = f"rate limit of {self.settings.rate_limit} per client reached"
            raise Refused(429, f"{reached}; retry later", retry_after=wait, said=f"{reached}; retry in {wait} s")

    @staticmethod
    def check_version(version: str | None, info: Mapping[str, Any]) -> None:
        """Refuse (422) a version the site being served does not have (``SiteVariants.honoured``)."""
        known = info.get("variants")
        if not version:
            return
        try:
            (SiteVariants.from_manifest(known) if isinstance(known, Mapping) else SiteVariants()).honoured(version)
        except NoVersions as exc:
            said = f"'version' {exc}"
            raise Refused(422, said, said=said) from None
        except ScopeError as exc:
            raise Refused(422, f"'version' {exc}", said=str(exc)) from None

    async def _claim(
        self, graph: StreamingGraph, asked: Asked, slot: Slot
    ) -> tuple[ThreadRun, Callable[[], Awaitable[None]]]:
        """Lease the question's thread, or give the slot back and refuse (404, 409, 503)."""
        try:
            return await self.leases.claim(graph, asked.thread_id, asked.thread_token)
        except BaseException as exc:
            await slot.release()
            if isinstance(exc, BadRequest):
                raise Refused(exc.status, exc.message, retry_after=exc.retry_after) from None
            if isinstance(exc, Exception) and database_outage(exc):
                retry = self.settings.retry_after_seconds
                raise Refused(503, THREADS_UNREACHABLE, retry_after=retry) from None
            raise

    def _busy(self) -> Refused:
        return Refused(503, BUSY, retry_after=self.settings.retry_after_seconds)
