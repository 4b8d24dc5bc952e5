"""Read an MkDocs site's ``mkdocs.yml`` without running any of its code.

``mkdocs.yml`` is YAML with Python tags (``!!python/name:material.extensions.emoji.twemoji``,
``!ENV``, ``!relative``). MkDocs resolves them by importing Python; here a safe loader
reads every unknown tag as plain data (its scalar, list or mapping), so nothing is
imported or executed. What is used: ``site_url`` (the default base URL),
``use_directory_urls`` (``guide/install/`` or ``guide/install.html``), ``docs_dir``, and
``nav`` (titles, order and sections; external links are passed over).

A nav section without a label (``"": [...]``, which Material's ``navigation.indexes``
sites use) is named after its first page: the title the nav gives it, else that page's
own title.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from askai_graph.indexing.frontmatter import FrontMatterError, as_text, split_front_matter
from askai_graph.indexing.markup import first_h1
from askai_graph.indexing.nav import Nav

CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")
MAX_CONFIG_BYTES = 1_000_000


class _TolerantLoader(yaml.SafeLoader):
    """SafeLoader that reads any unknown tag as the plain value it decorates."""


def _plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    del suffix
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    return None  # pragma: no cover - every YAML node is one of the three


_TolerantLoader.add_multi_constructor("!", _plain)
_TolerantLoader.add_multi_constructor("tag:", _plain)


@dataclass(frozen=True)
class MkDocsSite:
    """What an ``mkdocs.yml`` says about the docs tree being indexed."""

    config: Path
    """The ``mkdocs.yml`` file."""
    site_url: str | None
    """``site_url``, where the site is published."""
    directory_urls: bool
    """``use_directory_urls`` (default true): ``page/`` rather than ``page.html``."""
    nav: Nav
    """The ``nav:`` pages by path relative to the docs root (empty without a nav)."""
    prefix: str
    """Path of the docs root inside the indexed folder ('' when the folder is the docs root)."""
    name: str | None = None
    """``site_name``: what the site calls itself (``llms.txt``'s title)."""
    language: str | None = None
    """``theme.language``: the language of the pages."""
    suffix_locales: tuple[str, ...] = ()
    """mkdocs-static-i18n (``docs_structure: suffix``): its languages, the default first."""


def load_yaml(path: Path) -> Any:
    """Return the YAML document at ``path``, unknown tags read as plain data.

    Raises:
        ValueError: the file is too large or not valid YAML.
    """
    data = path.read_bytes()
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        return yaml.load(data, Loader=_TolerantLoader)  # noqa: S506 - a safe loader with inert tags
    except yaml.YAMLError as exc:
        where = ""
        if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
            where = f" at line {exc.problem_mark.line + 1}"
        problem = exc.problem if isinstance(exc, yaml.MarkedYAMLError) and exc.problem else str(exc)
        raise ValueError(f"{path.name} is not valid YAML ({' '.join(problem.split())}{where})") from None


def find_mkdocs(root: Path) -> MkDocsSite | None:
    """Return the MkDocs site whose docs root is (or holds) ``root``, or ``None``.

    The config is looked for in ``root`` (its ``docs_dir`` is then a folder inside) and
    in ``root``'s parent (MkDocs' own layout: ``mkdocs.yml`` beside ``docs/``).

    Raises:
        ValueError: the config exists but cannot be read.
    """
    resolved = root.resolve()
    for folder in (resolved, resolved.parent):
        for name in CONFIG_NAMES:
            path = folder / name
            if not path.is_file():
                continue
            config = load_yaml(path)
            if not isinstance(config, dict):
                raise ValueError(f"{path.name} is not a mapping of settings")
            docs = (folder / str(config.get("docs_dir") or "docs")).resolve()
            if docs == resolved or (folder == resolved and docs.is_relative_to(resolved)):
                prefix = "" if docs == resolved else docs.relative_to(resolved).as_posix() + "/"
                return _site(path, config, docs, prefix)
    return None


def _site(path: Path, config: dict[str, Any], docs: Path, prefix: str) -> MkDocsSite:
    site_url, name = config.get("site_url"), config.get("site_name")
    nav = Nav()
    if isinstance(config.get("nav"), list):
        _walk_nav(config["nav"], "", nav, docs)
    return MkDocsSite(
        config=path,
        site_url=site_url.strip() if isinstance(site_url, str) and site_url.strip() else None,
        directory_urls=config.get("use_directory_urls", True) is not False,
        nav=nav,
        prefix=prefix,
        name=name.strip() if isinstance(name, str) and name.strip() else None,
        language=_theme_language(config.get("theme")),
        suffix_locales=_suffix_locales(config.get("plugins")),
    )


def _theme_language(theme: Any) -> str | None:
    language = theme.get("language") if isinstance(theme, dict) else None
    return language.strip() if isinstance(language, str) and language.strip() else None


def _suffix_locales(plugins: Any) -> tuple[str, ...]:
    """Return mkdocs-static-i18n's languages (the default first) when its pages are named ``page.<locale>.md``."""
    entries = plugins if isinstance(plugins, list) else [plugins] if isinstance(plugins, dict) else []
    for entry in entries:
        options = entry.get("i18n") if isinstance(entry, dict) else None
        if not isinstance(options, dict) or options.get("docs_structure", "suffix") != "suffix":
            continue
        found = [lang for lang in options.get("languages") or () if isinstance(lang, dict)]
        locales = [(not lang.get("default"), str(lang.get("locale")).strip()) for lang in found if lang.get("locale")]
        return tuple(locale for _, locale in sorted(locales, key=lambda pair: pair[0]))
    return ()


def _walk_nav(items: list[Any], section: str, nav: Nav, docs: Path) -> None:
    for item in items:
        if isinstance(item, str):
            _add(nav, item, None, section)
        elif isinstance(item, dict):
            for label, value in item.items():
                label = as_text(label)
                if isinstance(value, str):
                    _add(nav, value, label, section)
                elif isinstance(value, list):
                    _walk_nav(value, label or _first_title(value, docs) or section, nav, docs)


def _add(nav: Nav, target: str, title: str | None, section: str) -> None:
    target = target.strip()
    if "://" in target or target.startswith(("/", "#", "mailto:")):
        return  # an external link in the nav is no page of this tree
    nav.add(target[2:] if target.startswith("./") else target, title, section)


def _first_title(items: list[Any], docs: Path) -> str:
    """Return the title of a label-less section's first page (nav title, else the page's own)."""
    for item in items:
        if isinstance(item, dict):
            for label, value in item.items():
                if isinstance(value, str) and as_text(label):
                    return as_text(label)
            return ""
        if isinstance(item, str):
            return page_title(docs / item)
    return ""


def page_title(path: Path) -> str:
    """Return a page's own title: front matter ``title``, else its first H1 ('' if unreadable)."""
    try:
        meta, body = split_front_matter(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, FrontMatterError):
        return ""
    return as_text(meta.get("title")) or first_h1(body)
