"""The server's fixed texts (fallback answer, degrade notice) in the reader's locale (issue #39)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from askai_graph import build_graph
from askai_graph.models.prompts import DEGRADED_NOTICE, FALLBACK_ANSWER
from askai_graph.nodes.finish import degrade, fallback
from askai_graph.settings import Settings
from tests.fakes import FakeRetriever

ES_FALLBACK = "No pude responder a eso de forma fiable con los artículos de este sitio."
ES_NOTICE = "**Nota:** esta respuesta no se pudo verificar por completo."
MESSAGES = {"es": {"fallback": ES_FALLBACK, "degraded_notice": ES_NOTICE}}


def test_the_fallback_is_in_the_readers_configured_locale() -> None:
    settings = Settings(messages=MESSAGES, locale="es")
    assert fallback({"question": "x"}, settings)["answer"] == ES_FALLBACK


def test_a_regional_locale_uses_its_languages_messages() -> None:
    settings = Settings(messages=MESSAGES, locale="es_MX")
    assert fallback({"question": "x"}, settings)["answer"] == ES_FALLBACK


@pytest.mark.parametrize("locale", [None, "en", "ja"])
def test_a_locale_the_site_does_not_configure_gets_english(locale: str | None) -> None:
    settings = Settings(messages=MESSAGES, locale=locale)
    assert fallback({"question": "x"}, settings)["answer"] == FALLBACK_ANSWER


def test_the_degrade_notice_is_in_the_readers_configured_locale() -> None:
    state = {"question": "x", "draft": "Una respuesta.", "search_results": []}
    answer = degrade(state, Settings(messages=MESSAGES, locale="es"))["answer"]  # type: ignore[arg-type]
    assert answer.startswith("Una respuesta.") and answer.endswith(ES_NOTICE)
    assert DEGRADED_NOTICE not in answer


def test_a_text_the_locale_leaves_out_stays_english() -> None:
    state = {"question": "x", "draft": "Una respuesta.", "search_results": []}
    settings = Settings(messages={"es": {"fallback": ES_FALLBACK}}, locale="es")
    assert degrade(state, settings)["answer"].endswith(DEGRADED_NOTICE)  # type: ignore[arg-type]


def test_messages_are_read_from_the_environment_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MESSAGES", json.dumps(MESSAGES))
    assert Settings().locale_messages("es").fallback == ES_FALLBACK


def test_messages_are_read_from_a_messages_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(MESSAGES), encoding="utf-8")
    monkeypatch.setenv("ASKAI_MESSAGES_FILE", str(path))
    settings = Settings()
    assert settings.locale_messages("es").degraded_notice == ES_NOTICE
    # Inline messages win for a text both give.
    inline = Settings(messages={"es": {"fallback": "Otra."}}, messages_file=path)
    assert inline.locale_messages("es").fallback == "Otra."
    assert inline.locale_messages("es").degraded_notice == ES_NOTICE


@pytest.mark.parametrize("content", ["{not json", json.dumps({"es": {"fallback": ""}}), json.dumps({"es": {"x": "y"}})])
def test_a_malformed_messages_file_is_refused_at_startup(tmp_path: Path, content: str) -> None:
    path = tmp_path / "messages.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises((ValidationError, ValueError)):
        Settings(messages_file=path)


def test_a_run_in_a_locale_falls_back_in_its_language() -> None:
    graph = build_graph(retriever=FakeRetriever(documents=[]), settings=Settings(messages=MESSAGES))
    result = graph.invoke({"question": "¿Cómo horneo pan de masa madre?"}, context={"locale": "es"})
    assert result["outcome"] == "fallback"
    assert result["answer"] == ES_FALLBACK
    english = graph.invoke({"question": "How do I bake sourdough bread?"})
    assert english["answer"] == FALLBACK_ANSWER


def test_one_locales_texts_are_read_from_its_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MESSAGES_ES", json.dumps({"fallback": ES_FALLBACK}))
    assert Settings().locale_messages("es-MX").fallback == ES_FALLBACK


def test_a_regional_locales_variable_writes_its_hyphen_as_an_underscore(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MESSAGES_PT_BR", json.dumps({"fallback": "Não consegui responder a isso."}))
    settings = Settings()
    assert settings.locale_messages("pt-BR").fallback == "Não consegui responder a isso."
    assert settings.locale_messages("pt-PT").fallback is None


def test_a_locales_own_variable_wins_over_its_entry_in_the_messages_text_by_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASKAI_MESSAGES", json.dumps({"es": {"fallback": "Vieja.", "degraded_notice": ES_NOTICE}}))
    monkeypatch.setenv("ASKAI_MESSAGES_ES", json.dumps({"fallback": ES_FALLBACK}))
    texts = Settings().locale_messages("es")
    assert (texts.fallback, texts.degraded_notice) == (ES_FALLBACK, ES_NOTICE)


@pytest.mark.parametrize("value", ["{not json", json.dumps({"fallback": ""}), json.dumps({"x": "y"})])
def test_a_malformed_locale_variable_is_refused_at_startup_naming_the_locale(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ASKAI_MESSAGES_ES", value)
    with pytest.raises(ValidationError, match=r"messages\.es"):
        Settings()
