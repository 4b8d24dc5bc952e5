"""Choose the Writer, Critic and retriever a graph uses when the caller passes none.

Offline by default (extractive writer, lexical critic, BM25 over the configured corpus);
``ASKAI_MODEL`` / ``ASKAI_WRITER_MODEL`` / ``ASKAI_CRITIC_MODEL`` switch a role to an
OpenAI-compatible chat model. Nothing here runs at import time.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from askai_graph.corpus import load_corpus
from askai_graph.offline import ExtractiveWriter, LexicalCritic
from askai_graph.retrieval import BM25Retriever
from askai_graph.reviewing import ChatModelReviewer, Reviewer
from askai_graph.settings import Settings
from askai_graph.writing import ChatModelWriter, Writer

# BM25 returns up to this many posts; Research trims to the per-run ``top_k``.
RETRIEVER_CEILING = 50


def chat_model(model: str, settings: Settings, *, json_mode: bool = False) -> BaseChatModel:
    """Create an OpenAI-compatible chat model from settings."""
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {
        "model": model,
        "temperature": 0.0 if json_mode else settings.temperature,
        "max_tokens": settings.max_tokens,
        "timeout": settings.timeout,
        "max_retries": settings.max_retries,
        # Some servers (llama.cpp) ignore max_completion_tokens: send max_tokens too.
        "extra_body": {"max_tokens": settings.max_tokens},
    }
    if settings.base_url:
        kwargs["base_url"] = settings.base_url
    kwargs["api_key"] = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
    if json_mode:
        kwargs["model_kwargs"] = {"response_format": {"type": "json_object"}}
    return ChatOpenAI(**kwargs)


def as_writer(writer: BaseChatModel | Writer) -> Writer:
    """Wrap a chat model with the Writer prompts; pass a ready Writer through."""
    if isinstance(writer, BaseChatModel):
        return ChatModelWriter(writer)
    if isinstance(writer, Writer):
        return writer
    raise TypeError(f"writer must be a BaseChatModel or a Writer, not {type(writer).__name__}")


def as_reviewer(critic: BaseChatModel | Reviewer) -> Reviewer:
    """Wrap a chat model with the Critic prompts; pass a ready Reviewer through."""
    if isinstance(critic, BaseChatModel):
        return ChatModelReviewer(critic)
    if isinstance(critic, Reviewer):
        return critic
    raise TypeError(f"critic must be a BaseChatModel or a Reviewer, not {type(critic).__name__}")


def default_writer(settings: Settings) -> Writer:
    """Return the configured Writer: a chat model if one is set, else the extractive one."""
    model = settings.writer_model or settings.model
    return ChatModelWriter(chat_model(model, settings)) if model else ExtractiveWriter()


def default_reviewer(settings: Settings) -> Reviewer:
    """Return the configured Critic: a chat model in JSON mode if set, else the lexical one."""
    model = settings.critic_model or settings.model
    return ChatModelReviewer(chat_model(model, settings, json_mode=True)) if model else LexicalCritic()


def default_retriever(settings: Settings) -> BaseRetriever:
    """Return BM25 over the configured corpus (the bundled sample site by default)."""
    return BM25Retriever(corpus=load_corpus(settings.corpus), k=RETRIEVER_CEILING, cache_dir=settings.index_cache_dir)
