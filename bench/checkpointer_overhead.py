"""What threads cost: one offline question with no checkpointer, SQLite and PostgreSQL.

Run: ``.venv/bin/python bench/checkpointer_overhead.py [--runs N] [--postgres URL]``.

Every backend answers the same questions in the same run, interleaved (so machine load
hits them alike): the issue's three questions, each on a new thread, and a follow-up
("How do I tune its parameters?") as the second turn of a thread that asked "What is
BM25?" (only the follow-up is timed; without a checkpointer, its standalone form). Runs
on a thread write their checkpoint when they end (``durability="exit"``, as the server
and the CLI run them; ``--durability async`` shows LangGraph's default, one write per
stage). Prints the median ``invoke`` time per question and backend, and
each checkpointer's ratio to no checkpointer. The SQLite file lives in a
temporary folder; the PostgreSQL database is created for the run and dropped after it
(``--postgres`` is the server, default ``postgresql://postgres@127.0.0.1:5432``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from askai_graph import Settings, build_graph  # noqa: E402
from askai_graph.indexing.loader import load_corpus  # noqa: E402
from askai_graph.models.providers import RETRIEVER_CEILING  # noqa: E402
from askai_graph.retrieval.pages import BM25Retriever  # noqa: E402
from askai_graph.stores.checkpoints import open_checkpointer  # noqa: E402
from askai_graph.stores.threads import DURABILITY  # noqa: E402

FIRST_TURNS = ["How does a semantic cache decide a hit?", "What is BM25?", "How do I bake sourdough bread?"]
FOLLOW_UP = ("What is BM25?", "How do I tune its parameters?")
STANDALONE = "How do I tune its parameters? (BM25)"  # what the follow-up is researched as


@contextmanager
def postgres_database(server: str) -> Iterator[str | None]:
    """Yield the URL of a fresh database on ``server`` (``None`` if unreachable); drop it after."""
    try:
        import psycopg

        admin = psycopg.connect(f"{server}/postgres", autocommit=True, connect_timeout=5)
    except Exception as exc:  # the postgres extra missing, or no server: bench the rest
        print(f"PostgreSQL skipped ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})")
        yield None
        return
    name = f"askai_bench_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{server}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def timed(graph: Any, question: str, config: dict[str, Any] | None, durability: str) -> float:
    start = time.perf_counter()
    graph.invoke({"question": question}, config, durability=durability if config else None)
    return time.perf_counter() - start


def thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": str(uuid.uuid4())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per question and backend (default 15)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument(
        "--durability",
        choices=["exit", "async", "sync"],
        default=DURABILITY,
        help=f"when a run writes checkpoints (default {DURABILITY!r}, as askai serves; 'async' writes one per stage)",
    )
    args = parser.parse_args()
    durability = args.durability
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        settings = Settings(index_cache_dir=Path(folder) / "bm25")
        retriever = BM25Retriever(corpus=load_corpus(None), k=RETRIEVER_CEILING, cache_dir=settings.index_cache_dir)
        graphs: dict[str, Any] = {"none": build_graph(retriever=retriever, settings=settings)}
        sqlite = stack.enter_context(open_checkpointer(f"sqlite:///{folder}/threads.sqlite"))
        graphs["sqlite"] = build_graph(retriever=retriever, settings=settings, checkpointer=sqlite)
        postgres_url = stack.enter_context(postgres_database(args.postgres))
        if postgres_url is not None:
            postgres = stack.enter_context(open_checkpointer(postgres_url))
            graphs["postgres"] = build_graph(retriever=retriever, settings=settings, checkpointer=postgres)

        def config(backend: str) -> dict[str, Any] | None:
            return None if backend == "none" else thread()

        labels = [*FIRST_TURNS, f"{FOLLOW_UP[1]} (after {FOLLOW_UP[0]!r})"]
        samples: dict[tuple[str, str], list[float]] = {(label, b): [] for label in labels for b in graphs}
        for backend, graph in graphs.items():  # warm up: imports, caches, prepared statements
            for question in FIRST_TURNS:
                timed(graph, question, config(backend), durability)
        for _ in range(args.runs):
            for backend, graph in graphs.items():
                for question in FIRST_TURNS:
                    samples[(question, backend)].append(timed(graph, question, config(backend), durability))
                if backend == "none":  # no thread to lean on: ask its standalone form instead
                    samples[(labels[-1], backend)].append(timed(graph, STANDALONE, None, durability))
                    continue
                conversation = thread()
                graph.invoke({"question": FOLLOW_UP[0]}, conversation, durability=durability)
                samples[(labels[-1], backend)].append(timed(graph, FOLLOW_UP[1], conversation, durability))

    backends = list(graphs)
    print(f"\nmedian invoke (ms) over {args.runs} runs per question, durability={durability!r}")
    print("ratio = with that checkpointer / without one")
    ratio_names = "".join(f"{b + '/none':>15}" for b in backends[1:])
    print(f"{'question':66}" + "".join(f"{b:>10}" for b in backends) + ratio_names)
    for label in labels:
        medians = {b: statistics.median(samples[(label, b)]) * 1000 for b in backends}
        ratios = "".join(f"{medians[b] / medians['none']:>14.2f}x" for b in backends[1:])
        print(f"{label[:66]:66}" + "".join(f"{medians[b]:>10.1f}" for b in backends) + ratios)
    print(f"(without a checkpointer the follow-up has no thread: its standalone form {STANDALONE!r} is timed)")


if __name__ == "__main__":
    main()
