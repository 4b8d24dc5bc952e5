"""Settings: defaults, ASKAI_* environment variables, and per-run overrides that win."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from askai_graph import RunOptions, Settings


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
