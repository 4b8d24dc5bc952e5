"""Settings: defaults, ASKAI_* environment variables, and per-run overrides that win."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError, create_model

from askai_graph import RunOptions, Settings
from askai_graph.settings import GROUPS, AnswerSettings, IndexingSettings, ServingSettings, StoreSettings, group_fields


def test_defaults_match_the_design() -> None:
    s = Settings()
    assert (s.max_attempts, s.catalog_min_sources, s.host, s.port) == (3, 4, "127.0.0.1", 4321)


def test_environment_variables_configure_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MAX_ATTEMPTS", "5")
    monkeypatch.setenv("ASKAI_MIN_CONFIDENCE", "0.8")
    assert (Settings().max_attempts, Settings().min_confidence) == (5, 0.8)


def test_per_run_overrides_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MAX_ATTEMPTS", "5")
    assert Settings().with_overrides({"max_attempts": 1}).max_attempts == 1


def test_unset_per_run_fields_inherit_the_configured_value() -> None:
    assert Settings(max_attempts=7).with_overrides(RunOptions(top_k=2)).max_attempts == 7


@pytest.mark.parametrize("overrides", [{"max_attempts": 0}, {"min_confidence": 2}, {"no_such": 1}])
def test_invalid_per_run_overrides_are_rejected(overrides: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Settings().with_overrides(overrides)


def test_invalid_environment_value_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_MAX_ATTEMPTS", "many")
    with pytest.raises(ValidationError):
        Settings()


def test_run_options_cover_only_per_run_knobs() -> None:
    assert set(RunOptions.model_fields) <= set(Settings.model_fields)
    assert "api_key" not in RunOptions.model_fields


@pytest.mark.parametrize("name", list(RunOptions.model_fields))
def test_run_options_take_bounds_and_description_from_settings(name: str) -> None:
    option, setting = RunOptions.model_fields[name], Settings.model_fields[name]
    assert option.default is None and option.metadata == setting.metadata
    assert option.description == f"{(setting.description or '').rstrip('.')} (default {setting.default})."


def test_run_options_are_immutable() -> None:
    with pytest.raises(ValidationError):
        RunOptions(top_k=2).top_k = 3  # type: ignore[misc]


# --- settings groups ---------------------------------------------------------------


def test_every_setting_is_declared_in_exactly_one_group() -> None:
    owners = {name: [g for g in GROUPS if name in group_fields(Settings, g)] for name in Settings.model_fields}
    assert {name: groups for name, groups in owners.items() if len(groups) != 1} == {}


@pytest.mark.parametrize(
    ("variable", "value", "group"),
    [
        ("ASKAI_MAX_ATTEMPTS", 5, AnswerSettings),
        ("ASKAI_PORT", 8080, ServingSettings),
        ("ASKAI_MAX_PAGE_BYTES", 2048, IndexingSettings),
        ("ASKAI_THREAD_TTL_HOURS", 2, StoreSettings),
    ],
)
def test_a_grouped_setting_keeps_its_flat_environment_name(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: int, group: type[BaseModel]
) -> None:
    name = variable.removeprefix("ASKAI_").lower()
    monkeypatch.setenv(variable, str(value))
    settings = Settings()
    assert name in group_fields(Settings, group)
    assert getattr(settings, name) == value == getattr(settings.group(group), name)


@pytest.mark.parametrize("group", GROUPS, ids=lambda group: group.__name__)
def test_only_a_field_added_to_the_answer_group_moves_the_cache_namespace(group: type[BaseModel]) -> None:
    from askai_graph.server.answers.cache import config_digest

    extra = create_model("Extra", __base__=group, extra_knob=(int, Field(1, description="A knob added later.")))
    extended = type("Extended", (Settings, extra), {"__module__": __name__})
    assert "extra_knob" in group_fields(extended, group)
    moved = config_digest(extended(extra_knob=2)) != config_digest(extended())
    assert moved == (group is AnswerSettings)
