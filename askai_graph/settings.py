"""One typed settings object in four groups: defaults, ``ASKAI_*`` variables, per-run overrides.

``Settings`` reads every field flat (``settings.top_k``, ``ASKAI_TOP_K``); each field is
declared in one group: ``AnswerSettings`` (what an answer depends on; its digest names
the answer cache), ``ServingSettings``, ``IndexingSettings`` and ``StoreSettings``.

Precedence, lowest first: field defaults, ``ASKAI_*`` environment variables (read when
``Settings()`` is constructed), values passed to ``build_graph(settings=...)``, and per-run
``context={...}`` overrides (``RunOptions``). A per-run override always wins: the
environment never silently replaces what a caller asked for.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from askai_graph.validation import DEFAULT_MAX_DRAFT_CHARS, DEFAULT_MERMAID_DIAGRAM_TYPES

_ORIGIN = re.compile(r"https?://[^/\s?#@]+")


DEFAULT_RATE_LIMIT = "30/minute"
"""Questions per client unless ``rate_limit`` says otherwise."""


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
    critic_evidence_chars: int = Field(
        6000, ge=200, le=100_000, description="Characters of retrieved evidence handed to the Critic (bounded slice)."
    )
    writer_evidence_chars: int = Field(
        8000, ge=200, le=200_000, description="Characters of retrieved evidence in a model Writer's prompt."
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
        "on the CPU, the `neural` extra), openai (any OpenAI-compatible embeddings endpoint at `base_url`).",
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


class ServingSettings(BaseModel):
    """How the server and the command line talk: limits, CORS, the answer cache store, requests."""

    model_config = ConfigDict(frozen=True)

    max_question_chars: int = Field(2000, ge=10, le=100_000, description="Longest question accepted.")
    api_key: SecretStr | None = Field(None, description="API key for the endpoint (any string for local servers).")
    timeout: float = Field(60.0, gt=0, le=3600, description="Seconds one model request may take.")
    max_retries: int = Field(2, ge=0, le=10, description="Provider retries (with backoff) per model call.")
    host: str = Field("127.0.0.1", description="Address `askai serve` binds.")
    port: int = Field(4321, ge=0, le=65535, description="Port `askai serve` binds.")
    max_body_bytes: int = Field(
        32_768,
        ge=256,
        description="Largest request body accepted by /api/chat, in bytes (the question itself is limited by "
        "max_question_chars after decoding; 12 bytes per character covers a fully \\u-escaped question).",
    )
    heartbeat_seconds: float = Field(15.0, gt=0, description="Interval of SSE heartbeat comments.")
    index_reload_seconds: float = Field(
        2.0,
        ge=0,
        description="How often `askai serve` checks whether `askai index` swapped in a new index at ASKAI_CORPUS "
        "(and then serves it without a restart); 0: only on SIGHUP.",
    )
    cache_enabled: bool = Field(True, description="Serve a repeated question from the answer cache.")
    cache_size: int = Field(512, ge=1, description="Accepted answers the answer cache keeps before evicting.")
    cache_threshold: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Cosine similarity a paraphrase needs when the cache has embeddings; unset: the threshold "
        "measured for the embedding space (0.88 for the local all-MiniLM-L6-v2, 0.9 otherwise).",
    )
    cache_paraphrases: bool = Field(
        True,
        description="With an embedding model configured (`embeddings`), let the answer cache serve a paraphrase "
        "through it (still refused on any difference the contrast check finds); false: the same question only.",
    )
    cache_url: str | None = Field(
        None,
        description="Redis server shared by several `askai serve` processes for the answer cache, the rate "
        "limit and the stream cap (redis://host:6379/0); unset = in process memory. Losing Redis only costs "
        "cache misses (and the caps fall back to per process).",
    )
    cache_ttl_seconds: int = Field(
        7 * 24 * 3600, ge=1, description="Seconds a cached answer lives in the Redis cache after it is stored."
    )
    header_timeout_seconds: float = Field(
        10.0, gt=0, le=600, description="Time a client has to send a request's headers; then the connection closes."
    )
    body_timeout_seconds: float = Field(
        10.0, gt=0, le=600, description="Time a client has to send a request's body; then 408."
    )
    max_header_bytes: int = Field(
        16_384, ge=1024, le=1_048_576, description="Largest request line plus headers, whatever the HTTP parser; 431."
    )
    max_connections: int = Field(
        500,
        ge=2,
        le=100_000,
        description="Open connections at most; beyond it the oldest connection still waiting for a request closes.",
    )
    max_streams: int = Field(
        64, ge=1, le=100_000, description="Answers streamed at once; beyond it /api/chat answers 503 with Retry-After."
    )
    stream_lease_seconds: float = Field(
        15.0,
        ge=1,
        le=3600,
        description="With cache_url: how long a stream slot counted in Redis outlives a worker that died "
        "holding it (live workers renew theirs every third of it).",
    )
    rate_limit: str = Field(
        DEFAULT_RATE_LIMIT,
        description="Questions per client (limits syntax, e.g. '30/minute;5/second'; empty = no limit); beyond it 429.",
    )
    trusted_proxies: str = Field(
        "",
        description="Comma-separated proxy addresses (or '*') whose X-Forwarded-For names the client; "
        "empty = the client is the remote address.",
    )
    request_timeout_seconds: float = Field(
        120.0, gt=0, le=3600, description="Deadline of one question; then the stream ends with done (fallback)."
    )
    retry_after_seconds: int = Field(2, ge=1, le=3600, description="Retry-After sent with a 503 when streams are full.")
    token_chars: int = Field(
        24, ge=1, le=4096, description="About how many characters of the answer each SSE `token` event carries."
    )
    cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Other sites whose pages may call /api/chat from a browser (the embedded widget), comma "
        "separated, e.g. https://blog.example,https://docs.example; `*` allows any. Empty: same origin only.",
    )
    feedback_per_minute: int = Field(
        30, ge=1, le=10_000, description="Feedback posts one client address may send per minute (then 429)."
    )
    max_feedback_chars: int = Field(1000, ge=0, le=100_000, description="Longest feedback comment accepted.")
    suggestions: tuple[Annotated[str, Field(min_length=1, max_length=500, pattern=r"\S")], ...] = Field(
        (),
        description="Starter questions the widget offers on an empty panel (GET /api/suggestions, at most 3), "
        "as a JSON list; empty: the site's first catalog pages, phrased as questions.",
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        """Accept a comma- or space-separated string; insist on bare origins (no path)."""
        if isinstance(value, str):
            value = [part for part in re.split(r"[\s,]+", value) if part]
        if not isinstance(value, list | tuple):
            return value
        origins = []
        for origin in value:
            origin = str(origin).rstrip("/")
            if origin != "*" and not _ORIGIN.fullmatch(origin):
                raise ValueError(f"{origin!r} is not an origin like https://blog.example or http://127.0.0.1:8000")
            origins.append(origin)
        return tuple(origins)

    @field_validator("cache_url")
    @classmethod
    def _known_cache(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must be redis://host:port/db, rediss://... or unix:///path")
        return url

    @field_validator("rate_limit")
    @classmethod
    def _rate_limit_parses(cls, value: str) -> str:
        """Refuse a rate limit that the ``limits`` notation cannot read, at startup."""
        # The default is known good: every command reads settings, few need ``limits`` loaded.
        if value.strip() and value != DEFAULT_RATE_LIMIT:
            from limits import parse_many

            try:
                parse_many(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a rate limit like '30/minute' or '30/minute;5/second'") from None
        return value


class IndexingSettings(BaseModel):
    """What is indexed and how: the corpus source, its site URL, file limits, the index cache."""

    model_config = ConfigDict(frozen=True)

    corpus: Path | None = Field(
        None,
        description="A built index (`askai index ... --out DIR`), a Markdown/MDX docs tree, a built HTML site or a "
        "JSONL file; the bundled sample site when unset.",
    )
    site_url: str | None = Field(
        None,
        description="Where the `corpus` source folder is published, for page URLs derived from file paths "
        "(`askai index --base-url` for a built index). Not `base_url`, which is the model endpoint.",
    )
    max_page_bytes: int = Field(10_000_000, ge=1024, description="Larger source files are skipped when indexing.")
    max_front_matter_bytes: int = Field(
        65_536, ge=256, le=10_000_000, description="Longer front matter is skipped unparsed (YAML aliases can explode)."
    )
    index_cache_dir: Path | None = Field(
        None,
        description="Where BM25 indexes (and passage embeddings) of a corpus loaded in memory are cached by corpus "
        "fingerprint; a user cache folder when unset.",
    )


class StoreSettings(BaseModel):
    """Where state persists: the threads database, thread expiry and leases, the run log."""

    model_config = ConfigDict(frozen=True)

    thread_ttl_hours: float = Field(
        168.0, gt=0, description="Hours after its last answer a thread expires (HTTP and CLI refuse it then)."
    )
    thread_lease_seconds: float = Field(
        900.0, gt=0, description="Longest a streaming answer holds its thread against other requests (409)."
    )
    database_url: str | None = Field(
        None,
        description="Where threads persist: sqlite:///path or postgresql://...; `askai serve`/`askai chat` default "
        "to a SQLite file in the user data folder, the embedded graph to none.",
    )
    run_log: bool = Field(
        True, description="Log every answered question (stored as asked) with its gates, gaps and feedback."
    )

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, url: str | None) -> str | None:
        if url is not None and not (
            (url.startswith("sqlite:///") and len(url) > len("sqlite:///"))
            or url.startswith(("postgresql://", "postgres://"))
        ):
            raise ValueError("must be sqlite:///path or postgresql://user@host/database")
        return url


GROUPS: tuple[type[BaseModel], ...] = (AnswerSettings, ServingSettings, IndexingSettings, StoreSettings)
"""The settings groups; every field of ``Settings`` is declared in exactly one of them."""


class Settings(BaseSettings, AnswerSettings, ServingSettings, IndexingSettings, StoreSettings):
    """Every knob of askai-graph, with its default and meaning, read from ``ASKAI_*`` variables.

    The fields are declared in four groups (``AnswerSettings``, ``ServingSettings``,
    ``IndexingSettings``, ``StoreSettings``) and read flat, as before:
    ``settings.max_attempts``, ``ASKAI_MAX_ATTEMPTS``, ``Settings(max_attempts=2)``.
    ``Settings`` declares no field of its own.
    """

    model_config = SettingsConfigDict(env_prefix="ASKAI_", extra="ignore", frozen=True)

    @model_validator(mode="after")
    def _retrieval_has_embeddings(self) -> Settings:
        """Refuse dense or hybrid retrieval without an embedding model, at startup."""
        if self.retrieval in ("dense", "hybrid") and not self.embeddings:
            raise ValueError(
                f"retrieval={self.retrieval} needs an embedding model: set ASKAI_EMBEDDINGS=local or openai"
            )
        return self

    def with_overrides(self, overrides: RunOptions | dict[str, Any] | None) -> Settings:
        """Return a copy with the non-``None`` per-run overrides applied.

        The overrides are validated once (as ``RunOptions``, whose fields carry the same
        bounds as these); the copy never re-reads the environment or ``.env``.
        """
        if overrides is None:
            return self
        options = overrides if isinstance(overrides, RunOptions) else RunOptions.model_validate(overrides)
        update = options.model_dump(exclude_none=True)
        return self.model_copy(update=update) if update else self

    def group(self, group: type[G]) -> G:
        """Return this object's values of one settings group, as that group's model."""
        return group.model_construct(**{name: getattr(self, name) for name in group_fields(type(self), group)})



G = TypeVar("G", bound=BaseModel)


def group_fields(settings: type[BaseModel], group: type[BaseModel]) -> frozenset[str]:
    """Return the fields of ``settings`` (``Settings`` or a subclass) declared in ``group``.

    A field belongs to the group whose model declares it: ``group`` itself, or a subclass
    of it that extends no other group (a ``Settings`` subclass extends them all).
    """
    owners = [
        klass
        for klass in settings.__mro__
        if isinstance(klass, type) and issubclass(klass, group) and sum(issubclass(klass, g) for g in GROUPS) == 1
    ]
    declared = (name for klass in owners for name in vars(klass).get("__annotations__", {}))
    return frozenset(name for name in declared if name in settings.model_fields)


PER_RUN = (
    "max_attempts",
    "catalog_min_sources",
    "min_confidence",
    "min_answer_relevance",
    "min_intent_alignment",
    "top_k",
    "catalog_top_k",
    "critic_evidence_chars",
    "writer_evidence_chars",
)
"""The ``Settings`` fields a single run may override (``RunOptions``)."""


def _per_run(name: str) -> Any:
    """Declare the ``RunOptions`` field for ``Settings.<name>``: its bounds and description, default ``None``.

    The description says the default, so Studio shows it next to the field.
    """
    source = Settings.model_fields[name]
    description = f"{(source.description or '').rstrip('.')} (default {source.default})."
    field = FieldInfo(default=None, description=description)
    field.metadata = list(source.metadata)  # ge/le: the same bounds as the setting
    return field


class RunOptions(BaseModel):
    """Per-run overrides (the graph's context schema; Studio shows and edits these).

    Each field mirrors the ``Settings`` field of the same name (bounds and description);
    a field left ``None`` inherits the graph's configured ``Settings`` value.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int | None = _per_run("max_attempts")
    catalog_min_sources: int | None = _per_run("catalog_min_sources")
    min_confidence: float | None = _per_run("min_confidence")
    min_answer_relevance: float | None = _per_run("min_answer_relevance")
    min_intent_alignment: float | None = _per_run("min_intent_alignment")
    top_k: int | None = _per_run("top_k")
    catalog_top_k: int | None = _per_run("catalog_top_k")
    critic_evidence_chars: int | None = _per_run("critic_evidence_chars")
    writer_evidence_chars: int | None = _per_run("writer_evidence_chars")

