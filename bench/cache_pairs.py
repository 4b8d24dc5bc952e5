"""The answer cache on its labelled set: paraphrase hit rate and contrast false hits.

Run: ``.venv/bin/python bench/cache_pairs.py``. No network; about a second, plus the
model's load (~10 s) with the ``neural`` extra. For each pair
of ``tests/data/cache_pairs.jsonl`` it caches an accepted answer to one question and asks
the other (both ways for contrast pairs), and prints, per category:

- the default cache (exact key, no embeddings): what ``askai serve`` does without
  ``ASKAI_EMBEDDINGS``;
- with ``LexicalEmbeddings`` as a paraphrase finder (threshold 0.9);
- with the worst possible paraphrase model (every pair "identical"): what the contrast
  check alone refuses, the bound for any neural ``Embeddings`` you plug in;
- with the local all-MiniLM-L6-v2 (``ASKAI_EMBEDDINGS=local``, the ``neural`` extra) at
  its measured threshold, then a sweep of thresholds: the highest contrast cosine the
  check lets through is what the space's threshold must stay above.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.embeddings import Embeddings  # noqa: E402

from askai_graph.retrieval.lexical_embeddings import LexicalEmbeddings  # noqa: E402
from askai_graph.server.answers.cache import InMemoryCacheStore, SemanticCache, default_threshold  # noqa: E402
from askai_graph.server.answers.same_question import clean_question  # noqa: E402

PAIRS = Path(__file__).resolve().parent.parent / "tests" / "data" / "cache_pairs.jsonl"
GATES = {"retrieval": "passed", "validation": "passed", "critic": "passed"}


class Identical(Embeddings):
    """Every question is the same point: only the contrast check stands between them."""

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]


class Memo(Embeddings):
    """Embed each question once (the sweep asks the same questions many times)."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner, self.vectors = inner, dict[str, list[float]]()

    def embed_query(self, text: str) -> list[float]:
        if text not in self.vectors:
            self.vectors[text] = self.inner.embed_query(text)
        return self.vectors[text]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    async def aembed_query(self, text: str) -> list[float]:
        return self.embed_query(text)


SPACE: dict[int, tuple[str | None, float | None]] = {}
"""Per embeddings object: the space name and threshold the cache is built with."""


async def hits(first: str, second: str, embeddings: Embeddings | None) -> bool:
    space, threshold = SPACE.get(id(embeddings), (None, None))
    semantic = SemanticCache(
        InMemoryCacheStore(4), namespace="bench", embeddings=embeddings, space=space, threshold=threshold
    )
    question = clean_question(first)
    probe = await semantic.lookup(question)
    await semantic.remember(probe, {"question": question, "answer": "A.", "outcome": "accepted", "gates": GATES})
    return (await semantic.lookup(clean_question(second))).hit is not None


async def measure(pairs: list[dict[str, Any]], embeddings: Embeddings | None) -> tuple[Counter[str], Counter[str]]:
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for pair in pairs:
        key = f"{pair['kind']}:{pair['category']}"
        total[key] += 1
        found = await hits(pair["a"], pair["b"], embeddings)
        if pair["kind"] == "contrast":
            found = found or await hits(pair["b"], pair["a"], embeddings)
        hit[key] += found
    return hit, total


def local_model() -> tuple[Embeddings, str] | None:
    """Return the neural extra's all-MiniLM-L6-v2 and its space name, or ``None`` without the extra."""
    from askai_graph.retrieval.embeddings import EmbeddingsError, embeddings_for, model_key
    from askai_graph.settings import Settings

    settings = Settings(embeddings="local")
    try:
        model = embeddings_for(settings)
    except EmbeddingsError as exc:
        print(f"(no neural row: {exc})")
        return None
    assert model is not None
    return Memo(model), str(model_key(settings))


def report(name: str, hit: Counter[str], total: Counter[str]) -> None:
    paraphrase = sum(v for k, v in hit.items() if k.startswith("paraphrase"))
    paraphrases = sum(v for k, v in total.items() if k.startswith("paraphrase"))
    false_hits = sum(v for k, v in hit.items() if k.startswith("contrast"))
    contrasts = sum(v for k, v in total.items() if k.startswith("contrast"))
    print(f"{name:<34} paraphrase hit rate {paraphrase}/{paraphrases} ({paraphrase / paraphrases:.0%})"
          f"   contrast false hits {false_hits}/{contrasts}")  # fmt: skip
    leaks = sorted(k.split(":", 1)[1] for k, v in hit.items() if k.startswith("contrast") and v)
    if leaks:
        print(f"{'':<34} false hits in: {', '.join(leaks)}")


def main() -> None:
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines()]
    runs: list[tuple[str, Embeddings | None]] = [
        ("default (exact key)", None), ("+ LexicalEmbeddings (0.9)", LexicalEmbeddings()),
        ("+ worst-case embedding", Identical()),
    ]  # fmt: skip
    neural = local_model()
    if neural is not None:
        model, space = neural
        SPACE[id(model)] = (space, None)
        runs.append((f"+ {space} ({default_threshold(space)})", model))
    for name, embeddings in runs:
        report(name, *asyncio.run(measure(pairs, embeddings)))
    if neural is not None:
        print(f"\n{space} by threshold:")
        for threshold in (0.75, 0.8, 0.82, 0.85, 0.88, 0.9, 0.95):
            SPACE[id(model)] = (space, threshold)
            report(f"  threshold {threshold}", *asyncio.run(measure(pairs, model)))
    print("\nparaphrase categories (default):")
    hit, total = asyncio.run(measure([p for p in pairs if p["kind"] == "paraphrase"], None))
    for key in sorted(total):
        print(f"  {key.split(':', 1)[1]:<18} {hit[key]}/{total[key]}")


if __name__ == "__main__":
    main()
