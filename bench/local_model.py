"""Speed of the local model (Gemma 3 270M Q4_K_M on llama.cpp's server, 2 threads) through askai's client.

Run: ``.venv/bin/python bench/local_model.py [--runs 3]`` (needs the ``local`` extra). It
starts the server itself on a free 127.0.0.1 port and prints medians (and bests) over the runs:

- generation: tokens/s while streaming a 128-token reply (after the first token), and
  the time to the first token of a short prompt;
- prompt processing: prompt tokens/s on a real Writer prompt (3 retrieved posts, about
  2,300 tokens; a fresh prefix each run, so llama.cpp's prompt cache cannot help);
- the Critic in JSON mode (schema-constrained): reply tokens/s and seconds per review;
- one whole graph run with the local model as Writer and Critic (one draft, 3 posts), a
  different question each run.

Other processes on the machine slow llama.cpp's threads a lot: run it on an idle machine.
``--threads 1`` shows the other side of it: slower on an idle machine, but steady beside
another CPU-bound job, where two threads stall each other (the local-model tests use one).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from askai_graph import Settings, build_graph  # noqa: E402
from askai_graph.evidence.results import evidence_slice  # noqa: E402
from askai_graph.models.local import (  # noqa: E402
    CONTEXT_TOKENS,
    MODEL_ALIAS,
    THREADS,
    LocalModelError,
    local_model_server,
)
from askai_graph.models.providers import chat_model, default_retriever  # noqa: E402
from askai_graph.models.reviewing import ReviewRequest, critic_messages  # noqa: E402
from askai_graph.models.writing import DraftRequest, writer_messages  # noqa: E402
from askai_graph.nodes.research import to_search_results  # noqa: E402

COUNTING = "Count from 1 to 300, one number per line."
QUESTION = "How does BM25 rank documents?"
QUESTIONS = [QUESTION, "How does a semantic cache decide a hit?", "What is reciprocal rank fusion?"]


def generation(settings: Settings) -> tuple[float, float]:
    """Return (tokens/s after the first token, seconds to the first token) for a 128-token reply."""
    model = chat_model(MODEL_ALIAS, settings.model_copy(update={"max_tokens": 128, "temperature": 0.0}))
    started = time.monotonic()
    stamps = [time.monotonic() for chunk in model.stream(COUNTING) if chunk.text]
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), stamps[0] - started


def prompt_processing(settings: Settings, run: int, decode_rate: float) -> tuple[float, int]:
    """Return (prompt tokens/s, prompt tokens) for a Writer prompt with a fresh prefix."""
    results = to_search_results(default_retriever(settings).invoke(QUESTION), 3)
    system, user = writer_messages(DraftRequest(question=QUESTION, search_results=results))
    model = chat_model(MODEL_ALIAS, settings.model_copy(update={"max_tokens": 16}))
    started = time.monotonic()
    reply = model.invoke([("system", f"Run {run}. {system.text}"), ("user", user.text)])
    seconds = time.monotonic() - started
    assert reply.usage_metadata is not None
    prompt, completion = reply.usage_metadata["input_tokens"], reply.usage_metadata["output_tokens"]
    return prompt / (seconds - completion / decode_rate), prompt


def critic(settings: Settings) -> tuple[float, float]:
    """Return (reply tokens/s, seconds) for one schema-constrained review."""
    results = to_search_results(default_retriever(settings).invoke(QUESTION), 3)
    draft = f"BM25 ranks documents by term frequency and IDF [{results[0].title}]({results[0].source_url})."
    model = chat_model(MODEL_ALIAS, settings.model_copy(update={"max_tokens": 300}), json_mode=True)
    request = ReviewRequest(question=QUESTION, draft=draft, evidence=evidence_slice(QUESTION, draft, results, 3000))
    started = time.monotonic()
    message = model.invoke(critic_messages(request))
    seconds = time.monotonic() - started
    assert message.usage_metadata is not None
    return message.usage_metadata["output_tokens"] / seconds, seconds


def graph_run(settings: Settings, question: str) -> tuple[float, str]:
    """Return (seconds, outcome) of one whole run, one draft of at most 128 tokens."""
    graph = build_graph(settings=settings.model_copy(update={"max_tokens": 128, "max_attempts": 1}))
    started = time.monotonic()
    final = graph.invoke({"question": question}, context={"top_k": 3})
    return time.monotonic() - started, final["outcome"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=THREADS, help=f"llama.cpp threads (default {THREADS})")
    args = parser.parse_args()
    try:
        measure(args.runs, args.threads)
    except LocalModelError as exc:
        sys.exit(f"bench/local_model.py: {exc}")


def measure(runs_wanted: int, threads: int) -> None:
    with tempfile.TemporaryDirectory() as cache, local_model_server(threads=threads) as server:
        settings = server.settings(timeout=300, max_retries=0, index_cache_dir=Path(cache))
        generation(settings)  # warm-up: first touches of the weights
        gen = [generation(settings) for _ in range(runs_wanted)]
        decode = statistics.median(rate for rate, _ in gen)
        prompts = [prompt_processing(settings, run, decode) for run in range(runs_wanted)]
        reviews = [critic(settings) for _ in range(runs_wanted)]
        runs = [graph_run(settings, QUESTIONS[run % len(QUESTIONS)]) for run in range(runs_wanted)]
    print(f"local model: {MODEL_ALIAS} Q4_K_M, llama.cpp server, {threads} threads, n_ctx {CONTEXT_TOKENS}")
    print("figure: median (best) of", runs_wanted, "runs")
    print(f"  generation:         {spread([rate for rate, _ in gen], best=max)} tokens/s")
    print(f"  first token:        {spread([seconds for _, seconds in gen], best=min)} s (short, cached prompt)")
    print(
        f"  prompt processing:  {spread([rate for rate, _ in prompts], best=max)} tokens/s "
        f"(Writer prompt of {prompts[0][1]} tokens)"
    )
    print(f"  critic JSON mode:   {spread([rate for rate, _ in reviews], best=max)} tokens/s")
    print(f"  one review:         {spread([seconds for _, seconds in reviews], best=min)} s")
    print(
        f"  whole graph run:    {spread([seconds for seconds, _ in runs], best=min)} s "
        f"(one draft; outcomes: {', '.join(outcome for _, outcome in runs)})"
    )


def spread(values: list[float], *, best: Callable[[list[float]], float]) -> str:
    return f"{statistics.median(values):7.2f} ({best(values):.2f})"


if __name__ == "__main__":
    main()
