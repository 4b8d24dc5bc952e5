"""What masking readers' text costs: per question, and in answers per second through the server.

Run: ``.venv/bin/python bench/masking.py [--rounds 200] [--answers 40]``

1. **Per question.** Every question of ``evals/*.jsonl`` (plain questions, most of which
   skip every pattern) and the same questions with a pasted e-mail, key, card number and
   IP appended, each masked ``rounds`` times: p50 and p99 of one ``mask()`` call.
   Wall time and CPU time are both printed: on a loaded machine the wall p99 is the
   scheduler's, the CPU p99 the masking's.
2. **Answers per second.** ``POST /api/chat`` on the app over the bundled sample site
   (offline models, answer cache off so every question is a full run, the run log on a
   SQLite file), through ``httpx.ASGITransport``: the same questions with masking on and
   off (``masking._MAYBE`` set to a pattern that never matches, so ``mask`` returns at
   once), in interleaved bursts (alternating which goes first) so machine load hits both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from askai_graph.text import masking  # noqa: E402

PASTED = " My e-mail is jane.doe@example.org, key sk-proj-A1b2C3d4E5f6G7h8I9j0, card 4111 1111 1111 1111, host 10.2.3.4"


def questions() -> list[str]:
    found = []
    for path in sorted((ROOT / "evals").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.append(json.loads(line)["question"])
    return found


def per_question(texts: list[str], rounds: int) -> tuple[list[float], list[float]]:
    """Wall time and this thread's CPU time of each ``mask()`` call (CPU time leaves out preemption)."""
    wall, cpu = [], []
    for _ in range(rounds):
        for text in texts:
            start, start_cpu = time.perf_counter(), time.thread_time()
            masking.mask(text)
            cpu.append(time.thread_time() - start_cpu)
            wall.append(time.perf_counter() - start)
    return wall, cpu


def quantile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def answers_per_second(texts: list[str], answers: int, rounds: int) -> dict[str, float]:
    import httpx

    from askai_graph import Settings
    from askai_graph.server import create_app
    from askai_graph.stores.runlog import open_run_log

    folder = tempfile.TemporaryDirectory()
    run_log = open_run_log(f"sqlite:///{Path(folder.name) / 'runs.sqlite'}")
    settings = Settings(cache_enabled=False, rate_limit="", database_url=None)
    app = create_app(settings=settings, run_log=run_log)
    on, off = masking._MAYBE, re.compile(r"(?!)")
    rates: dict[str, list[float]] = {"on": [], "off": []}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:

            async def burst(count: int) -> float:
                start = time.perf_counter()
                for i in range(count):
                    body = {"message": texts[i % len(texts)]}
                    response = await client.post("/api/chat", json=body)
                    assert response.status_code == 200 and "event: done" in response.text, response.text[:200]
                return count / (time.perf_counter() - start)

            await burst(len(texts))  # warm-up: index, first imports
            for round_ in range(rounds):
                modes = [("on", on), ("off", off)]
                for mode, pattern in modes if round_ % 2 else modes[::-1]:
                    masking._MAYBE = pattern
                    rates[mode].append(await burst(answers))
    masking._MAYBE = on
    run_log.close()
    folder.cleanup()
    return {mode: statistics.median(values) for mode, values in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=200, help="masking rounds over every question")
    parser.add_argument("--answers", type=int, default=40, help="answers per throughput burst")
    parser.add_argument("--bursts", type=int, default=3, help="interleaved bursts per mode")
    args = parser.parse_args()
    plain = questions()
    pasted = [text + PASTED for text in plain]
    for name, texts in (("plain questions", plain), ("with pasted secrets", pasted)):
        wall, cpu = per_question(texts, args.rounds)
        print(
            f"mask() on {len(texts)} {name:<20} wall p50 {statistics.median(wall) * 1e6:7.1f} us"
            f"  p99 {quantile(wall, 0.99) * 1e6:8.1f} us   cpu p50 {statistics.median(cpu) * 1e6:7.1f} us"
            f"  p99 {quantile(cpu, 0.99) * 1e6:7.1f} us"
        )
    mixed = [text if i % 2 else text + PASTED for i, text in enumerate(plain)]
    rates = asyncio.run(answers_per_second(mixed, args.answers, args.bursts))
    print(
        f"answers/s through POST /api/chat (half the questions with pasted secrets; median of {args.bursts} "
        f"bursts of {args.answers}): masking on {rates['on']:.1f}, off {rates['off']:.1f} "
        f"(on/off {rates['on'] / rates['off']:.3f})"
    )


if __name__ == "__main__":
    main()
