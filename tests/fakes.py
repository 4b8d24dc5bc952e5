"""Every test double in one place: retrievers, review replies, counting chat models, clocks."""

from __future__ import annotations

import asyncio
import heapq
import json
import selectors
import threading
import time
from collections.abc import Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun, Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.retrievers import BaseRetriever

SITE = "https://site.example/posts/"


def post(n: int, text: str | None = None, images: list[dict[str, str]] | None = None) -> Document:
    """A retrieved post numbered ``n`` with URL ``https://site.example/posts/<n>``."""
    return Document(
        page_content=text or f"Page {n} explains retrieval, caching and streaming in detail.",
        metadata={"source_url": f"{SITE}{n}", "title": f"Page {n}", "summary": f"Summary {n}", "images": images or []},
    )


def url(n: int) -> str:
    return f"{SITE}{n}"


class FakeRetriever(BaseRetriever):
    """Returns fixed documents and records every query it was asked."""

    documents: list[Document] = []
    queries: list[str] = []
    fail: bool = False

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        self.queries.append(query)
        if self.fail:
            raise ConnectionError("search backend down")
        return list(self.documents)


def retriever(*numbers: int, **kwargs: Any) -> FakeRetriever:
    return FakeRetriever(documents=[post(n) for n in numbers], queries=[], **kwargs)


def review(**overrides: Any) -> str:
    """A Critique JSON reply that passes every default threshold, with overrides."""
    data: dict[str, Any] = {
        "confidence": 0.9,
        "answer_relevance": 0.9,
        "intent_alignment": 0.9,
        "drift_detected": False,
        "ungrounded_claims": [],
        "gaps": [],
    }
    data.update(overrides)
    return json.dumps(data)


PASSING = review()
LOW_CONFIDENCE = review(confidence=0.2)


class ScriptedChatModel(BaseChatModel):
    """Answers with its scripted replies in turn, then repeats the last; counts calls.

    ``delay`` makes each call slow (for disconnect tests); an ``Exception`` in the
    script is raised instead of answered (for provider-fault tests); ``rendezvous`` (an
    ``asyncio.Barrier``) makes each async call wait until that many calls are in flight
    at once, failing after 10 s (for concurrency tests that need no clock).
    """

    script: list[Any]
    calls: int = 0
    delay: float = 0.0
    prompts: list[str] = []
    rendezvous: Any = None
    calls_file: str | None = None
    """Where a copy running on a LangGraph Server writes its call count (``tests.langgraph_server``)."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _next(self, messages: list[BaseMessage]) -> ChatResult:
        with _LOCK:
            reply = self.script[min(self.calls, len(self.script) - 1)]
            self.calls += 1
            self.prompts.append("\n".join(str(m.content) for m in messages))
            if self.calls_file:
                Path(self.calls_file).write_text(str(self.calls))
        if isinstance(reply, Exception):
            raise reply
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        if self.delay:
            time.sleep(self.delay)
        return self._next(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.rendezvous is not None:
            await asyncio.wait_for(self.rendezvous.wait(), 10)
        return self._next(messages)


_LOCK = threading.Lock()


def replies(*script: Any, delay: float = 0.0) -> ScriptedChatModel:
    """A chat model answering with ``script`` in turn, then repeating the last reply."""
    return ScriptedChatModel(script=list(script), delay=delay, prompts=[])


def catalog_draft(*numbers: int) -> str:
    """A catalog answer listing the given posts as links."""
    return "Here are the articles:\n\n" + "\n".join(f"- [Page {n}]({url(n)}): summary" for n in numbers)


def cited_draft(*numbers: int) -> str:
    """A prose answer citing the given posts."""
    return " ".join(f"Retrieval and caching are covered in [Page {n}]({url(n)})." for n in numbers)


# --- HTTP server doubles (test_server_*.py) ---------------------------------------------


def exploding_graph(message: str = "boom") -> Any:
    """A compiled LangGraph whose second node raises: an unexpected internal failure."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict, total=False):
        question: str
        query: str

    def research(state: State) -> State:
        return {"query": state["question"]}

    def explode(state: State) -> State:
        raise RuntimeError(message)

    builder = StateGraph(State)
    builder.add_node("research", research)
    builder.add_node("writer", explode)
    builder.add_edge(START, "research")
    builder.add_edge("research", "writer")
    builder.add_edge("writer", END)
    return builder.compile()


def fan_out_graph(ticks: list[float], rounds: int = 20, delay: float = 0.1) -> Any:
    """A compiled LangGraph: one quick node, then two parallel slow nodes appending to ``ticks``.

    Parallel tasks run in LangGraph's background executor: the case where a cancelled
    consumer leaves the run going (langgraph issue #5682) unless the run has its own task.
    """
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict, total=False):
        question: str
        query: str

    def research(state: State) -> State:
        return {"query": state["question"]}

    async def slow(state: State) -> State:
        for _ in range(rounds):
            await asyncio.sleep(delay)
            ticks.append(time.monotonic())
        return {}

    builder = StateGraph(State)
    builder.add_node("research", research)
    builder.add_node("left", slow)
    builder.add_node("right", slow)
    builder.add_edge(START, "research")
    builder.add_edge("research", "left")
    builder.add_edge("research", "right")
    builder.add_edge("left", END)
    builder.add_edge("right", END)
    return builder.compile()


class HungRetriever(BaseRetriever):
    """A blocking retriever that hangs until ``release`` is set (deadline tests); counts calls."""

    release: threading.Event
    calls: int = 0
    only: str = ""
    """When set, only a query containing it hangs; any other is answered at once."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        if self.only and self.only not in query:
            return [post(1)]
        self.calls += 1
        self.release.wait(60)
        return [post(1)]


class SlowAsyncRetriever(BaseRetriever):
    """An async retriever that takes ``delay`` seconds (stream-cap and deadline tests)."""

    delay: float = 1.0

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        time.sleep(self.delay)
        return [post(1)]

    async def _aget_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        await asyncio.sleep(self.delay)
        return [post(1)]


def huge_post(sentences: int = 40_000) -> Document:
    """A retrieved post of about 4 MB of distinct sentences (CPU-heavy to analyse)."""
    words = ["alpha", "beta", "gamma", "delta", "retrieval", "cache", "stream", "token", "index", "vector"]
    text = " ".join(
        f"Sentence {i} about " + " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(12)) + "."
        for i in range(sentences)
    )
    return Document(page_content=text, metadata={"source_url": f"{SITE}huge", "title": "Huge"})


def ungated_graph(answer: str, sources: list[Any] | None = None) -> Any:
    """A compiled LangGraph that returns ``answer`` (and ``sources``) as accepted, with no gate.

    Only for testing the widget's own defences: what it does with an answer the gates
    never saw (the real graph would refuse it).
    """
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict, total=False):
        question: str
        answer: str
        outcome: str
        attempts: int
        gates: dict[str, str]
        sources: list[Any]

    def accept(state: State) -> State:
        passed = {"retrieval": "passed", "validation": "passed", "critic": "passed"}
        return {"answer": answer, "outcome": "accepted", "attempts": 1, "gates": passed, "sources": sources or []}

    builder = StateGraph(State)
    builder.add_node("accept", accept)
    builder.add_edge(START, "accept")
    builder.add_edge("accept", END)
    return builder.compile()


def postgres_database(base_url: str) -> Any:
    """A context manager that creates a fresh PostgreSQL database and drops it afterwards."""
    import contextlib
    import uuid

    import psycopg

    @contextlib.contextmanager
    def database() -> Any:
        name = f"askai_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(f"{base_url}/postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{base_url}/{name}"
        finally:
            with psycopg.connect(f"{base_url}/postgres", autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return database()


class GatedChatServer:
    """An OpenAI-compatible ``/v1/chat/completions`` that holds every request until ``gate`` is set.

    For ``askai serve`` processes (``ASKAI_MODEL``, ``ASKAI_BASE_URL``) whose answers must
    stay in flight while a test looks at them: ``asked`` is set by the first request. It
    answers ``content`` (plain or as a streamed completion).
    """

    def __init__(self, content: str = "BM25 ranks passages by term frequency.") -> None:
        self.gate, self.asked, self.content = threading.Event(), threading.Event(), content

    def app(self) -> Any:
        """The ASGI app (serve it with ``tests.live.LiveServer``)."""
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, Response, StreamingResponse
        from starlette.routing import Route

        async def completions(request: Request) -> Response:
            body = await request.json()
            self.asked.set()
            while not self.gate.is_set():
                await asyncio.sleep(0.02)
            reply = {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"]}
            if not body.get("stream"):
                message = {"role": "assistant", "content": self.content}
                choice = {"index": 0, "message": message, "finish_reason": "stop"}
                return JSONResponse(reply | {"choices": [choice]})

            async def chunks() -> Any:
                delta = {"index": 0, "delta": {"role": "assistant", "content": self.content}, "finish_reason": None}
                yield f"data: {json.dumps(reply | {'object': 'chat.completion.chunk', 'choices': [delta]})}\n\n"
                end = {"index": 0, "delta": {}, "finish_reason": "stop"}
                yield f"data: {json.dumps(reply | {'object': 'chat.completion.chunk', 'choices': [end]})}\n\n"
                yield "data: [DONE]\n\n"

            return StreamingResponse(chunks(), media_type="text/event-stream")

        return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


class ConceptEmbeddings(Embeddings):
    """Deterministic embeddings that know synonyms: one dimension per concept, counted in the text.

    Words of one concept (``"cite"``, ``"citation"``, ``"reference"``) land on the same
    dimension, so a paraphrase meets its page where BM25, which sees different words,
    does not. Every text embedded is recorded, to count what an index build re-embeds.
    """

    CONCEPTS: tuple[tuple[str, ...], ...] = (
        ("cite", "cites", "citation", "citations", "reference", "references", "source", "sources"),
        ("cache", "caching", "cached", "reuse", "memo", "remember"),
        ("boot", "boots", "footwear", "shoe", "shoes"),
        ("water", "drink", "hydration", "thirst", "thirsty"),
        ("map", "maps", "contour", "contours", "terrain", "elevation"),
        ("weather", "storm", "rain", "forecast", "thunder"),
        ("wrong", "incorrect", "mistaken", "bad"),
        ("blister", "blisters", "bandage", "plaster", "plasters", "injury"),
        ("cold", "winter", "layers", "warm", "freezing"),
    )
    texts: list[str]

    def __init__(self) -> None:
        self.texts = []

    def _vector(self, text: str) -> list[float]:
        words = [w.strip(".,:;!?()'\"").lower() for w in text.split()]
        vector = [float(sum(w in concept for w in words)) for concept in self.CONCEPTS]
        vector.append(0.05)  # every text shares a little, so no vector is zero
        norm = sum(x * x for x in vector) ** 0.5
        return [x / norm for x in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


class ReversingReranker(BaseDocumentCompressor):
    """A deterministic reranker: reverses the candidates and records how many it was shown."""

    seen: list[int] = []

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        self.seen.append(len(documents))
        return list(reversed(documents))


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps to its next timer whenever nothing is ready: hours pass in no time.

    For code whose waits are all the loop's own (sleeps, timers, futures). While nothing
    is ready the clock jumps to the next timer, so the waits still end in their order.
    Not for a wait on real I/O elsewhere, which the clock would jump past.
    """

    def __init__(self) -> None:
        self.now = 0.0
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self.now


class _JumpingSelector(selectors.DefaultSelector):
    """Polls without waiting; a wait for a timer moves the loop's clock instead."""

    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        ready: list[tuple[Any, int]] = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:  # no timer at all: only another thread can wake the loop
            return super().select(None)
        self._loop.now += timeout
        return []


def in_virtual_time(scenario: Coroutine[Any, Any, Any]) -> Any:
    """Run ``scenario`` to its end on a ``VirtualTimeLoop`` and return its result."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(scenario)


class WallClockAhead:
    """The real wall clock, plus whatever a test has skipped: ``skip(timedelta)`` ages everything at once.

    For code that compares its clock with times stamped on the real one (a thread's last
    checkpoint): skipping an hour makes that checkpoint an hour old without waiting.
    """

    def __init__(self) -> None:
        self.ahead = timedelta(0)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.ahead

    def skip(self, span: timedelta) -> None:
        self.ahead += span


class FakeClock:
    """Time that moves only when a test says so: ``clock()`` reads it, ``sleep`` waits on it, ``advance`` moves it.

    For code given a clock and a sleep of its own (``clock=``, ``sleep=``) while its real
    I/O runs on a real event loop. ``advance`` wakes the sleepers due, in order, and
    lets each run until it sleeps again or ends before moving on: a renewal due at 0.3 s
    has reached its server before the test looks at 2.5 s.
    """

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start
        self._due: list[tuple[float, int, asyncio.Future[None]]] = []
        self._sleeping: dict[asyncio.Future[None], asyncio.Task[Any] | None] = {}
        self._order = 0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._order += 1
        heapq.heappush(self._due, (self.now + max(0.0, seconds), self._order, woken))
        self._sleeping[woken] = asyncio.current_task()
        try:
            await woken
        finally:
            self._sleeping.pop(woken, None)

    async def advance(self, seconds: float) -> None:
        until = self.now + seconds
        await asyncio.sleep(0)  # a task just created (a renewer) starts, and sleeps, first
        while self._due and self._due[0][0] <= until:
            when, _, woken = heapq.heappop(self._due)
            self.now = max(self.now, when)
            task = self._sleeping.get(woken)
            if woken.done():  # its sleeper was cancelled meanwhile
                continue
            woken.set_result(None)
            await self._settled(task)
        self.now = until

    async def _settled(self, task: asyncio.Task[Any] | None) -> None:
        """Return once ``task`` sleeps on this clock again or has ended."""
        await asyncio.sleep(0)
        while task is not None and not task.done() and task not in self._sleeping.values():
            await asyncio.sleep(0.001)  # real I/O of its own (a Redis call) under way

