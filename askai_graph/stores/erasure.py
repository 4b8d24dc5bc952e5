"""``askai forget``: erase one reader's data, a conversation or a single answer, and say what went.

What a conversation leaves behind: its runs in the run log (questions masked, with
their feedback) and its thread in the threads database (the turns, under the hash of
the id and its token). ``forget_thread`` deletes both: the runs by id; the thread when
its token is known (given, or kept by this machine's CLI), since without it the thread
cannot even be found (it then expires after ``thread_ttl_hours`` anyway).
``forget_run`` deletes one answer's run and its feedback. Cached answers are not a
reader's: they are stored masked, for the question, not for whoever asked it.

``forget_thread`` also drops the thread's token from the CLI's token file, and both end
by emptying a SQLite database's write-ahead log into it (``sqlite_erasure``), so the
erased text leaves the files, not only the tables.
"""

from __future__ import annotations

from pathlib import Path

from askai_graph.stores.checkpoints import open_checkpointer, parse_database_url
from askai_graph.stores.kept_threads import forget_token, kept_token, tokens_file
from askai_graph.stores.runlog import open_run_log
from askai_graph.stores.sqlite_erasure import truncate_wal
from askai_graph.stores.thread_tokens import checkpoint_thread
from askai_graph.stores.threads import run_config


def _runs(count: int) -> str:
    return f"{count} run{'' if count == 1 else 's'}"


def forget_run(database_url: str, run_id: str) -> list[str]:
    """Delete run ``run_id`` and its feedback from the run log at ``database_url``; return what was removed."""
    run_log = open_run_log(database_url)
    try:
        removed = run_log.forget_run(run_id)
    finally:
        run_log.close()
    lines = [f"run log: removed {_runs(removed)} (with feedback and the search it was asked from) of run {run_id}"]
    return lines + _flushed(database_url)


def forget_thread(database_url: str, thread_id: str, token: str | None) -> list[str]:
    """Delete conversation ``thread_id``'s runs and, given its ``token``, its thread; return what was removed."""
    run_log = open_run_log(database_url)
    try:
        removed = run_log.forget_thread(thread_id)
    finally:
        run_log.close()
    lines = [f"run log: removed {_runs(removed)} (with feedback and the searches asked from) of thread {thread_id}"]
    if token is None:
        lines.append("threads: not searched (no --thread-token and none kept here); the thread expires by itself")
    else:
        key = checkpoint_thread(thread_id, token)
        with open_checkpointer(database_url) as saver:
            found = saver.get_tuple(run_config(key)) is not None
            if found:
                saver.delete_thread(key)
        lines.append(f"threads: {'removed the conversation' if found else 'no conversation with that id and token'}")
    if kept_token(database_url, thread_id) is not None:
        removed_token = forget_token(database_url, thread_id)
        where = tokens_file(database_url)
        lines.append(
            "token file: removed the thread's token" if removed_token
            else f"token file: could not rewrite {where}; remove the thread's entry by hand"
        )
    return lines + _flushed(database_url)


def _flushed(database_url: str) -> list[str]:
    """Empty a SQLite database's write-ahead log into it; return a line when a reader kept it from finishing."""
    backend, target = parse_database_url(database_url)
    path = Path(target).expanduser()
    if backend != "sqlite" or not path.is_file() or truncate_wal(path):
        return []
    return [f"{path}: another process still reads it; the erased rows leave its write-ahead log once it is done"]
