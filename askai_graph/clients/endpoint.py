"""What an OpenAI-compatible endpoint needs from settings: address, key, limit field.

Shared by the chat models (``providers``) and the embedding models
(``retrieval.embeddings``), which talk to the same endpoint.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from askai_graph.settings import Settings


def endpoint_kwargs(settings: Settings) -> dict[str, Any]:
    """Return the ``base_url`` and ``api_key`` an OpenAI client (chat or embeddings) takes from settings."""
    kwargs: dict[str, Any] = {}
    if settings.base_url:
        kwargs["base_url"] = settings.base_url
    if settings.api_key is not None:
        kwargs["api_key"] = settings.api_key.get_secret_value()
    elif settings.base_url and not os.environ.get("OPENAI_API_KEY"):
        kwargs["api_key"] = "not-needed"  # local servers ignore it; the client insists on one
    return kwargs


def is_openai(settings: Settings) -> bool:
    """Whether requests go to OpenAI itself (no base URL, or api.openai.com)."""
    return not settings.base_url or urlsplit(settings.base_url).hostname == "api.openai.com"


def max_tokens_field(settings: Settings) -> str:
    """Return the request field that carries the generation limit for this endpoint.

    OpenAI wants ``max_completion_tokens`` and rejects requests that set both fields;
    llama.cpp's server ignores ``max_completion_tokens`` and generates until its context
    is full. Every OpenAI-compatible server honours the classic ``max_tokens``.
    """
    if settings.max_tokens_param != "auto":
        return settings.max_tokens_param
    return "max_completion_tokens" if is_openai(settings) else "max_tokens"
