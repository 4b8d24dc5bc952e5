"""Passages per second of the local model at its configured 256 word pieces vs the 128 it was trained at.

Run: ``.venv/bin/python bench/embedding_lengths.py [--pages 1000] [--passages 512] [--rounds 3]`` (needs
the ``neural`` extra). Takes the passages of the synthetic docs tree of ``bench/index_scale.py``
(as ``askai index`` embeds them: title, summary, text) and embeds the same ``--passages`` in
interleaved rounds, so load on the machine hits both alike:

- ``256, id order``: the model as its folder configures it, chunks in passage order
  (what ``askai index`` did before);
- ``128, longest first``: ``LocalEmbeddings.load()`` as now, through ``embed_texts``.

Prints medians of wall and CPU passages/s with the ratio, and the mean cosine between
each passage's two vectors (how far the shorter reading moves them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_scale import site_words, write_site  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def passages(pages: int, limit: int) -> list[str]:
    """Return the texts ``askai index`` would embed for the first ``limit`` passages of the synthetic site."""
    from askai_graph import load_corpus
    from askai_graph.retrieval.passages import dense_text, split_passages

    with tempfile.TemporaryDirectory() as folder:
        write_site(Path(folder), pages, site_words())
        corpus = load_corpus(Path(folder), base_url="https://bench.example/")
        texts = []
        for post in corpus.posts:
            for i, passage in enumerate(split_passages(post.body, 4000)):
                texts.append(dense_text(post.title, post.summary if i == 0 else "", passage.text))
        return texts[:limit]


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--passages", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from askai_graph.retrieval.dense import EMBED_BATCH, embed_texts, unit_rows
    from askai_graph.retrieval.embeddings import LocalEmbeddings

    texts = passages(args.pages, args.passages)
    model = LocalEmbeddings.load(threads=None)

    def configured() -> np.ndarray:
        model.model.max_seq_length = 256
        rows = [unit_rows(np.asarray(model.embed_documents(texts[i : i + EMBED_BATCH]), dtype=np.float32))
                for i in range(0, len(texts), EMBED_BATCH)]
        return np.concatenate(rows)

    def trained() -> np.ndarray:
        model.model.max_seq_length = 128
        return embed_texts(model, texts).astype(np.float32)

    cases = {"256, id order": configured, "128, longest first": trained}
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for name, run in cases.items():
            started, used = time.perf_counter(), time.process_time()
            vectors[name] = run()
            wall[name].append(len(texts) / (time.perf_counter() - started))
            cpu[name].append(len(texts) / (time.process_time() - used))
    print(f"{len(texts)} passages of the {args.pages}-page synthetic site, {args.rounds} interleaved rounds"
          f" (median passages/s; ratio vs 256)")
    base_wall, base_cpu = (statistics.median(wall["256, id order"]), statistics.median(cpu["256, id order"]))
    for name in cases:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"{name:20} wall {w:7.1f} ({w / base_wall:4.2f}x)   per CPU second {c:7.1f} ({c / base_cpu:4.2f}x)")
    a, b = vectors["256, id order"], vectors["128, longest first"]
    print(f"mean cosine between the two readings of a passage: {float(np.mean(np.sum(a * b, axis=1))):.3f}")


if __name__ == "__main__":
    main()
