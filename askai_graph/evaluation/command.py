"""``askai eval QUESTIONS.jsonl [--json] [--out DIR] [--baseline REPORT.json]``.

Runs every question through the graph as configured (offline defaults or a model, the
configured corpus), writes ``report.json``, ``report.md`` and ``report.png`` into
``--out``, and prints the table (or, with ``--json``, the metrics as JSON). Exit status:
0, or 1 when a promise metric fails (a false source card, an off-topic question with
sources) or ``--baseline`` finds a regression; 2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from askai_graph.evaluation.runner import StreamableGraph
    from askai_graph.settings import Settings


class EvalUsageError(ValueError):
    """Bad input to ``askai eval`` (questions file, baseline); exit status 2."""


def add_parser(commands: Any) -> None:
    """Register the ``eval`` subcommand."""
    cmd = commands.add_parser("eval", help="run a labelled question set and report how well it answers")
    cmd.add_argument("questions", type=Path, help="JSONL file: one {question, expected_urls?, kind?, must_mention?}")
    cmd.add_argument("--json", action="store_true", help="print the metrics as JSON instead of the table")
    cmd.add_argument("--out", type=Path, default=Path("askai-eval"), help="report folder (default ./askai-eval)")
    cmd.add_argument("--baseline", type=Path, help="an earlier report.json; exit 1 if a metric regresses")
    cmd.add_argument(
        "--tolerance", type=float, default=0.02, help="how much a share may drop against the baseline (0.02)"
    )
    cmd.set_defaults(run=run_eval)


def _load_baseline(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvalUsageError(f"cannot read the baseline {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise EvalUsageError(f"{path} is not an askai eval report (no 'metrics' object)")
    return data


def _default_graph(settings: Settings) -> tuple[StreamableGraph, dict[str, Any]]:
    from askai_graph.corpus import load_corpus
    from askai_graph.graph import build_graph
    from askai_graph.providers import RETRIEVER_CEILING
    from askai_graph.retrieval import BM25Retriever

    corpus = load_corpus(settings.corpus)
    retriever = BM25Retriever(corpus=corpus, k=RETRIEVER_CEILING, cache_dir=settings.index_cache_dir)
    config = {
        "corpus": corpus.fingerprint,
        "posts": len(corpus.posts),
        "writer": settings.writer_model or settings.model or "offline",
        "critic": settings.critic_model or settings.model or "offline",
        "max_attempts": settings.max_attempts,
    }
    return build_graph(retriever=retriever, settings=settings), config


def run_eval(args: argparse.Namespace, settings: Settings, graph: StreamableGraph | None = None) -> int:
    """Run the evaluation the arguments describe; return the exit status."""
    from tqdm import tqdm

    # Here, not at the top: registering ``askai eval`` (every command does) loads none of
    # the pipeline; the metrics use numpy.
    from askai_graph.evaluation.baseline import changed_outcomes, regressions
    from askai_graph.evaluation.chart import ChartsUnavailable, write_eval_chart
    from askai_graph.evaluation.dataset import DatasetError, load_questions
    from askai_graph.evaluation.report import build_report, render_markdown, render_table
    from askai_graph.evaluation.runner import run_questions

    try:
        questions = load_questions(args.questions)
    except DatasetError as exc:
        raise EvalUsageError(f"{args.questions}: {exc}" if str(exc).startswith("line") else str(exc)) from exc
    baseline = _load_baseline(args.baseline) if args.baseline else None
    config: dict[str, Any] = {}
    if graph is None:
        graph, config = _default_graph(settings)
    if baseline is not None:
        for key in ("corpus", "writer", "critic"):
            before, now = baseline.get("config", {}).get(key), config.get(key)
            if before and now and before != now:
                print(f"askai: note: the baseline's {key} was {before}, this run's is {now}", file=sys.stderr)
    # disable=None: a bar on an interactive terminal, nothing in CI logs or pipes.
    with tqdm(total=len(questions), unit="q", file=sys.stderr, disable=None, desc="askai eval") as bar:
        results = run_questions(graph, questions, progress=lambda _: bar.update(1))
    report = build_report(results, k=settings.top_k, config=config)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    chart: str | None = "report.png"
    try:
        write_eval_chart(report["metrics"], args.out / "report.png")
    except ChartsUnavailable as exc:
        print(f"askai: note: {exc}", file=sys.stderr)
        chart = None
    (args.out / "report.md").write_text(render_markdown(report, chart=chart), encoding="utf-8")
    metrics = report["metrics"]
    print(json.dumps(metrics, indent=2, ensure_ascii=False) if args.json else render_table(metrics))
    print(f"report: {args.out / 'report.md'}", file=sys.stderr)
    problems = regressions(metrics, baseline["metrics"], args.tolerance) if baseline else []
    if baseline is None:
        from askai_graph.evaluation.baseline import invariant_failures

        problems = invariant_failures(metrics)
    for line in problems:
        print(f"askai: regression: {line}", file=sys.stderr)
    if problems and baseline is not None:
        for line in changed_outcomes(report, baseline)[:20]:
            print(f"askai: changed: {line}", file=sys.stderr)
    return 1 if problems else 0
