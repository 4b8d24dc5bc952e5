"""Validation cost per draft, next to a bare mistletoe parse of the same text.

Validation runs on every draft, so its cost is measured against the one thing it cannot
avoid: parsing the Markdown. Two answers, about 4 KB and 40 KB, each citing 20 retrieved
posts (inline, reference and bare links, an image, a table, a code block and a Mermaid
diagram), are validated and parsed with ``mistletoe.Document`` in the same run; the
script prints the medians and their ratio.

    .venv/bin/python bench/validation.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from mistletoe import Document

from askai_graph.evidence.results import ImageRef, SearchResult
from askai_graph.validation import validate_draft

LINKS = 20
RESULTS = [
    SearchResult(
        title=f"Page {n}",
        source_url=f"https://site.example/posts/{n}-engineering-llm-apps",
        content="...",
        images=(ImageRef(url=f"https://site.example/img/{n}.png", alt="diagram"),),
    )
    for n in range(LINKS)
]

PROSE = (
    "Retrieval-augmented generation pairs a retriever with a writer: the retriever narrows a corpus to a "
    "handful of candidate posts, and the writer drafts an answer that cites them. Caching the retrieval "
    "step cuts latency, *but* a stale cache can serve evidence that no longer matches the question; "
    "eviction by TTL and by corpus fingerprint keeps it honest. Streaming only the final text keeps "
    "unreviewed drafts away from the reader, and `max_attempts` bounds the cost of a retry.\n\n"
)


def answer(size: int) -> str:
    """An answer of about ``size`` characters citing each of the 20 posts once."""
    url = [result.source_url for result in RESULTS]
    cited = [
        f"## How it fits together\n\nSee [the overview]({url[0]}) and [its sequel]({url[1]}).\n\n",
        f"- Retrieval: see [BM25 basics]({url[2]}) and [hybrid search]({url[3]}).\n",
        f"- Writing: see [prompting]({url[4]}), [citations][c5] and [grounding][].\n",
        f"- Review: the critic is covered in {url[7]} and <{url[8]}>.\n\n",
        f"| Stage | Page |\n|---|---|\n| cache | [caching]({url[9]}) |\n| stream | [streaming]({url[10]}) |\n\n",
        f"![pipeline diagram]({RESULTS[11].images[0].url})\n\n> Quoted from [the guardrails post]({url[11]}).\n\n",
        "```python\nresponse = client.get('https://api.example.com/v1/answers')  # not a citation\n```\n\n",
        f'```mermaid\nflowchart LR\n  Q[Question] --> R[Research]\n  R --> W[Writer]\n  click R "{url[12]}"\n```\n\n',
        f'1. [Evaluation]({url[13]})\n2. [Agents]({url[14]})\n3. [Latency]({url[15]} "Latency budget")\n\n',
        f"Finally, [costs]({url[16]}), [limits]({url[17]}), [tracing]({url[18]}) and [fallbacks]({url[19]}).\n\n",
        f"[c5]: {url[5]}\n[grounding]: {url[6]}\n",
    ]
    body = "".join(cited)
    filler = PROSE * max(0, (size - len(body)) // len(PROSE) + 1)
    return (filler[: max(0, size - len(body))] + "\n\n" + body).lstrip()


def medians_ms(runs: Sequence[Callable[[], object]], repeat: int) -> list[float]:
    """Median wall time of each of ``runs`` in milliseconds, interleaved so drift hits all alike."""
    for run in runs:
        run()  # warm-up
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, samples in zip(runs, times, strict=True):
            start = time.perf_counter()
            run()
            samples.append(time.perf_counter() - start)
    return [statistics.median(samples) * 1000 for samples in times]


def main() -> None:
    """Print one line per answer size."""
    print(f"{'answer':>8} {'links':>5} {'ok':>3} {'validate ms':>12} {'mistletoe ms':>13} {'ratio':>6}")
    for size, repeat in ((4_000, 300), (40_000, 60)):
        text = answer(size)
        report = validate_draft(text, RESULTS)
        runs = [lambda text=text: validate_draft(text, RESULTS), lambda text=text: Document(text)]
        validate, parse = medians_ms(runs, repeat)
        label = f"{len(text) / 1000:.1f} KB"
        ok = "yes" if report.ok else "NO"
        print(f"{label:>8} {LINKS:>5} {ok:>3} {validate:>12.2f} {parse:>13.2f} {validate / parse:>6.2f}")


if __name__ == "__main__":
    main()
