"""The ``askai`` command line: index a site, ask a question, hold a conversation, or serve the HTTP API.

``askai ask`` and ``askai chat`` run on threads kept in ``ASKAI_DATABASE_URL`` (a SQLite
file in the user's data folder by default), so ``askai ask --thread ID`` continues a
conversation started by ``askai ask``, ``askai chat`` or the HTTP API on the same database,
given the thread's secret with ``--thread-token`` (printed with the thread, like the HTTP
API's ``done`` event carries it): an id alone continues nothing, except a thread this
machine's CLI started, whose token it kept (``kept_threads``).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import secrets
import socket
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from askai_graph.plugins import SITE_INDEX
from askai_graph.rules.question import QuestionError, checked_question
from askai_graph.settings import Settings
from askai_graph.state import STATE_KEYS
from askai_graph.stores.checkpoints import default_database_url
from askai_graph.stores.kept_threads import keep_token, kept_token
from askai_graph.stores.thread_tokens import (
    THREAD_TOKEN_FORMAT,
    checkpoint_thread,
    is_thread_token,
    new_thread_token,
)
from askai_graph.stores.threads import (
    DURABILITY,
    THREAD_ID_FORMAT,
    is_thread_id,
    new_thread_id,
    run_config,
    sync_thread_status,
)
from askai_graph.summary import RunSummary, final_state

CHAT_HELP = "Ask a question; follow-ups continue the conversation. /new starts over, Ctrl-D quits."


class UsageError(Exception):
    """Bad command-line input; reported as one line with exit status 2."""


# Errors reported as one line, (module, class): bad usage (exit 2), then unusable input or
# stores (exit 1). Looked up among the modules loaded, not imported: an error of a module
# no command imported cannot have been raised, and importing them all would make every
# command pay for the modules of the others (the run log, the embeddings, the evaluation).
USAGE_ERRORS = (
    ("askai_graph.evaluation.command", "EvalUsageError"),
    ("askai_graph.reporting.command", "ReportUsageError"),
)
INPUT_ERRORS = (
    ("askai_graph.retrieval.corpus", "CorpusError"),
    ("pydantic", "ValidationError"),
    ("askai_graph.stores.checkpoints", "DatabaseError"),
    ("askai_graph.stores.runlog.store", "RunLogError"),
    ("askai_graph.retrieval.embeddings", "EmbeddingsError"),
)


def loaded_errors(names: Sequence[tuple[str, str]], *known: type[BaseException]) -> tuple[type[BaseException], ...]:
    """Return ``known`` and the error classes ``names`` lists whose modules are loaded."""
    return known + tuple(getattr(sys.modules[module], name) for module, name in names if module in sys.modules)


def check_question(question: str, settings: Settings) -> str:
    """Return the stripped question, or raise ``UsageError`` if it is empty or too long."""
    try:
        return checked_question(question, settings)
    except QuestionError as exc:
        raise UsageError(f"the question {exc}") from None


def threads_url(settings: Settings) -> str:
    """Return where the CLI and ``askai serve`` keep threads: the setting, else the user's data folder."""
    return settings.database_url or default_database_url()


Thread = tuple[str, str]
"""A conversation as the CLI holds it: its id and its token."""


def result_json(summary: RunSummary, token: str | None = None) -> dict[str, Any]:
    """Return the JSON-ready report of a finished run (``askai ask --json``), with the thread's token."""
    return {
        "question": summary.question,
        "answer": summary.answer,
        "outcome": summary.outcome,
        "attempts": summary.attempts,
        "gates": summary.gates,
        "sources": [source.model_dump() for source in summary.sources],
        "validation_errors": [issue.model_dump() for issue in summary.validation_errors],
        "review_failures": [failure.model_dump() for failure in summary.review_failures],
        **({"thread_id": summary.thread_id} if summary.thread_id else {}),
        **({"thread_token": token} if summary.thread_id and token else {}),
    }


def render_text(summary: RunSummary, token: str | None = None) -> str:
    """Return the human-readable report of a finished run (with how to follow up, given the thread's token)."""
    from askai_graph.text.plain import printable  # page text is shown inert: a quote can hold anything

    gates = summary.gates
    failed = [name for name, status in gates.items() if status == "failed"]
    reasons = ", ".join(failure.code for failure in summary.review_failures)
    lines = [
        summary.answer,
        "",
        f"outcome: {summary.outcome}   attempts: {summary.attempts}"
        + (f"   thread: {summary.thread_id}" if summary.thread_id else ""),
        "gates: " + ", ".join(f"{name} {status}" for name, status in gates.items())
        + (f"   (failed: {', '.join(failed)}{'; ' + reasons if reasons else ''})" if failed else ""),
    ]
    if summary.sources:
        lines.append("sources:")
        for source in summary.sources:
            lines.append(f"  - {source.title} <{source.url}>")
            # The evidence, indented under its card: where on the page, and what it says.
            if source.section:
                lines.append(f"      {printable(source.section)} <{source.anchor_url}>")
            if source.quote:
                lines.append(f"      \u201c{printable(source.quote)}\u201d")
    else:
        lines.append(f"sources: none shown. {no_cards_reason(summary)}")
    if summary.thread_id and token:
        lines.append(f"follow up: askai ask --thread {summary.thread_id} --thread-token {token} QUESTION")
    return "\n".join(lines)


# What a reader saw when an answer came without source cards, and why: one plain line per
# outcome, in the words the widget's gate notice uses.
_NO_CARDS = {
    "accepted_early": "The reader saw this catalog answer without source cards: it cites enough pages "
    "to be accepted, but the Critic was not confident (low confidence), and cards need a confident review.",
    "degraded": "The reader saw this text with a notice that it could not be fully verified: "
    "no draft passed review, so no page is shown as its source.",
    "fallback": "The reader saw this fixed message: no draft passed the checks, so no page is shown as a source.",
}


def no_cards_reason(summary: RunSummary) -> str:
    """Return one plain line on what the reader saw without source cards, and why."""
    if summary.gates.get("retrieval") == "failed":
        return "The reader saw this message: no page of the site covers the question."
    otherwise = "The reader saw this answer without source cards: it did not pass every check."
    return _NO_CARDS.get(summary.outcome, otherwise)


def answer_turn(graph: Any, question: str, thread: Thread, *, verbose: bool) -> RunSummary:
    """Run one question on ``thread`` and return its summary (progress to stderr if ``verbose``)."""
    thread_id, token = thread
    stream = graph.stream(
        {"question": question},
        run_config(checkpoint_thread(thread_id, token)),
        stream_mode=["updates", "values"],
        durability=DURABILITY,
        output_keys=STATE_KEYS,  # the whole state: the summary applies the gates itself
    )
    final = final_state(stream, _print_progress if verbose else None)
    return RunSummary.from_state(final, thread_id=thread_id)


def _print_progress(updates: Mapping[str, Any], state: Mapping[str, Any]) -> None:
    for node in updates:
        print(f"· {node}", file=sys.stderr)


def new_thread() -> Thread:
    """Return a new conversation: a fresh id and token."""
    return new_thread_id(), new_thread_token()


def continued_thread(graph: Any, thread_id: str | None, token: str | None, settings: Settings) -> Thread:
    """Return thread ``thread_id`` owned by ``token`` if it can be continued (else ``UsageError``), or a new one."""
    if thread_id is None:
        if token is not None:
            raise UsageError("--thread-token goes with the --thread it was printed with")
        return new_thread()
    if not is_thread_id(thread_id):
        raise UsageError(f"--thread must be an id askai issued ({THREAD_ID_FORMAT})")
    if token is None:  # a thread this machine's CLI started: its token was kept
        token = kept_token(threads_url(settings), thread_id)
    if token is None or not is_thread_token(token):
        raise UsageError(f"--thread needs --thread-token, {THREAD_TOKEN_FORMAT} (printed with the thread)")
    # A wrong token names a thread that does not exist: the same words as an unknown id.
    status = sync_thread_status(graph, checkpoint_thread(thread_id, token), settings.thread_ttl_hours)
    if status != "active":
        raise UsageError(f"thread {thread_id} is {status}; ask without --thread to start a new conversation")
    return thread_id, token


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector inside the block (as it was after).

    ``askai ask`` imports LangGraph, builds the graph and loads the index, answers once
    and exits: what start-up allocates lives as long as the process, and the collector's
    full passes over that growing heap (two, about a tenth of its start) free nothing.
    Reference counting still frees everything else. ``askai serve``, which lives on,
    freezes its start-up heap instead (``askai_graph.server.housekeeping.collector``).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def reader_scope(args: argparse.Namespace, settings: Settings) -> Settings:
    """Return ``settings`` reading the version and language ``--version`` and ``--locale`` name.

    Raises:
        UsageError: one of them is malformed.
    """
    from pydantic import ValidationError

    scope = {name: value for name in ("version", "locale") if (value := getattr(args, name, None))}
    try:
        return settings.with_overrides(scope) if scope else settings
    except ValidationError as exc:
        name = str(exc.errors()[0]["loc"][0])
        raise UsageError(f"--{name} {scope[name]!r} is not a {'version label' if name == 'version' else 'language tag'}"
                         ) from None


def versioned_retriever(settings: Settings) -> Any:
    """Return the corpus's retriever when the reader named a version the index has; ``None`` when none is named.

    A version the index lacks is refused before anything runs, as ``/api/chat`` refuses it
    (422): answering it from another version's pages would be a wrong answer with a card.

    Raises:
        UsageError: the index keeps no versions, or not this one.
    """
    if not settings.version:
        return None
    from askai_graph.models.providers import default_retriever
    from askai_graph.retrieval.scope import NoVersions, ScopeError

    retriever = default_retriever(settings)
    try:
        retriever.variants.honoured(settings.version)
    except NoVersions as exc:
        raise UsageError(f"--version {exc}") from None
    except ScopeError as exc:
        raise UsageError(f"--{exc}") from None
    return retriever


def ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer one question (on a new thread, or ``--thread ID``) and print the result."""
    question = check_question(args.question, settings)
    settings = reader_scope(args, settings)
    with collector_paused():
        from askai_graph.graph import build_graph
        from askai_graph.stores.checkpoints import open_checkpointer

        retriever = versioned_retriever(settings)
        with open_checkpointer(threads_url(settings)) as checkpointer:
            graph = build_graph(settings=settings, checkpointer=checkpointer, retriever=retriever)
            thread = continued_thread(graph, args.thread, args.thread_token, settings)
            summary = answer_turn(graph, question, thread, verbose=args.verbose)
    keep_token(threads_url(settings), *thread)
    token = thread[1]
    print(json.dumps(result_json(summary, token), indent=2) if args.json else render_text(summary, token))
    return 0


def index(args: argparse.Namespace, settings: Settings) -> int:
    """Build (or update) the site index and print what changed and what was skipped."""
    from askai_graph.indexing import StrictIndexError, build_index
    from askai_graph.indexing.crawl import is_site_url
    from askai_graph.retrieval.embeddings import embeddings_for, model_key

    if is_site_url(args.source):
        return index_site(args, settings)
    embeddings = embeddings_for(settings, batch=True)
    try:
        summary = build_index(
            Path(args.source),
            Path(args.out),
            base_url=args.base_url or settings.site_url,
            trailing_slash=args.trailing_slash,
            strict=args.strict,
            progress=not args.quiet and sys.stderr.isatty(),
            passage_chars=settings.passage_chars,
            max_file_bytes=settings.max_page_bytes,
            max_front_matter_bytes=settings.max_front_matter_bytes,
            embeddings=embeddings,
            embeddings_model=model_key(settings),
            version_label=args.version_label,
            locale=args.locale,
            default_version=args.default_version,
        )
    except StrictIndexError as exc:
        print(render_index_summary(exc.summary, written=False, quiet=args.quiet))
        raise
    from askai_graph.text.plain import printable  # a URL given on the command line can hold anything

    for warning in summary.warnings:  # even with -q: the URLs of every page depend on it
        print(f"askai: warning: {printable(warning)}", file=sys.stderr)
    print(render_index_summary(summary, written=True, quiet=args.quiet))
    return 0


def index_site(args: argparse.Namespace, settings: Settings) -> int:
    """Crawl the live site at ``args.source`` into the index and print the report."""
    from askai_graph.indexing import StrictIndexError, crawl_index
    from askai_graph.indexing.crawl_options import crawl_options
    from askai_graph.retrieval.embeddings import embeddings_for, model_key

    if args.base_url or args.trailing_slash is not None:
        raise UsageError("--base-url and --trailing-slash are for folders; a crawled page's URL is where it is")
    if args.version_label or args.locale or args.default_version:
        raise UsageError("--version-label, --locale and --default-version are for docs folders, not a crawl")
    try:
        summary = crawl_index(
            args.source, Path(args.out), crawl_options(args, settings.max_page_bytes), strict=args.strict,
            progress=not args.quiet and sys.stderr.isatty(), passage_chars=settings.passage_chars,
            embeddings=embeddings_for(settings, batch=True), embeddings_model=model_key(settings),
        )
    except StrictIndexError as exc:
        print(render_index_summary(exc.summary, written=False, quiet=args.quiet))
        raise
    print(render_index_summary(summary, written=True, quiet=args.quiet))
    return 0


def render_index_summary(summary: Any, *, written: bool, quiet: bool = False) -> str:
    """Return the report of an ``askai index`` run: counts, changes, skips with reasons, time.

    ``quiet`` keeps the totals and the skips (what a script must still see) and drops the
    per-page lines, the notes and the hint.
    """
    drafts = [skip for skip in summary.skips if skip.draft]
    files = "pages" if summary.kind == "crawl" else "files"
    from askai_graph.text.plain import printable  # file names are shown escaped: a name can hold a newline

    lines = [
        f"indexed {summary.posts} posts ({summary.passages} passages) from a {summary.kind} source"
        + (f" into {summary.out} in {summary.seconds:.1f} s" if written else ""),
        f"  added {len(summary.added)}, changed {len(summary.changed)}, removed {len(summary.removed)}"
        f" since the last index; {summary.parsed} {files} parsed, the rest unchanged",
    ]
    lines += _variant_lines(summary)
    if summary.embeddings_model:
        lines.append(f"  embedded {summary.embedded} passages with {summary.embeddings_model}, the rest unchanged")
    for label, urls in (("added", summary.added), ("changed", summary.changed), ("removed", summary.removed)):
        if quiet:
            break
        lines += [f"  {label}: {printable(url)}" for url in urls[:20]]
        if len(urls) > 20:
            lines.append(f"  ... and {len(urls) - 20} more {label}")
    lines += [f"  {printable(line)}" for line in getattr(summary, "report", [])]  # a crawl's totals
    lines.append(f"  skipped {len(summary.errors)} {files}" + (f" and {len(drafts)} drafts" if drafts else ""))
    lines += [f"  skipped {printable(skip.where)}: {printable(skip.reason)}" for skip in summary.skips]
    notes = [] if quiet else getattr(summary, "notes", [])
    lines += [f"  note {printable(note.where)}: {printable(note.reason)}" for note in notes[:10]]
    if len(notes) > 10:
        lines.append(f"  ... and {len(notes) - 10} more notes (the index's askai-index.json lists them all)")
    if written and not quiet:
        embedded = f" ASKAI_EMBEDDINGS={summary.embeddings_model.split(':')[0]}" if summary.embeddings_model else ""
        lines.append(f'serve it: ASKAI_CORPUS={summary.out}{embedded} askai ask "QUESTION"')
    return "\n".join(lines)


def _variant_lines(summary: Any) -> list[str]:
    """Return the report's lines on a site's versions and languages: each with its pages, the defaults marked."""
    variants = getattr(summary, "variants", None)
    counts: dict[tuple[str, str], int] = getattr(summary, "pages_by_variant", {})
    if not variants or not (variants["versions"] or variants["locales"]):
        return []
    lines = []
    for kind, position, default in (("versions", 0, variants["default_version"]),
                                    ("locales", 1, variants["default_locale"])):
        if variants[kind]:
            listed = [
                f"{name} ({sum(n for key, n in counts.items() if key[position] == name)} pages"
                + (", default)" if name == default else ")")
                for name in variants[kind]
            ]
            lines.append(f"  {kind}: " + ", ".join(listed))
    return lines


def chat(args: argparse.Namespace, settings: Settings) -> int:
    """Hold a conversation in the terminal: follow-ups, ``/new`` to start over, Ctrl-D to quit.

    Every answer comes from the version and language ``--version`` and ``--locale`` name.
    """
    from askai_graph.graph import build_graph
    from askai_graph.stores.checkpoints import open_checkpointer

    settings = reader_scope(args, settings)
    retriever = versioned_retriever(settings)
    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    with open_checkpointer(threads_url(settings)) as checkpointer:
        graph = build_graph(settings=settings, checkpointer=checkpointer, retriever=retriever)
        thread = continued_thread(graph, args.thread, args.thread_token, settings)
        keep_token(threads_url(settings), *thread)
        print(f"{CHAT_HELP}\n{_named(thread)}", file=sys.stderr)
        while True:
            try:
                line = input("you> " if interactive else "")
            except EOFError:
                return 0
            except KeyboardInterrupt:
                print(file=sys.stderr)
                return 130
            text = line.strip()
            if not text:
                continue
            if text == "/new":
                thread = new_thread()
                keep_token(threads_url(settings), *thread)
                print(f"new conversation, {_named(thread)}", file=sys.stderr)
                continue
            if text.startswith("/"):
                print(f"askai: unknown command {text.split()[0]}; {CHAT_HELP}", file=sys.stderr)
                continue
            try:
                question = check_question(text, settings)
            except UsageError as exc:
                print(f"askai: error: {exc}", file=sys.stderr)
                continue
            print(render_text(answer_turn(graph, question, thread, verbose=args.verbose)) + "\n", flush=True)


def _named(thread: Thread) -> str:
    """How ``askai chat`` names its thread on stderr: the id and the token that continues it."""
    return f"thread: {thread[0]}  token: {thread[1]}"


def serve(args: argparse.Namespace, settings: Settings) -> int:
    """Run the HTTP API with uvicorn, every limit set (see ``askai_graph.server.serving``).

    The threads database is opened (or, with ``--graph-url``, the LangGraph Server
    asked for the graph) and the port bound before the corpus loads, so any of these
    problems is reported at once, and the address actually bound (``--port 0`` picks a
    free port) is printed first.
    """
    import uvicorn

    from askai_graph.server.serving import BindError, bind, uvicorn_config
    from askai_graph.stores.checkpoints import open_checkpointer

    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535 (got {port})")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1 (got {args.workers})")
    site = _served_site(args.site, args.graph_url or settings.graph_url) if args.site else None
    if site is not None:
        settings = settings.model_copy(update={"corpus": site / SITE_INDEX})
    remote = {key: value for key, value in (("graph_url", args.graph_url), ("graph_id", args.graph_id)) if value}
    if "graph_id" in remote and not (args.graph_url or settings.graph_url):
        raise UsageError("--graph-id needs --graph-url (or ASKAI_GRAPH_URL)")
    if remote:  # validated like the environment's values: a bad URL is a one-line error
        settings = Settings.model_validate(settings.model_dump() | remote)
    # The address bound is the app's too (/mcp checks Host headers only on the loopback interface).
    settings = settings.model_copy(update={"database_url": threads_url(settings), "host": host})
    if settings.reader_hash_key is None and not settings.cache_url:
        # One key for every worker (forked from here), so they hash a client alike. With a
        # shared Redis the processes sharing it agree on one there (server.guards.limits), which a
        # key drawn here, unknown to the other servers, would override.
        from pydantic import SecretStr

        settings = settings.model_copy(update={"reader_hash_key": SecretStr(secrets.token_urlsafe(32))})
    if settings.graph_url:
        from askai_graph.server.scaleout.remote import RemoteUnavailable, check_reachable

        try:
            check_reachable(settings.graph_url, settings.graph_id)
        except RemoteUnavailable as exc:
            print(f"askai: error: {exc}", file=sys.stderr)
            return 1
    else:
        with open_checkpointer(settings.database_url or ""):
            pass  # fail now, in one line, if the threads database cannot be opened (and create its tables)
    try:
        sock = bind(host, port)
    except BindError as exc:
        print(f"askai: error: {exc}", file=sys.stderr)
        return 1
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    loading = f"the graph runs on {settings.graph_url}" if settings.graph_url else "loading the corpus first"
    if site is not None:
        loading = f"the site {site} and its index; {loading}"
    print(f"askai: serving on http://{shown}:{bound} ({loading})", flush=True)
    from askai_graph.server import create_app

    if args.workers > 1:
        from askai_graph.server.scaleout.workers import supervise

        for warning in _unshared_state(settings):
            print(f"askai: warning: {warning}", file=sys.stderr, flush=True)

        def run_worker(sock: socket.socket) -> None:
            uvicorn.Server(uvicorn_config(create_app(settings=settings, site=site), settings)).run(sockets=[sock])

        try:
            return supervise(sock, args.workers, run_worker)
        finally:
            sock.close()
    try:
        app = create_app(settings=settings, site=site)
    except BaseException:
        sock.close()
        raise
    uvicorn.Server(uvicorn_config(app, settings)).run(sockets=[sock])
    return 0


def forget(args: argparse.Namespace, settings: Settings) -> int:
    """Erase one conversation's or one answer's data from the run log and the threads, printing what went."""
    from askai_graph.stores.erasure import forget_run, forget_thread

    url = threads_url(settings)
    if args.run_id is not None:
        if not is_thread_id(args.run_id):
            raise UsageError(f"--run must be a run id: {THREAD_ID_FORMAT}")
        lines = forget_run(url, args.run_id)
    else:
        if not is_thread_id(args.thread_id):
            raise UsageError(f"--thread must be a thread id: {THREAD_ID_FORMAT}")
        if args.thread_token is not None and not is_thread_token(args.thread_token):
            raise UsageError(f"--thread-token must be {THREAD_TOKEN_FORMAT}")
        lines = forget_thread(url, args.thread_id, args.thread_token or kept_token(url, args.thread_id))
    print("\n".join(lines))
    return 0


def _served_site(folder: str, graph_url: str | None) -> Path:
    """Return the built site ``askai serve --site`` serves, or raise ``UsageError`` saying what is missing."""
    from askai_graph.indexing.store import is_built_index

    site = Path(folder)
    if graph_url:
        raise UsageError("--site serves the site's own index; it cannot be combined with --graph-url")
    if not site.is_dir():
        raise UsageError(f"--site {folder}: not a folder (the built site: mkdocs' site/, Sphinx's _build/html/)")
    if not is_built_index(site / SITE_INDEX):
        raise UsageError(
            f"--site {folder}: no index in {site / SITE_INDEX}; build the site with the askai plugin "
            f"(mkdocs.yml: plugins: [search, askai]) or run: askai index {folder} --out {site / SITE_INDEX}"
        )
    return site


def _unshared_state(settings: Settings) -> list[str]:
    """Say what several workers will not share with these settings."""
    warnings = []
    if not settings.graph_url and not (settings.database_url or "").startswith(("postgresql://", "postgres://")):
        warnings.append("threads are in SQLite: a thread answering on one worker is not refused (409) on another; "
                        "set ASKAI_DATABASE_URL=postgresql://...")
    if not settings.cache_url:
        warnings.append("each worker keeps its own answer cache, rate limit and stream cap (and /admin sign-ins "
                        "and sign-outs); set ASKAI_CACHE_URL=redis://...")
    return warnings


def mcp(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the MCP tools (ask_docs, search_docs, list_pages) on stdin/stdout; threads kept as ``askai serve`` does."""
    from askai_graph.mcp.stdio import serve_stdio

    return serve_stdio(settings.model_copy(update={"database_url": threads_url(settings)}))


def local_model_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the local model (Gemma 3 270M on llama.cpp) on 127.0.0.1 until interrupted."""
    from askai_graph.models.local import LocalModelError, serve

    try:
        return serve(port=args.port)
    except LocalModelError as exc:
        print(f"askai: error: {exc}", file=sys.stderr)
        return 1


class Subcommand(argparse.ArgumentParser):
    """A subcommand's parser; ``arguments`` names a module whose ``add_arguments`` adds more of its flags.

    That module is imported only when this subcommand is the one run (or its ``--help``
    shown): ``askai eval``'s and ``askai report``'s flags, and the crawl flags of ``askai
    index``, live beside the code they drive, and importing them all to build every
    command's parser would make ``askai ask`` pay for the others.
    """

    def __init__(self, *args: Any, arguments: str | None = None, **kwargs: Any) -> None:
        """Make the parser; ``arguments`` is a module name (see the class docstring)."""
        super().__init__(*args, **kwargs)
        self._arguments = arguments

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Add the module's flags (once), then parse."""
        if self._arguments is not None:
            importlib.import_module(self._arguments).add_arguments(self)
            self._arguments = None
        return super().parse_known_args(args, namespace)


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    root = argparse.ArgumentParser(prog="askai", description="Ask a content site's articles, with checked citations.")
    commands = root.add_subparsers(dest="command", required=True, parser_class=Subcommand)
    ask_cmd = commands.add_parser("ask", help="answer one question on the configured corpus")
    ask_cmd.add_argument("question", help="the question, in quotes")
    ask_cmd.add_argument("--json", action="store_true", help="print only a JSON object on stdout")
    ask_cmd.add_argument("--thread", metavar="ID", help="continue this conversation (an id askai printed)")
    ask_cmd.add_argument("--thread-token", metavar="TOKEN", help="the secret printed with that thread")
    ask_cmd.add_argument("-v", "--verbose", action="store_true", help="print each stage to stderr")
    ask_cmd.add_argument("--version", metavar="LABEL", help="answer from this docs version (default: the latest)")
    ask_cmd.add_argument("--locale", metavar="LANG", help="answer from this language's pages (default: the site's)")
    ask_cmd.set_defaults(run=ask)
    index_cmd = commands.add_parser(
        "index",
        help="index a docs tree, built HTML site, JSONL file or live site; then ASKAI_CORPUS=DIR serves it",
        arguments="askai_graph.indexing.crawl_options",
    )
    index_cmd.add_argument(
        "source", help="a Markdown/MDX docs folder, a built HTML site folder, a .jsonl file, or a site's URL to crawl"
    )
    index_cmd.add_argument("--base-url", help="where SOURCE is published, for URLs derived from file paths")
    index_cmd.add_argument(
        "--trailing-slash",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether page URLs end in / (default: as the site's generator config says)",
    )
    index_cmd.add_argument(
        "--version-label", metavar="LABEL",
        help="the version of the pages in SOURCE (default: as the site says; a Docusaurus docs/ folder is 'next')",
    )
    index_cmd.add_argument("--locale", metavar="LANG", help="the language of the pages in SOURCE (default: the site's)")
    index_cmd.add_argument(
        "--default-version", metavar="LABEL",
        help="the version a reader who names none gets (default: the site's latest release)",
    )
    index_cmd.add_argument("--out", default="askai-index", help="index folder to write or update (default askai-index)")
    index_cmd.add_argument("--strict", action="store_true", help="fail (and keep the old index) if any file is skipped")
    index_cmd.add_argument(
        "-q", "--quiet", action="store_true", help="only the totals and skips: no progress bar, no per-page lines"
    )
    index_cmd.set_defaults(run=index)
    chat_cmd = commands.add_parser("chat", help="a conversation in the terminal (/new starts over, Ctrl-D quits)")
    chat_cmd.add_argument("--thread", metavar="ID", help="continue this conversation")
    chat_cmd.add_argument("--thread-token", metavar="TOKEN", help="the secret printed with that thread")
    chat_cmd.add_argument("-v", "--verbose", action="store_true", help="print each stage to stderr")
    chat_cmd.add_argument("--version", metavar="LABEL", help="answer from this docs version (default: the latest)")
    chat_cmd.add_argument("--locale", metavar="LANG", help="answer from this language's pages (default: the site's)")
    chat_cmd.set_defaults(run=chat)
    serve_cmd = commands.add_parser("serve", help="serve POST /api/chat (SSE)")
    serve_cmd.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve_cmd.add_argument("--port", type=int, help="bind port (default 4321; 0 picks a free port and prints it)")
    serve_cmd.add_argument(
        "--workers", type=int, default=1, help="server processes on the one port (default 1; share state via "
        "ASKAI_DATABASE_URL=postgresql://... and ASKAI_CACHE_URL=redis://...)"
    )
    serve_cmd.add_argument(
        "--graph-url", metavar="URL", help="run the graph on this LangGraph Server (langgraph.json deployed there; "
        "default ASKAI_GRAPH_URL, unset = in this process)"
    )
    serve_cmd.add_argument("--graph-id", metavar="ID", help="graph to run on --graph-url (default ask_ai)")
    serve_cmd.add_argument(
        "--site", metavar="DIR", help="also serve this built site at / (its index in DIR/askai/index, which the "
        "askai plugin of MkDocs, Sphinx or Docusaurus writes)",
    )
    serve_cmd.set_defaults(run=serve)
    mcp_cmd = commands.add_parser("mcp", help="serve the MCP tools on stdin/stdout (askai serve has them at /mcp)")
    mcp_cmd.set_defaults(run=mcp)
    commands.add_parser("eval", help="run a labelled question set and report how well it answers",
                        arguments="askai_graph.evaluation.command")
    commands.add_parser("report", help="outcomes, coverage gaps and feedback from the run log",
                        arguments="askai_graph.reporting.command")
    forget_cmd = commands.add_parser("forget", help="erase one conversation's or one answer's data, and print it")
    target = forget_cmd.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--thread", dest="thread_id", metavar="ID", help="every run of this conversation, and the conversation itself"
    )
    # ``dest`` is not ``run``: that is the subcommand's function.
    target.add_argument("--run", dest="run_id", metavar="ID", help="this one answer's run and its feedback")
    forget_cmd.add_argument("--thread-token", metavar="TOKEN", help="the thread's secret (to find its conversation)")
    forget_cmd.set_defaults(run=forget)
    local_cmd = commands.add_parser("local-model", help="a real local model to try and test with ([local] extra)")
    local_commands = local_cmd.add_subparsers(dest="local_command", required=True)
    local_serve = local_commands.add_parser("serve", help="serve Gemma 3 270M with llama.cpp on 127.0.0.1")
    local_serve.add_argument("--port", type=int, default=8000, help="bind port (default 8000)")
    local_serve.set_defaults(run=local_model_serve)
    return root


def joined_token_flags(argv: Sequence[str]) -> list[str]:
    """Write ``--thread-token TOKEN`` as ``--thread-token=TOKEN``.

    A token is URL-safe base64, so one in 64 begins with ``-``, and argparse reads a
    separate word that begins with ``-`` as the next flag ("expected one argument"): the
    follow-up line this command prints would then fail when pasted back. Joined, the value
    is the flag's whatever it begins with.
    """
    words = list(argv)
    joined: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--thread-token" and words and words[0].startswith("-") and is_thread_token(words[0]):
            word = f"{word}={words.pop(0)}"
        joined.append(word)
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; bad input exits non-zero with one line on stderr."""
    args = parser().parse_args(joined_token_flags(sys.argv[1:] if argv is None else argv))
    try:
        settings = Settings()
        return int(args.run(args, settings))
    except loaded_errors(USAGE_ERRORS, UsageError) as exc:
        print(f"askai: error: {exc}", file=sys.stderr)
        return 2
    except loaded_errors(INPUT_ERRORS) as exc:
        print(f"askai: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # Ctrl-C is the user's own choice: one line, not the traceback of wherever it landed.
        print("askai: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `askai ask ... | head`: the reader left; exit quietly like other Unix tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
