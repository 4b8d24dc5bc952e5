"""Read a Docusaurus site's config and sidebars without running any of its code.

``docusaurus.config.(js|mjs|ts|cjs)`` is a program. Only literal values are read from it,
by a conservative static reader: ``url: '...'``, ``baseUrl: '...'``, ``trailingSlash:
true|false`` and the docs plugin's ``routeBasePath: '...'``, each the first such literal
in the file. Anything computed (``url: process.env.URL``) is not a literal and is left to
the command-line flags. ``sidebars.json`` is JSON; ``sidebars.(js|ts)`` is read only when
its exported value is a plain object literal that converts to JSON (quotes, comments
and trailing commas normalised), and is otherwise reported as unreadable.

Sidebar entries give the reading order and sections (categories) by doc id; a page's id
is its folder plus front matter ``id`` (else its file name without number prefix).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from askai_graph.indexing.files import Skip
from askai_graph.indexing.nav import Nav

CONFIG_NAMES = tuple(f"docusaurus.config.{ext}" for ext in ("js", "mjs", "ts", "cjs"))
SIDEBAR_NAMES = ("sidebars.json", "sidebars.js", "sidebars.ts", "sidebars.mjs", "sidebars.cjs")
MAX_FILE_BYTES = 1_000_000
_STRING = r"""(?:'([^'\\\n]*)'|"([^"\\\n]*)"|`([^`$\\]*)`)"""
DEFAULT_ROUTE = "docs"
"""Docusaurus' ``routeBasePath`` when the config sets none."""
_KEY = r"(?:^|[\s{,])['\"]?{key}['\"]?\s*:\s*"
_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\"'\w])//[^\n]*", re.DOTALL)


@dataclass(frozen=True)
class DocusaurusSite:
    """What a Docusaurus site's config and sidebars say about its docs."""

    url: str | None
    """``url`` joined with ``baseUrl`` and the docs' ``routeBasePath``: where the docs tree is published."""
    trailing_slash: bool | None
    """``trailingSlash``; ``None`` when unset (pages are served as their own links say: no slash)."""
    nav: Nav
    """The sidebars' docs by doc id, in order."""
    notes: tuple[Skip, ...] = ()
    """Files that exist but could not be read statically, and why."""
    title: str | None = None
    """The config's ``title``: what the site calls itself (``llms.txt``'s title)."""
    folder: Path | None = None
    """The site folder: where the config or the sidebars are, and ``versions.json``, ``versioned_docs``, ``i18n``."""
    last_version: str | None = None
    """The docs plugin's ``lastVersion`` literal: the version served at the docs' root (``current``: ``docs/``)."""
    default_locale: str | None = None
    """The ``i18n.defaultLocale`` literal."""
    route: str = DEFAULT_ROUTE
    """The docs plugin's ``routeBasePath`` (without slashes; '' for docs at the site's root), else ``docs``."""


def find_docusaurus(root: Path) -> DocusaurusSite | None:
    """Return the Docusaurus site ``root`` (a docs folder or a site folder) belongs to, or ``None``."""
    resolved = root.resolve()
    folders = [resolved, resolved.parent, resolved.parent / "website"]
    config = next((f / n for f in folders for n in CONFIG_NAMES if (f / n).is_file()), None)
    if config is not None:
        folders.insert(0, config.parent)
    sidebars = next((f / n for f in folders for n in SIDEBAR_NAMES if (f / n).is_file()), None)
    if config is None and sidebars is None:
        return None
    notes: list[Skip] = []
    url, trailing, title, last, locale, route = None, None, None, None, None, DEFAULT_ROUTE
    if config is not None:
        source = _read(config)
        url, trailing, route = _site_url(source), _literal_bool(source, "trailingSlash"), _route(source)
        title = (literal_string(source, "title") or "").strip() or None  # the first one: the site's, not the navbar's
        last, locale = literal_string(source, "lastVersion"), literal_string(source, "defaultLocale")
    nav = sidebar_nav(sidebars, notes) if sidebars is not None else Nav()
    folder = (config or sidebars or resolved).parent
    return DocusaurusSite(url=url, trailing_slash=trailing, nav=nav, notes=tuple(notes), title=title, folder=folder,
                          last_version=last, default_locale=locale, route=route)


def sidebar_nav(path: Path, notes: list[Skip]) -> Nav:
    """Return the nav of the sidebars file at ``path``; an unreadable one is an empty nav and a note."""
    nav = Nav()
    data = _sidebars(path)
    if data is None:
        notes.append(Skip(path.name, "not a plain object literal; sidebar order and titles not used"))
    else:
        _walk_sidebars(data, nav)
    return nav


def _read(path: Path) -> str:
    data = path.read_bytes()[:MAX_FILE_BYTES]
    return _COMMENT.sub("", data.decode("utf-8", errors="replace"))


def literal_string(source: str, key: str) -> str | None:
    """Return the first string literal assigned to ``key`` in ``source``, or ``None``."""
    match = re.search(_KEY.replace("{key}", key) + _STRING, source, re.MULTILINE)
    if match is None:
        return None
    return next(group for group in match.groups() if group is not None)


def _literal_bool(source: str, key: str) -> bool | None:
    match = re.search(_KEY.replace("{key}", key) + r"(true|false)\b", source, re.MULTILINE)
    return None if match is None else match.group(1) == "true"


def _site_url(source: str) -> str | None:
    url = literal_string(source, "url")
    if url is None or not url.startswith(("http://", "https://")):
        return None
    base = literal_string(source, "baseUrl") or "/"
    path = "/".join(part for part in (base.strip("/"), _route(source)) if part)
    return url.rstrip("/") + "/" + (path + "/" if path else "")


def _route(source: str) -> str:
    configured = literal_string(source, "routeBasePath")
    return DEFAULT_ROUTE if configured is None else configured.strip("/")


def docs_base_url(base_url: str, route: str) -> tuple[str, str | None]:
    """Return where the docs of a site at ``base_url`` are published, and a warning when that is not ``base_url``.

    ``--base-url`` may name the site (``https://jestjs.io/``) or its docs
    (``https://jestjs.io/docs/``); Docusaurus serves the docs under the route base. A base
    whose path does not end in it gets it: ``https://jestjs.io/`` is ``https://jestjs.io/docs/``.
    """
    if not route or urlsplit(base_url).path.rstrip("/").endswith("/" + route):
        return base_url, None
    docs = base_url.rstrip("/") + "/" + route + "/"
    warning = (f"--base-url {base_url} does not end in the docs' route base '/{route}/' (the config's "
               f"routeBasePath, else Docusaurus' default): pages are published under {docs}")
    return docs, warning


def _sidebars(path: Path) -> Any:
    text: str | None = _read(path)
    if path.suffix != ".json":
        text = _object_literal(text or "")
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _object_literal(source: str) -> str | None:
    """Return the exported object literal of a sidebars module as JSON text, or ``None``."""
    match = re.search(r"(?:module\.exports\s*=|export\s+default|const\s+\w+(?:\s*:\s*[\w.]+)?\s*=)\s*\{", source)
    if match is None:
        return None
    body = source[match.end() - 1 :]
    body = re.sub(r"\}\s*(?:satisfies\s+[\w.]+\s*)?;?[^}]*$", "}", body, count=1)
    body = re.sub(r"'([^'\\\n]*)'", lambda m: json.dumps(m.group(1)), body)
    body = re.sub(r"([{,]\s*)([A-Za-z_$][\w$]*)\s*:", r'\1"\2":', body)
    body = re.sub(r",(\s*[}\]])", r"\1", body)
    return body


def _walk_sidebars(data: Any, nav: Nav) -> None:
    if isinstance(data, dict):
        for number, (name, value) in enumerate(data.items()):
            # A second sidebar is a nav of its own (a navbar tab): its loose docs go under its name.
            _items(value, "" if number == 0 else _sidebar_label(str(name)), nav)


def _sidebar_label(name: str) -> str:
    words = name.replace("-", " ").replace("_", " ").split()
    return " ".join(word.upper() if len(word) <= 3 else word.capitalize() for word in words)


def _items(value: Any, section: str, nav: Nav) -> None:
    if isinstance(value, str):
        nav.add(value, None, section)
    elif isinstance(value, list):
        for item in value:
            _items(item, section, nav)
    elif isinstance(value, dict):
        kind = value.get("type")
        if kind in ("doc", "ref") and isinstance(value.get("id"), str):
            label = value.get("label")
            nav.add(value["id"], label if isinstance(label, str) else None, section)
        elif kind == "category":
            named = value.get("label")
            label = named if isinstance(named, str) else section
            link = value.get("link")
            if isinstance(link, dict) and link.get("type") == "doc" and isinstance(link.get("id"), str):
                nav.add(link["id"], None, label)
            _items(value.get("items", []), label, nav)
        elif kind is None:
            for label, items in value.items():  # the shorthand ``{"Label": [ids...]}``
                _items(items, str(label), nav)
