"""One typed settings object in four groups: defaults, ``ASKAI_*`` variables, per-run overrides.

``Settings`` reads every field flat (``settings.top_k``, ``ASKAI_TOP_K``); each field is
declared in one group, each in its own module: ``answer.AnswerSettings`` (what an answer
depends on; its digest names the answer cache), ``serving.ServingSettings``,
``indexing.IndexingSettings`` and ``stores.StoreSettings``. This module joins them into
``Settings`` and derives the per-run overrides (``RunOptions``) from it.

Precedence, lowest first: field defaults, ``ASKAI_*`` environment variables (read when
``Settings()`` is constructed), values passed to ``build_graph(settings=...)``, and per-run
``context={...}`` overrides (``RunOptions``). A per-run override always wins: the
environment never silently replaces what a caller asked for.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from askai_graph.settings.answer import AnswerSettings
from askai_graph.settings.indexing import IndexingSettings
from askai_graph.settings.messages import PerLocaleMessages
from askai_graph.settings.serving import DEFAULT_RATE_LIMIT, ServingSettings
from askai_graph.settings.stores import StoreSettings

__all__ = [
    "DEFAULT_RATE_LIMIT",
    "GROUPS",
    "PER_RUN",
    "AnswerSettings",
    "IndexingSettings",
    "RunOptions",
    "ServingSettings",
    "Settings",
    "StoreSettings",
    "group_fields",
]

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

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Read ``ASKAI_MESSAGES_<LOCALE>`` too (``messages.PerLocaleMessages``), over ``ASKAI_MESSAGES``."""
        return init_settings, PerLocaleMessages(settings_cls), env_settings, dotenv_settings, file_secret_settings

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
    "version",
    "locale",
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
    version: str | None = _per_run("version")
    locale: str | None = _per_run("locale")
    critic_evidence_chars: int | None = _per_run("critic_evidence_chars")
    writer_evidence_chars: int | None = _per_run("writer_evidence_chars")

