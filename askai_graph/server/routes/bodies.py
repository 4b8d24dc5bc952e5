"""The request bodies of the HTTP API as pydantic models: ``ChatBody``, ``FeedbackBody``, ``SearchClickBody``.

Each model is both the check and the documentation: a route validates its decoded body
with it (``request.read_json``, strictly, with the app's ``Settings`` as context for
the limits), and ``openapi.request_body`` publishes its JSON Schema as the route's
request body. Unknown fields are refused (``extra="forbid"``): a typo or an option the
API does not have (``max_attempts``) is never silently ignored. A validator's
``ValueError`` completes the sentence "'<field>' ..." of the 422 (``request.refusal``).
"""

from __future__ import annotations

import re
import unicodedata

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from askai_graph.rules.question import QuestionError, checked_question
from askai_graph.server.answers.same_question import clean_question
from askai_graph.settings import Settings
from askai_graph.settings.answer import LOCALE_PATTERN, VERSION_PATTERN
from askai_graph.stores.runlog import Rating
from askai_graph.stores.thread_tokens import THREAD_TOKEN_FORMAT, THREAD_TOKEN_PATTERN, is_thread_token
from askai_graph.stores.threads import THREAD_ID_FORMAT, THREAD_ID_PATTERN, is_thread_id

SEARCH_ID_PATTERN = r"^[0-9a-f]{32}$"
"""What a ``search_id`` looks like (``stores.runlog.searches.SearchRecord``: a random UUID's hex)."""
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


def _settings(info: ValidationInfo) -> Settings:
    """The app's settings, passed as the validation context (the limits are settings)."""
    settings = (info.context or {}).get("settings")
    if not isinstance(settings, Settings):
        raise TypeError("validate request bodies with context={'settings': Settings(...)}")
    return settings


def _unicode(text: str) -> str:
    # Only a string decoded from JSON ``\ud800`` escapes holds one; the strict ``str`` check accepts it.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid Unicode (unpaired surrogate)") from None
    return text


class ChatBody(BaseModel):
    """``POST /api/chat``: a question, maybe a follow-up on a conversation this server started."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_extra={"examples": [{"message": "What course articles do you have?"}]}
    )

    message: str = Field(
        description="The question; at most max_question_chars characters (2000 by default) after decoding and "
        "cleaning. The whole body is at most max_body_bytes bytes (32768 by default).",
        json_schema_extra={"minLength": 1, "pattern": r"\S"},
    )
    thread_id: str | None = Field(
        None,
        description="Continue this conversation (the thread_id a done event carried); absent or null starts a new one.",
        json_schema_extra={"pattern": THREAD_ID_PATTERN},
    )
    thread_token: str | None = Field(
        None,
        description="The secret of that conversation (the thread_token its done event carried). Without it, or "
        "with another, thread_id is refused with 404 exactly like an id this server never issued; without "
        "thread_id it is ignored.",
        json_schema_extra={"pattern": THREAD_TOKEN_PATTERN},
    )

    version: str | None = Field(
        None,
        description="The docs version the reader reads (a site indexed with versions): answers and cards come from "
        "its pages only. Absent or null: the site's default (its latest release).",
        pattern=VERSION_PATTERN,
    )
    locale: str | None = Field(
        None,
        description="The reader's language (a site indexed with languages): answers and cards come from its pages, "
        "a page not translated yet from the default language's (its card says so). Absent or null: the default.",
        pattern=LOCALE_PATTERN,
    )

    search_id: str | None = Field(
        None,
        description="The search_id of the GET /api/search response the reader asked from (the launcher's Ask row "
        "or Ctrl-Enter): the run log links the question to that search, so a search followed by a question that "
        "ended in fallback shows among the coverage gaps. Absent or null: not asked from a search.",
        json_schema_extra={"pattern": SEARCH_ID_PATTERN},
    )

    def scope(self) -> dict[str, str]:
        """Return the reader's version and language, as far as the request names them."""
        return {key: value for key, value in (("version", self.version), ("locale", self.locale)) if value}

    @field_validator("message")
    @classmethod
    def _question(cls, message: str, info: ValidationInfo) -> str:
        """Return the question cleaned as the graph reads it, within ``max_question_chars``."""
        try:
            return checked_question(clean_question(_unicode(message)), _settings(info))
        except QuestionError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("thread_id", mode="before")
    @classmethod
    def _issued_here(cls, thread_id: object) -> object:
        # Before the type check: a number is as much "not an id of ours" as a wrong string.
        if thread_id is not None and not is_thread_id(thread_id):
            raise ValueError(f"must be an id this server issued ({THREAD_ID_FORMAT})")
        return thread_id

    @field_validator("search_id", mode="before")
    @classmethod
    def _a_search_id(cls, search_id: object) -> object:
        if search_id is not None and not (isinstance(search_id, str) and re.fullmatch(SEARCH_ID_PATTERN, search_id)):
            raise ValueError("must be the search_id of a GET /api/search response (32 hexadecimal digits)")
        return search_id

    @field_validator("thread_token", mode="before")
    @classmethod
    def _a_token(cls, thread_token: object) -> object:
        # A well-formed token without a thread_id is ignored (a new conversation gets its own):
        # the OpenAPI document cannot say "only with thread_id", and every request it calls
        # valid is accepted.
        if thread_token is not None and not is_thread_token(thread_token):
            raise ValueError(f"must be {THREAD_TOKEN_FORMAT}")
        return thread_token


class FeedbackBody(BaseModel):
    """``POST /api/feedback``: a reader's rating of one answer, maybe with a comment."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={"examples": [{"run_id": "6f1c1c9e-3d1a-4b7e-9a43-2f1d3c4b5a69", "rating": "up"}]},
    )

    run_id: str = Field(
        description="The run_id of the answer's done event.", json_schema_extra={"pattern": f"^{_UUID}$"}
    )
    rating: Rating
    comment: str | None = Field(None, description="Optional; at most max_feedback_chars characters (1000 by default).")

    @field_validator("run_id")
    @classmethod
    def _a_run_id(cls, run_id: str) -> str:
        if not re.fullmatch(_UUID, run_id):
            raise ValueError("must be the run_id of an answer's done event (a UUID)")
        return run_id.lower()

    @field_validator("comment")
    @classmethod
    def _within_limit(cls, comment: str | None, info: ValidationInfo) -> str | None:
        """Return the comment NFKC-normalised and stripped (``None`` when blank), within ``max_feedback_chars``.

        NFKC first: a fullwidth ``＋`` or ``＝`` is the formula sign a spreadsheet may read,
        and the dashboard's CSV export checks the text as stored.
        """
        comment = unicodedata.normalize("NFKC", _unicode(comment)).strip() if comment else None
        limit = _settings(info).max_feedback_chars
        if comment and len(comment) > limit:
            raise ValueError(f"is {len(comment)} characters; the limit is {limit}")
        return comment or None


MAX_URL_CHARS = 2048
"""The longest result URL a click may name."""


class SearchClickBody(BaseModel):
    """``POST /api/search/click``: the search result a reader opened, and the query that found it."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={"examples": [{"query": "bm25 tuning", "url": "https://docs.example.com/bm25/#tuning"}]},
    )

    query: str = Field(
        description="The query as searched; at most max_question_chars characters.",
        json_schema_extra={"minLength": 1, "pattern": r"\S"},
    )
    url: str = Field(
        description="The opened result's URL (a section anchor of one of the site's pages).",
        json_schema_extra={"pattern": r"^https?://\S+$", "maxLength": MAX_URL_CHARS},
    )

    @field_validator("query")
    @classmethod
    def _a_query(cls, query: str, info: ValidationInfo) -> str:
        query = " ".join(_unicode(query).split())
        limit = _settings(info).max_question_chars
        if not query:
            raise ValueError("is empty: send the query the result was found with")
        if len(query) > limit:
            raise ValueError(f"is {len(query)} characters; a search is at most a question's {limit}")
        return query

    @field_validator("url")
    @classmethod
    def _a_url(cls, url: str) -> str:
        if not re.fullmatch(r"https?://\S+", url) or len(url) > MAX_URL_CHARS:
            raise ValueError(f"must be an http(s) URL of at most {MAX_URL_CHARS} characters")
        return url
