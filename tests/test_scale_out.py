"""Several ``askai serve`` processes on one PostgreSQL and one Redis behave as one server.

Real processes: ``askai serve`` itself, a database of the test's own on the local
PostgreSQL server (dropped afterwards) and a ``redis-server`` of the test's own on a
free port.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from askai_graph import Settings
from tests.fakes import GatedChatServer
from tests.live import AskaiServe, LiveServer
from tests.redis_server import RedisServer
from tests.test_server_threads import BM25_POST, FOLLOW_UP, chat, postgres_database

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

__all__ = ["postgres_database"]  # the fixture, shared with the threads tests


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


Serve = AskaiServe


def shared_env(database_url: str, redis_url: str, index_cache: Path) -> dict[str, str]:
    return {
        "ASKAI_DATABASE_URL": database_url,
        "ASKAI_CACHE_URL": redis_url,
        "ASKAI_INDEX_CACHE_DIR": str(index_cache),
        "ASKAI_RATE_LIMIT": "",
    }


def test_an_answer_cached_by_one_process_is_a_hit_on_another_and_its_thread_continues_there(
    postgres_database: str, redis_url: str, tmp_path: Path, index_cache: Path
) -> None:
    env = shared_env(postgres_database, redis_url, index_cache)
    with Serve(env, tmp_path / "a.log") as first, Serve(env, tmp_path / "b.log") as second:
        asked = chat(first, "What is BM25?")
        again = chat(second, "What is BM25?")
        follow_up = chat(second, FOLLOW_UP, asked.done)
    assert asked.done["cached"] is False
    assert again.done["cached"] is True and again.answer == asked.answer
    assert follow_up.status == 200, follow_up.detail
    assert follow_up.done["thread_id"] == asked.done["thread_id"] and follow_up.sources[0] == BM25_POST


def worker_pids(parent: int) -> set[int]:
    """The live child processes of ``parent`` (from /proc)."""
    children = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent and fields[0] != "Z":
                children.add(int(entry.name))
    return children


def test_serve_workers_runs_that_many_processes_on_one_port_and_stops_them_all(
    postgres_database: str, redis_url: str, tmp_path: Path, index_cache: Path
) -> None:
    env = shared_env(postgres_database, redis_url, index_cache)
    server = Serve(env, tmp_path / "serve.log", "--workers", "2")
    with server as base:
        workers = worker_pids(server.process.pid)
        first = chat(base, "What is BM25?")
        answers = [chat(base, "What is BM25?").done["cached"] for _ in range(4)]
    log = (tmp_path / "serve.log").read_text()
    # Both workers create the schema of the empty database at once: neither may crash doing it.
    assert len(workers) == 2 and "Traceback" not in log, log[-3000:]
    assert first.done["cached"] is False and answers == [True] * 4
    assert server.process.returncode == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def test_serve_refuses_fewer_than_one_worker(capsys: pytest.CaptureFixture[str]) -> None:
    from askai_graph.cli import main

    assert main(["serve", "--workers", "0"]) == 2
    assert capsys.readouterr().err == "askai: error: --workers must be at least 1 (got 0)\n"


def test_the_config_digest_is_the_same_in_every_process() -> None:
    # A set-valued setting must not make the digest depend on the process's hash seed.
    script = "from askai_graph import Settings; from askai_graph.server.answers.cache import config_digest; "
    script += "print(config_digest(Settings()))"
    digests = {
        subprocess.run(
            [sys.executable, "-c", script], env=os.environ | {"PYTHONHASHSEED": seed}, capture_output=True, text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1


def set_reachable(database_url: str, reachable: bool) -> None:
    """Refuse (or allow again) every connection to the test's database, dropping the open ones."""
    import psycopg

    server, name = database_url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(reachable).lower()}')
        if not reachable:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))


def test_losing_postgresql_answers_503_for_threads_until_it_returns(
    postgres_database: str, settings: Settings
) -> None:
    import uvicorn

    from askai_graph.server import create_app

    app = create_app(settings=settings.model_copy(update={"database_url": postgres_database}))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none", timeout_graceful_shutdown=2)
    with LiveServer(app, config) as base:
        thread = chat(base, "What is BM25?").done
        thread_id = thread["thread_id"]
        set_reachable(postgres_database, False)
        try:
            with httpx.Client(timeout=60) as client:
                refused = [
                    client.post(f"{base}/api/chat", json=body)
                    for body in (
                        {"message": FOLLOW_UP, "thread_id": thread_id, "thread_token": thread["thread_token"]},
                        {"message": "What is BM25?"},
                    )
                ]
        finally:
            set_reachable(postgres_database, True)
        # The pool drops its dead connections as they fail and reconnects in the background.
        for _ in range(300):
            follow_up = chat(base, FOLLOW_UP, thread)
            if follow_up.status != 503:
                break
            time.sleep(0.1)
    assert [r.status_code for r in refused] == [503, 503]
    assert refused[0].json() == {"detail": "the threads database is unreachable; retry shortly"}
    assert refused[0].headers["retry-after"] == "2"
    assert follow_up.status == 200 and follow_up.done["thread_id"] == thread_id


def test_concurrent_first_questions_on_a_new_postgresql_database_all_succeed(
    postgres_database: str, settings: Settings
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    import uvicorn

    from askai_graph.server import create_app

    app = create_app(settings=settings.model_copy(update={"database_url": postgres_database, "cache_enabled": False}))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none", timeout_graceful_shutdown=2)
    with LiveServer(app, config) as base, ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda n: chat(base, f"What is BM25? ({n})"), range(8)))
    assert [reply.status for reply in replies] == [200] * 8


def test_two_processes_share_one_rate_limit(
    postgres_database: str, redis_url: str, tmp_path: Path, index_cache: Path
) -> None:
    env = shared_env(postgres_database, redis_url, index_cache) | {"ASKAI_RATE_LIMIT": "2/minute"}
    with Serve(env, tmp_path / "a.log") as first, Serve(env, tmp_path / "b.log") as second:
        statuses = [chat(base, "What is BM25?").status for base in (first, second, first, second)]
    assert statuses == [200, 200, 429, 429]


def test_two_processes_share_one_feedback_rate_limit(redis_url: str, tmp_path: Path, index_cache: Path) -> None:
    # Each process its own SQLite file: only Redis is shared. Unknown run_ids are a 404, counted all the same.
    env = {"ASKAI_CACHE_URL": redis_url, "ASKAI_INDEX_CACHE_DIR": str(index_cache), "ASKAI_FEEDBACK_PER_MINUTE": "2"}
    first_env = env | {"ASKAI_DATABASE_URL": f"sqlite:///{tmp_path / 'a.sqlite'}"}
    second_env = env | {"ASKAI_DATABASE_URL": f"sqlite:///{tmp_path / 'b.sqlite'}"}
    rating = {"run_id": "6f1c2a54-8a8e-4b55-9a7e-0c7d7e0a9b10", "rating": "up"}
    with Serve(first_env, tmp_path / "a.log") as first, Serve(second_env, tmp_path / "b.log") as second:
        statuses = [
            httpx.post(f"{base}/api/feedback", json=rating, timeout=10).status_code
            for base in (first, second, first, second)
        ]
    assert statuses == [404, 404, 429, 429]


def test_with_redis_stopped_both_processes_keep_answering_and_hits_resume_when_it_returns(
    postgres_database: str, redis_server: RedisServer, tmp_path: Path, index_cache: Path
) -> None:
    env = shared_env(postgres_database, redis_server.url, index_cache)
    with Serve(env, tmp_path / "a.log") as first, Serve(env, tmp_path / "b.log") as second:
        chat(first, "What is BM25?")
        redis_server.stop()
        down = [chat(base, "What is BM25?") for base in (first, second, first, second)]
        redis_server.start()  # empty: the answer must be stored again
        time.sleep(1.2)  # past the stores' retry window
        stored = chat(first, "What is BM25?")
        hit = chat(second, "What is BM25?")
    assert [reply.status for reply in down] == [200] * 4
    assert [reply.done["cached"] for reply in down] == [False] * 4
    assert stored.done["cached"] is False and hit.done["cached"] is True
    logged = (tmp_path / "a.log").read_text()
    assert logged.count("answer cache: Redis unreachable") == 1 and "answer cache: Redis reachable again" in logged


def test_an_answer_given_by_one_process_is_rated_through_another_in_one_run_log(
    postgres_database: str, redis_url: str, tmp_path: Path, index_cache: Path
) -> None:
    from askai_graph.stores.runlog import open_run_log

    env = shared_env(postgres_database, redis_url, index_cache)
    with Serve(env, tmp_path / "a.log") as first, Serve(env, tmp_path / "b.log") as second:
        run_ids = [chat(first, "What is BM25?").done["run_id"], chat(second, "What is a thread?").done["run_id"]]
        rated = httpx.post(f"{second}/api/feedback", json={"run_id": run_ids[0], "rating": "up"}, timeout=10)
    log = open_run_log(postgres_database)
    try:
        runs = {run.run_id: run.rating for run in log.runs()}
    finally:
        log.close()
    assert rated.status_code == 200, rated.text
    assert runs == {run_ids[0]: "up", run_ids[1]: None}


def test_the_stream_cap_holds_across_processes_and_a_dead_workers_slot_frees_itself(
    redis_url: str, tmp_path: Path, index_cache: Path
) -> None:
    model = GatedChatServer()
    env = {
        "ASKAI_CACHE_URL": redis_url,
        "ASKAI_INDEX_CACHE_DIR": str(index_cache),
        "ASKAI_RATE_LIMIT": "",
        "ASKAI_CACHE_ENABLED": "false",
        "ASKAI_MAX_STREAMS": "1",
        "ASKAI_STREAM_LEASE_SECONDS": "3",
        # Bounds a wrongly admitted answer (it would wait at the gated model) so a broken cap fails soon.
        "ASKAI_REQUEST_TIMEOUT_SECONDS": "30",
    }
    with LiveServer(model.app()) as model_url:
        env |= {"ASKAI_MODEL": "gated", "ASKAI_BASE_URL": f"{model_url}/v1", "ASKAI_API_KEY": "x"}
        doomed = Serve(env, tmp_path / "a.log")
        with doomed as first, Serve(env, tmp_path / "b.log") as second:
            # The first process's answer waits at the model, holding the one slot.
            threading.Thread(target=ask_until_cut_off, args=(first,), daemon=True).start()
            assert model.asked.wait(30)
            refused = chat(second, "What is BM25?")
            doomed.process.send_signal(signal.SIGKILL)  # dies holding it: nothing gives it back
            doomed.process.wait()
            still_held = chat(second, "What is BM25?").status
            model.gate.set()
            # Within the 3 s lease (renewed each second until the kill) the slot frees itself.
            for _ in range(100):
                admitted = chat(second, "What is BM25?")
                if admitted.status != 503:
                    break
                time.sleep(0.1)
    assert refused.status == 503 and "retry" in (refused.detail or "")
    assert still_held == 503
    assert admitted.status == 200 and admitted.events[-1][0] == "done"


def ask_until_cut_off(base: str, thread: dict[str, Any] | None = None) -> None:
    """Ask a question (on ``thread``, an earlier ``done``) whose answer the test cuts off by killing the server."""
    try:
        chat(base, "What is BM25?", thread)
    except (httpx.HTTPError, ValueError):  # cut off: refused, reset, or an event cut in half
        pass


def test_a_thread_whose_server_was_killed_mid_answer_is_free_again_within_one_renewal(
    postgres_database: str, tmp_path: Path, index_cache: Path
) -> None:
    model = GatedChatServer()
    env = {
        "ASKAI_DATABASE_URL": postgres_database,
        "ASKAI_INDEX_CACHE_DIR": str(index_cache),
        "ASKAI_RATE_LIMIT": "",
        "ASKAI_CACHE_ENABLED": "false",
        "ASKAI_THREAD_LEASE_RENEW_SECONDS": "3",
        "ASKAI_REQUEST_TIMEOUT_SECONDS": "30",
    }
    with LiveServer(model.app()) as model_url:
        model.gate.set()  # the first answer goes through, to make the thread
        env |= {"ASKAI_MODEL": "gated", "ASKAI_BASE_URL": f"{model_url}/v1", "ASKAI_API_KEY": "x"}
        doomed = Serve(env, tmp_path / "a.log")
        with doomed as first, Serve(env, tmp_path / "b.log") as second:
            thread = chat(first, "What is BM25?").done
            thread_id = thread["thread_id"]
            model.gate.clear()
            model.asked.clear()
            threading.Thread(target=ask_until_cut_off, args=(first, thread), daemon=True).start()
            assert model.asked.wait(30)  # the follow-up waits at the model, holding the thread
            owned = {"thread_id": thread_id, "thread_token": thread["thread_token"]}
            held = httpx.post(f"{second}/api/chat", json={"message": "More?", **owned}, timeout=10)
            doomed.process.send_signal(signal.SIGKILL)  # dies holding it: nothing releases it
            doomed.process.wait()
            model.gate.set()
            started = time.monotonic()
            while (answer := chat(second, "And its parameters?", thread)).status == 409:
                assert time.monotonic() - started < 10, "the dead server's lease never expired"
                time.sleep(0.2)
    assert held.status_code == 409 and int(held.headers["Retry-After"]) >= 1
    assert answer.status == 200 and answer.done["thread_id"] == thread_id
