"""The server's fixed texts in the reader's language: the messages settings group's model.

A site translated into Spanish wants its fallback answer and its degrade notice in
Spanish for a reader of the Spanish pages. The site configures them per locale
(``ASKAI_MESSAGES`` as JSON, or ``ASKAI_MESSAGES_FILE``, a JSON file of the same shape:
``{"es": {"fallback": "...", "degraded_notice": "..."}}``), or one variable per locale,
``ASKAI_MESSAGES_<LOCALE>`` holding that locale's object (``ASKAI_MESSAGES_ES='{"fallback":
"..."}'``): the locale code upper-cased with ``-`` written ``_`` (``pt-BR`` is
``ASKAI_MESSAGES_PT_BR``), which a variable name can spell. A locale it does not list,
and a text it leaves out, stay English (``models.prompts``).
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic_settings import PydanticBaseSettingsSource

# ASKAI_MESSAGES_ES, ASKAI_MESSAGES_PT_BR: a language code's shape, so ASKAI_MESSAGES_FILE is none.
_PER_LOCALE = re.compile(r"^ASKAI_MESSAGES_([A-Z]{2,3}(?:_[A-Z0-9]{2,8})*)$", re.IGNORECASE)


class LocaleMessages(BaseModel):
    """One locale's fixed texts; a text left unset is the English default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fallback: str | None = Field(None, min_length=1, description="The answer when nothing usable could be written.")
    degraded_notice: str | None = Field(
        None, min_length=1, description="The note under an answer that could not be fully verified."
    )


MESSAGES = TypeAdapter(dict[str, LocaleMessages])
"""Validates a mapping of locale to its ``LocaleMessages``."""


@lru_cache(maxsize=8)
def load_messages(path: Path) -> dict[str, LocaleMessages]:
    """Read a messages file (JSON: locale to ``LocaleMessages``), once; a malformed one raises ``ValueError``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"messages file {path}: {exc}") from exc
    return MESSAGES.validate_python(data)


def locale_key(locale: str | None) -> str:
    """Return ``locale`` as the messages are looked up: lower case, ``-`` between subtags."""
    return (locale or "").strip().lower().replace("_", "-")


def messages_for(messages: dict[str, LocaleMessages], locale: str | None) -> LocaleMessages:
    """Return the texts configured for ``locale`` (``es-MX`` falls back to ``es``), else none (English)."""
    by_key = {locale_key(key): value for key, value in messages.items()}
    key = locale_key(locale)
    if not key:
        return LocaleMessages()
    return by_key.get(key) or by_key.get(key.split("-")[0]) or LocaleMessages()


class PerLocaleMessages(PydanticBaseSettingsSource):
    """The ``messages`` that ``ASKAI_MESSAGES_<LOCALE>`` variables give, one locale each.

    A settings source of its own, so pydantic-settings merges it into ``messages``
    (``ASKAI_MESSAGES``) locale by locale and text by text, this one winning: the variable
    naming one locale is the more specific. A value that is not JSON is passed on as it
    is, for ``messages``' validation to refuse with the locale's name.
    """

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: ``__call__`` reads every variable at once."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        """Return ``{"messages": {locale: texts}}`` for the variables set, or nothing."""
        found: dict[str, Any] = {}
        for name, value in os.environ.items():
            match = _PER_LOCALE.match(name)
            if match is None:
                continue
            try:
                found[locale_key(match.group(1))] = json.loads(value)
            except json.JSONDecodeError:
                found[locale_key(match.group(1))] = value
        return {"messages": found} if found else {}
