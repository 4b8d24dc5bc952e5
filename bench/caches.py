"""The process-wide caches under a soak's traffic: what each holds, how often it hits, what it costs.

Run: ``.venv/bin/python bench/caches.py [--answers 2000] [--warmup 400] [--no-memory]``

The HTTP app of ``askai serve`` (bundled sample site, offline Writer and Critic, threads
in a SQLite file of its own) answers, one request at a time through Starlette's test
client, the mix ``bench/soak.py`` sends: a new question no one asked (``(reader 3fa9c1,
case 17)`` appended), a follow-up on the latest thread, a question every reader asks.
After ``--warmup`` answers the counters are read again, so the hit rates are those of
a server already warm.

It prints, for every ``functools.lru_cache`` in the package: its bound, how full it is,
its hit rate after the warm-up, and (unless ``--no-memory``) the memory it holds,
measured with tracemalloc as what ``cache_clear()`` frees (caches cleared in the order
printed; an object two caches share is counted in the first). Then the lines whose
allocations grew most after the warm-up: a growth that is no cache shows there.

With ``--curves``, every cache's keys are also recorded (``functools.lru_cache`` is
wrapped before the package is imported) and the hit rate each cache would have after
the warm-up is replayed for bounds from 64 to 65,536: what a smaller bound would cost.

One request at a time: with N concurrent clients, what one request looks up again (its
question's tokens, its draft's sentences) is N times further back in an LRU.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import tracemalloc
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = [
    "What is semantic caching?",
    "How does BM25 rank documents?",
    "What is reciprocal rank fusion?",
    "How do I evaluate retrieval with MRR and nDCG?",
    "How should I chunk documents for retrieval?",
    "What is prompt injection?",
    "How do cross-encoder rerankers work?",
    "How do I handle client disconnects?",
]
FOLLOW_UPS = ["How do I tune its parameters?", "Can you give an example?", "Why does it matter?"]
MIX = {"question": 35, "follow_up": 25, "cache_hit": 20}
BOUNDS = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536]
KEYS: dict[str, list[int]] = {}
"""With ``--curves``: each cache's lookups, in order, as key hashes."""


def record_keys() -> None:
    """Wrap ``functools.lru_cache`` so that every cache made afterwards records its keys in ``KEYS``."""
    import functools

    real = functools.lru_cache

    def recording(maxsize: Any = 128, typed: bool = False) -> Any:
        def decorate(function: Any) -> Any:
            cached = real(maxsize=maxsize, typed=typed)(function)
            if not str(getattr(function, "__module__", "")).startswith("askai_graph"):
                return cached
            keys = KEYS.setdefault(f"{function.__module__.removeprefix('askai_graph.')}.{function.__name__}", [])

            @functools.wraps(function)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                keys.append(hash((args, tuple(sorted(kwargs.items())))))
                return cached(*args, **kwargs)

            wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
            wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
            return wrapper

        if callable(maxsize):  # bare @lru_cache
            function, maxsize = maxsize, 128
            return decorate(function)
        return decorate

    functools.lru_cache = recording  # type: ignore[assignment]


def replay(keys: list[int], bound: int, measured_from: int) -> float:
    """Return the hit rate of an LRU of ``bound`` entries over ``keys[measured_from:]`` (filled by all before)."""
    lru: OrderedDict[int, None] = OrderedDict()
    hits = 0
    for i, key in enumerate(keys):
        if key in lru:
            lru.move_to_end(key)
            hits += i >= measured_from
        else:
            lru[key] = None
            if len(lru) > bound:
                lru.popitem(last=False)
    measured = len(keys) - measured_from
    return hits / measured if measured else float("nan")


@dataclass
class Counts:
    """One cache's counters at one moment."""

    hits: int
    misses: int
    size: int
    bound: int | None


def package_caches() -> dict[str, Any]:
    """Return every ``lru_cache``-wrapped function of the loaded ``askai_graph`` modules, by qualified name."""
    found: dict[int, tuple[str, Any]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("askai_graph") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if callable(getattr(value, "cache_info", None)) and getattr(value, "__module__", "") == name:
                found.setdefault(id(value), (f"{name.removeprefix('askai_graph.')}.{attr}", value))
    return dict(sorted(found.values()))


def counts(caches: dict[str, Any]) -> dict[str, Counts]:
    """Read every cache's counters."""
    out = {}
    for name, cache in caches.items():
        info = cache.cache_info()
        out[name] = Counts(info.hits, info.misses, info.currsize, info.maxsize)
    return out


def ask(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    """POST one message and return its ``done`` event's data (empty when it ended otherwise)."""
    response = client.post("/api/chat", json=body)
    event, done = "", {}
    for line in response.text.splitlines():
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and event == "done":
            done = json.loads(line[5:])
    return done


def traffic(client: Any, answers: int, thread: dict[str, Any]) -> None:
    """Send ``answers`` messages of the soak's mix, following up on the latest thread."""
    kinds, weights = list(MIX), list(MIX.values())
    for n in range(answers):
        kind = random.choices(kinds, weights)[0]
        if kind == "follow_up" and thread:
            body = {"message": random.choice(FOLLOW_UPS), **thread}
        elif kind == "cache_hit":
            body = {"message": random.choice(QUESTIONS)}
        else:
            body = {"message": f"{random.choice(QUESTIONS)} (reader {uuid.uuid4().hex[:6]}, case {n})"}
        done = ask(client, body)
        if done.get("thread_id"):
            thread.clear()
            thread.update(thread_id=done["thread_id"], thread_token=done.get("thread_token"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=2000, help="answers measured after the warm-up")
    parser.add_argument("--warmup", type=int, default=400, help="answers before the counters are read")
    parser.add_argument("--no-memory", action="store_true", help="skip tracemalloc (faster; no MB column)")
    parser.add_argument("--curves", action="store_true", help="replay each cache's keys at other bounds")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    random.seed(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="askai-caches-"))
    os.environ.update(
        {
            "ASKAI_RATE_LIMIT": "",
            "ASKAI_DATABASE_URL": f"sqlite:///{folder / 'threads.sqlite'}",
            "ASKAI_INDEX_CACHE_DIR": str(folder / "index-cache"),
            "XDG_DATA_HOME": str(folder / "data"),
        }
    )
    if not args.no_memory:
        tracemalloc.start(1)
    if args.curves:
        record_keys()

    from starlette.testclient import TestClient

    from askai_graph.server.app import create_app

    thread: dict[str, Any] = {}
    with TestClient(create_app()) as client:
        traffic(client, args.warmup, thread)
        caches = package_caches()
        warm = counts(caches)
        warm_keys = {name: len(keys) for name, keys in KEYS.items()}
        snapshot = tracemalloc.take_snapshot() if not args.no_memory else None
        traffic(client, args.answers, thread)
        end = counts(caches)
        growth = tracemalloc.take_snapshot().compare_to(snapshot, "lineno") if snapshot is not None else []
    print(f"{args.warmup} answers of warm-up, then {args.answers} measured (one at a time, the soak's mix)")
    print(f"{'cache':58s} {'bound':>7s} {'size':>7s} {'hit rate':>8s} {'lookups':>8s} {'MB':>6s} {'B/entry':>7s}")
    for name, cache in caches.items():
        before, after = warm[name], end[name]
        lookups = after.hits - before.hits + after.misses - before.misses
        rate = (after.hits - before.hits) / lookups if lookups else float("nan")
        held = ""
        per_entry = ""
        if snapshot is not None:
            gc.collect()
            used = tracemalloc.get_traced_memory()[0]
            cache.cache_clear()
            gc.collect()
            freed = used - tracemalloc.get_traced_memory()[0]
            held = f"{freed / 1e6:6.2f}"
            per_entry = f"{freed / after.size:7.0f}" if after.size else ""
        bound = str(after.bound) if after.bound is not None else "none"
        print(f"{name:58s} {bound:>7s} {after.size:7d} {rate:8.1%} {lookups:8d} {held:>6s} {per_entry:>7s}")
    if KEYS:
        print(f"\nhit rate after the warm-up, replayed at other bounds ({', '.join(map(str, BOUNDS))}):")
        for name, keys in sorted(KEYS.items()):
            if len(keys) > warm_keys.get(name, 0):
                rates = " ".join(f"{replay(keys, b, warm_keys.get(name, 0)):6.1%}" for b in BOUNDS)
                print(f"  {name:52s} {rates}")
    if growth:
        print("\nlargest growth after the warm-up (tracemalloc, by line):")
        for stat in growth[:12]:
            print(f"  {stat.size_diff / 1e3:+9.1f} KB {stat.count_diff:+7d} blocks  {stat.traceback}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
