"""What an answer depends on: the settings group whose digest names the answer cache."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from askai_graph.validation import DEFAULT_MAX_DRAFT_CHARS, DEFAULT_MERMAID_DIAGRAM_TYPES

VERSION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
"""A docs version label: ``30.4``, ``next``, ``v2-beta``."""
LOCALE_PATTERN = r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$"
"""A language tag: ``en``, ``es``, ``pt-BR``, ``zh-hant``."""


class AnswerSettings(BaseModel):
    """What an answer depends on: models, retrieval, gates, attempts, evidence budgets, history.

    Its digest (with the prompts) is the answer cache's namespace: a field added here
    separates cached answers, a field added to any other group never does.
    """

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(3, ge=1, le=10, description="Drafts per question before degradation or fallback.")
    catalog_min_sources: int = Field(
        4, ge=1, le=50, description="Distinct retrieved posts a catalog answer must cite to be accepted early."
    )
    min_confidence: float = Field(0.6, ge=0, le=1, description="Critic confidence below this is a review failure.")
    min_answer_relevance: float = Field(0.5, ge=0, le=1, description="Critic answer_relevance below this fails.")
    min_intent_alignment: float = Field(0.5, ge=0, le=1, description="Critic intent_alignment below this fails.")
    top_k: int = Field(6, ge=1, le=50, description="Posts Research retrieves per query.")
    catalog_top_k: int = Field(12, ge=1, le=50, description="Posts Research retrieves for a catalog question.")
    version: str | None = Field(
        None, pattern=VERSION_PATTERN,
        description="The docs version answers come from, on a site indexed with versions; unset: the site's "
        "default (its latest release).",
    )
    locale: str | None = Field(
        None, pattern=LOCALE_PATTERN,
        description="The language answers come from, on a site indexed with languages; unset: the site's default. "
        "A page not translated yet is read in the default language.",
    )
    critic_evidence_chars: int = Field(
        6000, ge=200, le=100_000, description="Characters of retrieved evidence handed to the Critic (bounded slice)."
    )
    # 16,000: with hybrid retrieval the answering section is in the context for 98 % of Jest's and 95 % of
    # FastAPI's questions (8,000: 96 and 89 %), 84 % of Pydantic's (75 %); 24,000 adds only Pydantic's
    # old set and loses on its fresh one (docs/benchmarks.md, "A model Writer's context").
    writer_evidence_chars: int = Field(
        16000, ge=200, le=200_000, description="Characters of retrieved evidence in a model Writer's prompt."
    )
    max_draft_chars: int = Field(
        DEFAULT_MAX_DRAFT_CHARS, ge=100, le=1_000_000, description="Longest draft Validation parses; longer fails."
    )
    mermaid_diagram_types: frozenset[str] = Field(
        DEFAULT_MERMAID_DIAGRAM_TYPES, description="Mermaid diagram keywords Validation accepts."
    )
    max_history_turns: int = Field(
        10, ge=1, le=200, description="Turns a thread remembers; older ones are dropped."
    )
    history_prompt_turns: int = Field(
        3,
        ge=0,
        le=50,
        description="Most recent turns the Writer and Critic see (answers shortened); the condenser sees at "
        "least the last one.",
    )
    passage_chars: int = Field(
        4000, ge=200, le=100_000, description="Pages longer than this are split into passages at their headings."
    )
    embeddings: Literal["", "local", "openai"] = Field(
        "",
        description="Embedding model for dense and hybrid retrieval: '' none (BM25 only), local (all-MiniLM-L6-v2 "
        "on the device `embeddings_device` picks, the `neural` extra), openai (any OpenAI-compatible embeddings "
        "endpoint at `base_url`).",
    )
    embeddings_model: str | None = Field(
        None,
        description="The embedding model: for local, a sentence-transformers model folder (default: the "
        "all-MiniLM-L6-v2 the `neural` extra installs); for openai, the model name (default "
        "text-embedding-3-small). Index-time and query-time models must match.",
    )
    retrieval: Literal["auto", "bm25", "dense", "hybrid"] = Field(
        "auto",
        description="How Research ranks pages: bm25, dense (embeddings alone) or hybrid (both, fused by reciprocal "
        "rank); auto = hybrid when `embeddings` is set, else bm25.",
    )
    rrf_k: int = Field(
        60, ge=1, le=10_000, description="Reciprocal rank fusion constant: a page scores 1/(rrf_k + rank) per side."
    )
    lexical_depth: int = Field(30, ge=1, le=1000, description="Pages BM25 contributes to hybrid fusion.")
    dense_depth: int = Field(30, ge=1, le=1000, description="Pages the dense index contributes to hybrid fusion.")
    dense_min_similarity: float | None = Field(
        None,
        ge=-1,
        le=1,
        description="Passages less cosine-similar than this to the question are no dense candidates; unset: the "
        "floor measured for the embedding model (0.15 for the local all-MiniLM-L6-v2, 0 otherwise: keep all).",
    )
    min_term_coverage: float = Field(
        0.25,
        ge=0,
        le=1,
        description="Relevance floor (BM25 and hybrid): a page's best passage must score this share of the most "
        "BM25 can give the question's distinct terms, each weighted by its IDF in the index (a term no page has "
        "weighs the most); a question no page covers retrieves nothing and falls back. 0 turns the floor off.",
    )
    dense_relevance: float | None = Field(
        None,
        ge=-1,
        le=1,
        description="Hybrid's relevance floor on meaning: a page this cosine-similar to the question is relevant "
        "whatever its words (others must reach `min_term_coverage`). Unset: measured for the model (0.32 for the "
        "local all-MiniLM-L6-v2); for other models the lexical floor alone decides.",
    )
    rerank_candidates: int = Field(
        20, ge=1, le=1000, description="Fused pages a reranker (BaseDocumentCompressor, Python API) sees at most."
    )
    model: str | None = Field(None, description="OpenAI-compatible chat model for Writer and Critic.")
    writer_model: str | None = Field(None, description="Writer model; overrides `model` for the Writer.")
    critic_model: str | None = Field(None, description="Critic model; overrides `model` for the Critic.")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1.")
    temperature: float = Field(0.2, ge=0, le=2, description="Sampling temperature of the Writer.")
    max_tokens: int = Field(800, ge=16, le=32_000, description="Generation limit per model call.")
    critic_response_format: Literal["json_object", "json_object_schema", "json_schema", "none"] = Field(
        "json_object",
        description="How the Critic asks for JSON: json_object (OpenAI, Ollama, vLLM), json_object_schema "
        "(llama.cpp server: json_object plus the Critique schema, grammar-constrained), json_schema (LM Studio, "
        "vLLM, OpenAI structured outputs) or none. The reply is parsed strictly either way.",
    )
    max_tokens_param: Literal["auto", "max_tokens", "max_completion_tokens"] = Field(
        "auto",
        description="Request field carrying max_tokens: auto sends max_completion_tokens to OpenAI and max_tokens "
        "to any other base_url (llama.cpp ignores max_completion_tokens; OpenAI rejects both at once).",
    )
    graph_url: str | None = Field(
        None,
        description="A LangGraph Server deployment of this repo's langgraph.json (http://host:2024); when set, "
        "`askai serve` streams the graph from there instead of running it in process.",
    )
    graph_id: str = Field(
        "ask_ai", min_length=1, max_length=200, description="The graph (assistant) to run on `graph_url`."
    )

    @field_validator("graph_url")
    @classmethod
    def _known_graph_url(cls, url: str | None) -> str | None:
        if url is not None and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
            raise ValueError("must be the LangGraph Server's http(s) address, e.g. http://127.0.0.1:2024")
        return url.rstrip("/") if url is not None else None
