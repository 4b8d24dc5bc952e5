"""Choose the Writer, Critic and retriever a graph uses when the caller passes none.

Offline by default (extractive writer, lexical critic, BM25 over the configured corpus);
``ASKAI_MODEL`` / ``ASKAI_WRITER_MODEL`` / ``ASKAI_CRITIC_MODEL`` switch a role to an
OpenAI-compatible chat model (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio).
Nothing here runs at import time.

Each request to a provider is bounded: ``timeout`` seconds of silence end it (httpx),
a ``deadline.DeadlineTransport`` ends it once it has run ``timeout`` seconds in total (a
server that trickles keep-alive pings forever), and the OpenAI client retries at most
``max_retries`` times with exponential backoff (0.5 s doubling, at most 8 s; a server's
``Retry-After`` above 8 s is dropped, so a rate limit cannot park a reader for minutes).
A failed call raises; the Writer and Critic nodes turn that into a gate failure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

import httpx2 as httpx  # the HTTP client the OpenAI SDK (3.x) runs on
from langchain_core.documents import BaseDocumentCompressor

from askai_graph.clients.deadline import AsyncDeadlineTransport, DeadlineTransport
from askai_graph.clients.endpoint import endpoint_kwargs, max_tokens_field
from askai_graph.evidence.critique import Critique
from askai_graph.indexing.loader import corpus_for
from askai_graph.models.adapter import ChatModelAdapter
from askai_graph.models.condensing import Condenser
from askai_graph.models.offline import ExtractiveWriter, LexicalCondenser, LexicalCritic
from askai_graph.models.offline.critic import MEANING_TOPIC_COVERAGE
from askai_graph.models.reviewing import Critic
from askai_graph.models.writing import Writer
from askai_graph.retrieval.pages import BM25Retriever, PageRetriever
from askai_graph.settings import Settings

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

# A retriever invoked without ``k`` returns up to this many pages; Research asks for its ``top_k``.
RETRIEVER_CEILING = 50

# Grammar-constrained servers (llama.cpp) cannot bound a JSON number, but they can an
# enum: scores on this scale are always in range, so a tiny model cannot emit "100".
SCORE_SCALE = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]
# Bound list and string sizes so a looping model cannot spend its whole token budget.
GRAMMAR_MAX_ITEMS = 3
GRAMMAR_MAX_CHARS = 120


def chat_model(
    model: str, settings: Settings, *, json_mode: bool = False, transport: httpx.MockTransport | None = None
) -> BaseChatModel:
    """Create an OpenAI-compatible chat model from settings.

    Args:
        model: Model name as the endpoint knows it (``gpt-4.1-mini``, ``llama3.2``...).
        settings: Endpoint, key, limits, timeouts and retries.
        json_mode: Ask for a JSON reply in the form ``settings.critic_response_format``
            names (the Critic); the reply text is still parsed strictly by the caller.
        transport: An in-process transport serving the requests (tests); real HTTP when ``None``.

    Returns:
        A ``ChatOpenAI`` whose requests are bounded in time, retries and tokens.
    """
    from langchain_openai import ChatOpenAI
    from openai import DefaultAsyncHttpxClient, DefaultHttpxClient

    extra_body: dict[str, Any] = {}
    kwargs: dict[str, Any] = {
        "model": model,
        "temperature": 0.0 if json_mode else settings.temperature,
        "timeout": settings.timeout,
        "max_retries": settings.max_retries,
        "http_client": DefaultHttpxClient(transport=DeadlineTransport(settings.timeout, transport)),
        "http_async_client": DefaultAsyncHttpxClient(transport=AsyncDeadlineTransport(settings.timeout, transport)),
    }
    if max_tokens_field(settings) == "max_tokens":
        # Outside ChatOpenAI's own max_tokens, which it always renames max_completion_tokens.
        extra_body["max_tokens"] = settings.max_tokens
    else:
        kwargs["max_tokens"] = settings.max_tokens
    if json_mode and (response_format := critic_response_format(settings)) is not None:
        # In the body, not model_kwargs: there ChatOpenAI switches to its structured-output
        # parse path, which raises on a truncated reply instead of returning the text.
        extra_body["response_format"] = response_format
    kwargs |= endpoint_kwargs(settings)
    if extra_body:
        kwargs["extra_body"] = extra_body
    return ChatOpenAI(**kwargs)


def critic_response_format(settings: Settings) -> dict[str, Any] | None:
    """Return the ``response_format`` the Critic sends, or ``None`` for plain text."""
    match settings.critic_response_format:
        case "json_object":
            return {"type": "json_object"}
        case "json_object_schema":
            return {"type": "json_object", "schema": critique_schema(grammar=True)}
        case "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "critique", "schema": critique_schema()}}
        case _:
            return None


def critique_schema(*, grammar: bool = False) -> dict[str, Any]:
    """Return the Critique JSON schema with every key required and no others.

    Args:
        grammar: For grammar-constrained decoding (llama.cpp): scores become an enum on
            ``SCORE_SCALE`` and lists and strings get size limits. Every reply matching it
            is also a valid ``Critique``.
    """
    properties: dict[str, Any] = {}
    for name, prop in Critique.model_json_schema()["properties"].items():
        prop = {key: value for key, value in prop.items() if key not in ("title", "default")}
        if grammar and prop.get("type") == "number":
            prop = {"enum": SCORE_SCALE}
        elif grammar and prop.get("type") == "array":
            prop |= {"maxItems": GRAMMAR_MAX_ITEMS, "items": {"type": "string", "maxLength": GRAMMAR_MAX_CHARS}}
        properties[name] = prop
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def is_chat_model(value: object) -> TypeGuard[BaseChatModel]:
    """Whether ``value`` is a LangChain chat model.

    Without importing langchain-core's model classes (a sizeable share of a command's
    start-up): an object can only be a ``BaseChatModel`` once that module is loaded. The
    module itself, not the package: the package is loaded with LangGraph, and reading its
    ``BaseChatModel`` imports the module (0.1 s of ``askai ask``).
    """
    models = sys.modules.get("langchain_core.language_models.chat_models")
    return models is not None and isinstance(value, models.BaseChatModel)


def as_writer(writer: BaseChatModel | Writer) -> Writer:
    """Wrap a chat model with the Writer prompts; pass a ready Writer through."""
    if is_chat_model(writer):
        return ChatModelAdapter(writer)
    if isinstance(writer, Writer):
        return writer
    raise TypeError(f"writer must be a BaseChatModel or a Writer, not {type(writer).__name__}")


def as_critic(critic: BaseChatModel | Critic) -> Critic:
    """Wrap a chat model with the Critic prompts; pass a ready Critic through."""
    if is_chat_model(critic):
        return ChatModelAdapter(critic)
    if isinstance(critic, Critic):
        return critic
    raise TypeError(f"critic must be a BaseChatModel or a Critic, not {type(critic).__name__}")


def default_condenser(settings: Settings, writer: BaseChatModel | Writer | None = None) -> Condenser:
    """Return the condenser: the Writer's chat model (passed or configured), else the lexical rewrite.

    A Writer passed in that is not a chat model (the extractive one, a custom class)
    keeps the condenser offline too: no model is called behind the caller's back.
    """
    if is_chat_model(writer):
        return ChatModelAdapter(writer)
    model = settings.writer_model or settings.model
    if writer is None and model:
        return ChatModelAdapter(chat_model(model, settings))
    return LexicalCondenser()


def default_writer(settings: Settings, embeddings: Embeddings | None = None) -> Writer:
    """Return the configured Writer: a chat model if one is set, else the extractive one.

    ``embeddings`` (the retriever's model, when it has one) helps the extractive Writer
    rank sections; it is shared, never loaded a second time.
    """
    model = settings.writer_model or settings.model
    return ChatModelAdapter(chat_model(model, settings)) if model else ExtractiveWriter(embeddings=embeddings)


def default_critic(settings: Settings, site_uses: Callable[[str], bool] | None = None) -> Critic:
    """Return the configured Critic: a chat model in JSON mode if set, else the lexical one.

    ``site_uses`` (the retriever's vocabulary, given when retrieval reads meaning: see
    ``synonym_vocabulary``) lets the lexical Critic weigh a question word no page of the
    site has as the reader's synonym, not a gap, and lowers the share of the question's
    topic the answer's lead section must name (``MEANING_TOPIC_COVERAGE``).
    """
    model = settings.critic_model or settings.model
    if model:
        return ChatModelAdapter(chat_model(model, settings, json_mode=True))
    if site_uses is None:
        return LexicalCritic()
    return LexicalCritic(site_uses=site_uses, min_topic_coverage=MEANING_TOPIC_COVERAGE)


def synonym_vocabulary(retriever: object, embeddings: Embeddings | None) -> Callable[[str], bool] | None:
    """Return what tells the lexical Critic a word the site uses, when it should weigh the others lightly; else None.

    With an embedding model, retrieval meets a reader's synonym by meaning, so a question
    word no page has is no sign the pages found are wrong. BM25 alone ranked the pages
    without that word: there it stays a full gap (measured: docs/benchmarks.md, "Words
    the site never uses").
    """
    return retriever.site_uses if embeddings is not None and isinstance(retriever, PageRetriever) else None


def default_retriever(settings: Settings, *, reranker: BaseDocumentCompressor | None = None) -> PageRetriever:
    """Return the configured retriever over the configured corpus (the bundled sample site by default).

    BM25 unless an embedding model is set (``ASKAI_EMBEDDINGS``): then hybrid, or what
    ``settings.retrieval`` names. Each returns up to ``RETRIEVER_CEILING`` pages when
    invoked plainly; Research asks for its ``top_k`` only.

    Args:
        settings: Corpus, retrieval mode, embedding model, fusion and rerank settings.
        reranker: Reorders the first ``settings.rerank_candidates`` ranked pages (e.g. a
            cross-encoder wrapped as a LangChain ``BaseDocumentCompressor``).

    Raises:
        EmbeddingsError: the embedding model cannot be loaded (e.g. the ``neural`` extra is missing).
        CorpusError: the corpus cannot be loaded, or a built index holds another model's vectors.
    """
    common: dict[str, Any] = {
        "corpus": corpus_for(settings),
        "k": RETRIEVER_CEILING,
        "cache_dir": settings.index_cache_dir,
        "passage_chars": settings.passage_chars,
        "reranker": reranker,
        "rerank_candidates": settings.rerank_candidates,
        "min_term_coverage": settings.min_term_coverage,
    }
    mode = settings.retrieval if settings.retrieval != "auto" else ("hybrid" if settings.embeddings else "bm25")
    if mode == "bm25":
        return BM25Retriever(**common)
    # Only dense and hybrid retrieval need the embedding modules (``askai ask`` on BM25 imports none).
    from askai_graph.retrieval.dense import check_embedded_with
    from askai_graph.retrieval.embeddings import (
        EmbeddingsError,
        embeddings_for,
        min_similarity,
        model_key,
        relevant_similarity,
    )
    from askai_graph.retrieval.hybrid import DenseRetriever, HybridRetriever

    model = model_key(settings)
    if model is None:  # Settings refuses dense/hybrid without a model
        raise EmbeddingsError(f"retrieval={mode} needs an embedding model: set ASKAI_EMBEDDINGS=local or openai")
    # Before loading the model, and outside the retriever's own validation (which would
    # wrap the one-line error in a pydantic report).
    check_embedded_with(common["corpus"], model)
    embeddings = embeddings_for(settings)
    dense = {**common, "embeddings": embeddings, "embeddings_model": model,
             "min_similarity": min_similarity(settings)}
    if mode == "dense":
        return DenseRetriever(**dense)
    return HybridRetriever(
        **dense, rrf_k=settings.rrf_k, lexical_depth=settings.lexical_depth, dense_depth=settings.dense_depth,
        relevant_similarity=relevant_similarity(settings),
    )
