"""How the server and the command line talk: the serving settings group."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from askai_graph.settings.messages import LocaleMessages, load_messages, messages_for

# A CSP source a site owner may list as a frame ancestor: no ';' or ',' can smuggle another directive.
_FRAME_SOURCE = re.compile(r"'self'|'none'|https?://(?:\*\.)?[A-Za-z0-9.-]+(?::\d{1,5})?")

_ORIGIN = re.compile(r"https?://[^/\s?#@]+")

DEFAULT_RATE_LIMIT = "30/minute"
"""Questions per client unless ``rate_limit`` says otherwise."""


class ServingSettings(BaseModel):
    """How the server and the command line talk: limits, CORS, the answer cache store, requests."""

    model_config = ConfigDict(frozen=True)

    max_question_chars: int = Field(2000, ge=10, le=100_000, description="Longest question accepted.")
    api_key: SecretStr | None = Field(None, description="API key for the endpoint (any string for local servers).")
    timeout: float = Field(60.0, gt=0, le=3600, description="Seconds one model request may take.")
    max_retries: int = Field(2, ge=0, le=10, description="Provider retries (with backoff) per model call.")
    embeddings_device: str = Field(
        "auto",
        pattern=r"^(auto|cpu|mps|(cuda|xpu)(:\d{1,2})?)$",
        description="Where the local embedding model (`embeddings` local) runs: auto (a CUDA GPU when PyTorch "
        "sees one, else Apple's mps, else cpu), or a PyTorch device: cpu, cuda, cuda:1, mps, xpu. Questions are "
        "embedded on the cpu without PyTorch (the same vectors) unless a device other than cpu is named. The vectors "
        "are the same model's wherever it runs, so this is no part of what an answer depends on.",
    )
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
    messages: dict[str, LocaleMessages] = Field(
        default_factory=dict,
        description="The fixed texts (fallback answer, degrade notice) per reader locale, as JSON: "
        '{"es": {"fallback": "...", "degraded_notice": "..."}}; a locale not listed gets English. One locale '
        "may have a variable of its own, ASKAI_MESSAGES_<LOCALE> (pt-BR: ASKAI_MESSAGES_PT_BR), holding its "
        "object; it wins over the same locale's texts here.",
    )
    messages_file: Path | None = Field(
        None,
        description="A JSON file of the same shape as `messages`, read at startup; `messages` wins for a locale "
        "both list.",
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
    max_connections_per_client: int = Field(
        64,
        ge=1,
        le=100_000,
        description="Open connections one client address may hold (per server process); beyond it a new one gets "
        "503 and is closed at once, before the app. Connections from trusted_proxies are not counted.",
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
    collaborator_threads: int = Field(
        32,
        ge=1,
        le=1024,
        description="Worker threads for blocking collaborator calls (a sync retriever or model); the run log, "
        "feedback and the cache's bookkeeping have a pool of their own, so hung calls never hold back a done.",
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
    frame_ancestors: str = Field(
        "'self'",
        description="Which pages may frame GET / (its Content-Security-Policy frame-ancestors): 'self', 'none', "
        "or the origins of the sites that embed the page, space separated (https://blog.example).",
    )
    api_docs: bool = Field(
        False, description="Serve the interactive API docs at /docs and /redoc (off: /openapi.json only)."
    )
    admin_token: SecretStr | None = Field(
        None,
        description="Turns on the site owner's dashboard at /admin: signing in with this token (at least 16 "
        "characters) gives a session cookie; unset: /admin does not exist (404).",
    )
    feedback_per_minute: int = Field(
        30, ge=1, le=10_000, description="Feedback posts one client address may send per minute (then 429)."
    )
    search_per_minute: int = Field(
        600,
        ge=1,
        le=100_000,
        description="Searches (GET /api/search, sent as a reader types) one client address may make per minute "
        "(then 429); counted apart from questions.",
    )
    search_settle_seconds: float = Field(
        30.0,
        ge=0,
        le=600,
        description="How long a reader's search waits before the search log keeps it: their next search replaces "
        "it when one query extends the other (a word still being typed), as hosted search analytics count only "
        "the query a reader settled on; opening a result or asking keeps it at once. 0: every search is kept.",
    )
    max_feedback_chars: int = Field(1000, ge=0, le=100_000, description="Longest feedback comment accepted.")
    suggestions: tuple[Annotated[str, Field(min_length=1, max_length=500, pattern=r"\S")], ...] = Field(
        (),
        description="Starter questions the widget offers on an empty panel (GET /api/suggestions, at most 3), "
        "as a JSON list; empty: the site's first catalog pages, phrased as questions.",
    )

    @field_validator("messages_file")
    @classmethod
    def _readable_messages(cls, path: Path | None) -> Path | None:
        """Refuse a messages file that is missing or malformed, at startup rather than on a fallback."""
        if path is not None:
            load_messages(path)
        return path

    def locale_messages(self, locale: str | None) -> LocaleMessages:
        """Return the fixed texts configured for ``locale`` (``messages``, then ``messages_file``); unset is English."""
        inline = messages_for(self.messages, locale)
        if self.messages_file is None:
            return inline
        listed = messages_for(load_messages(self.messages_file), locale)
        notice = inline.degraded_notice or listed.degraded_notice
        return LocaleMessages(fallback=inline.fallback or listed.fallback, degraded_notice=notice)

    @field_validator("frame_ancestors")
    @classmethod
    def _frame_ancestors(cls, value: str) -> str:
        sources = value.split()
        if not sources or not all(_FRAME_SOURCE.fullmatch(source) for source in sources):
            raise ValueError("must be 'self', 'none' or origins such as https://blog.example, space separated")
        if "'none'" in sources and len(sources) > 1:
            raise ValueError("'none' stands alone")
        return " ".join(sources)

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

    @field_validator("admin_token")
    @classmethod
    def _long_admin_token(cls, token: SecretStr | None) -> SecretStr | None:
        if token is not None and len(token.get_secret_value()) < 16:
            raise ValueError("must be at least 16 characters (for example: python -c 'import secrets; "
                             "print(secrets.token_urlsafe(32))')")
        return token

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
