"""Read a Hugo site's config without running Hugo: where it is published, and its languages.

The config is ``hugo.(toml|yaml|yml|json)``, or ``config.(toml|yaml|json)`` with a
``baseURL`` (a ``config.toml`` without one belongs to some other tool), beside the folder
given or in its parent (the site root, when the folder given is ``content/``). Hugo reads
its config keys case aside, and so does this.

What is used: ``baseURL``; ``contentDir`` (default ``content``); ``defaultContentLanguage``
(default ``en``) and ``defaultContentLanguageInSubdir`` (default false: the default
language is served at the site root, every other under ``/<lang>/``); ``languages``,
each with its ``weight`` (Hugo's order), ``contentDir``, ``baseURL`` (a site served per
host) and ``disabled``; ``disableLanguages``.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

CONFIG_NAMES = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml", "config.json")


@dataclass(frozen=True)
class HugoLanguage:
    """One language the config lists."""

    code: str
    """Its key in ``languages``: what its URLs and ``page.<code>.md`` files spell."""
    content_dir: Path | None = None
    """Its own content folder (``languages.<code>.contentDir``), when the site translates by folder."""
    base_url: str | None = None
    """Its own ``baseURL`` (a site served per host), if the config gives one."""


@dataclass(frozen=True)
class HugoSite:
    """What a Hugo config says about the content being indexed."""

    config: Path
    """The config file."""
    base_url: str
    """``baseURL`` ('' when the config has none)."""
    content_dir: Path
    """The site's content folder (``contentDir``, default ``content``), resolved."""
    languages: tuple[HugoLanguage, ...] = ()
    """``languages`` in Hugo's order (weight, then code), disabled ones left out; empty without the table."""
    default_language: str = "en"
    """``defaultContentLanguage``."""
    default_in_subdir: bool = False
    """``defaultContentLanguageInSubdir``: the default language is served under ``/<lang>/`` too."""


def find_hugo(root: Path) -> HugoSite | None:
    """Return what the Hugo config beside ``root`` (or in its parent) says, or ``None`` without one."""
    resolved = root.resolve()
    for folder in (resolved, resolved.parent):
        for name in CONFIG_NAMES:
            config = _read(folder / name)
            if config is None:
                continue
            if name.startswith("config.") and "baseurl" not in config:
                continue  # a config.toml of some other tool
            return _site(folder / name, config)
    return None


def _read(path: Path) -> dict[str, Any] | None:
    """Return the config at ``path`` with its keys in lower case (Hugo's), or ``None`` if it is no usable config."""
    if not path.is_file():
        return None
    try:
        text = path.read_text("utf-8")
        config = (
            tomllib.loads(text)
            if path.suffix == ".toml"
            else json.loads(text)
            if path.suffix == ".json"
            else yaml.safe_load(text)
        )
    except (OSError, ValueError, yaml.YAMLError):
        return None
    return _lowered(config) if isinstance(config, dict) else None


def _lowered(table: dict[Any, Any]) -> dict[str, Any]:
    return {str(key).lower(): value for key, value in table.items()}


def _site(path: Path, config: dict[str, Any]) -> HugoSite:
    home = path.parent
    base = config.get("baseurl")
    content = config.get("contentdir")
    default = config.get("defaultcontentlanguage")
    disabled = config.get("disablelanguages")
    off = {str(code) for code in disabled} if isinstance(disabled, list) else set()
    return HugoSite(
        config=path,
        base_url=base.strip() if isinstance(base, str) else "",
        content_dir=(home / content).resolve() if isinstance(content, str) and content.strip() else home / "content",
        languages=_languages(config.get("languages"), home, off),
        default_language=default.strip() if isinstance(default, str) and default.strip() else "en",
        default_in_subdir=config.get("defaultcontentlanguageinsubdir") is True,
    )


def _languages(table: Any, home: Path, off: set[str]) -> tuple[HugoLanguage, ...]:
    if not isinstance(table, dict):
        return ()
    found: list[tuple[float, str, HugoLanguage]] = []
    for code, raw in table.items():
        settings = _lowered(raw) if isinstance(raw, dict) else {}
        if str(code) in off or settings.get("disabled") is True:
            continue
        weight = settings.get("weight")
        content, base = settings.get("contentdir"), settings.get("baseurl")
        language = HugoLanguage(
            str(code),
            (home / content).resolve() if isinstance(content, str) and content.strip() else None,
            base.strip() if isinstance(base, str) and base.strip() else None,
        )
        # Hugo orders languages by weight (unset or 0 last), then by code.
        order = float(weight) if isinstance(weight, int | float) and weight > 0 else float("inf")
        found.append((order, str(code), language))
    return tuple(language for _, _, language in sorted(found, key=lambda item: item[:2]))
