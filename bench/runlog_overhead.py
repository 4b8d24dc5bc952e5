"""What the run log costs per answer: one record written to SQLite and to PostgreSQL.

Run: ``.venv/bin/python bench/runlog_overhead.py [--runs N] [--postgres URL]``.

The server writes one record per answer just before ``done`` (in a worker thread, so
other requests keep streaming). This prints, measured in the same run and interleaved so
machine load hits them alike: the median offline answer (``graph.invoke`` on the sample
site), the median ``record()`` on a SQLite file (a temporary folder) and on PostgreSQL (a
database created for the run and dropped after it), and each write as a share of an
answer. PostgreSQL is skipped with a note when it cannot be reached.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from askai_graph import build_graph  # noqa: E402
from askai_graph.state import STATE_KEYS  # noqa: E402
from askai_graph.stores.runlog import RunRecord, build_record, open_run_log  # noqa: E402
from askai_graph.summary import RunSummary  # noqa: E402

QUESTIONS = ["How does a semantic cache decide a hit?", "What is BM25?", "How do I bake sourdough bread?"]


def postgres_database(server: str) -> tuple[str, Any] | None:
    try:
        import psycopg

        name = f"askai_bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(f"{server}/postgres", autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # noqa: BLE001 - a bench reports and goes on
        print(f"PostgreSQL skipped: {' '.join(str(exc).split())}")
        return None

    def drop() -> None:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"{server}/{name}", drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432")
    args = parser.parse_args()

    graph = build_graph()
    # A warm-up, and the records' content (the whole state: a record carries retrieved URLs and verdicts).
    finals = [graph.invoke({"question": q}, output_keys=STATE_KEYS) for q in QUESTIONS]
    folder = tempfile.TemporaryDirectory()
    stores = {"sqlite": open_run_log(f"sqlite:///{Path(folder.name) / 'runs.sqlite'}")}
    postgres = postgres_database(args.postgres)
    if postgres is not None:
        stores["postgresql"] = open_run_log(postgres[0])
    times: dict[str, list[float]] = {"answer": [], **{name: [] for name in stores}}
    try:
        for i in range(args.runs):
            question, final = QUESTIONS[i % len(QUESTIONS)], finals[i % len(QUESTIONS)]
            start = time.perf_counter()
            graph.invoke({"question": question})
            times["answer"].append(time.perf_counter() - start)
            for name, store in stores.items():
                summary = RunSummary.from_state(final, run_id=str(uuid.uuid4()))
                record: RunRecord = build_record(summary, question=question, latency_ms=1.0)
                record = record.model_copy(update={"created_at": datetime.now(UTC)})
                start = time.perf_counter()
                store.record(record)
                times[name].append(time.perf_counter() - start)
    finally:
        for store in stores.values():
            store.close()
        if postgres is not None:
            postgres[1]()
        folder.cleanup()
    answer = statistics.median(times["answer"])
    print(f"{args.runs} runs; medians:")
    print(f"  offline answer (graph.invoke)  {answer * 1000:7.2f} ms")
    for name in stores:
        median = statistics.median(times[name])
        print(f"  record() on {name:<18} {median * 1000:7.2f} ms  ({median / answer:.1%} of an answer)")


if __name__ == "__main__":
    main()
