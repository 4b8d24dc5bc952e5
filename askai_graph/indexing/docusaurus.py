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
"""Docusaurus' ``routeBasePath`` (and docs folder) when the config sets none."""
DEFAULT_BLOG_ROUTE = "blog"
"""The blog plugin's ``routeBasePath`` (and folder) when the config sets none."""
_KEY = r"(?:^|[\s{,])['\"]?{key}['\"]?\s*:\s*"
# The blog plugin's file name date: ``[folder/]YYYY-MM-DD[-/]text[/index].md``.
_BLOG_DATE = re.compile(r"^(.*?)(\d{4}-\d{1,2}-\d{1,2})[-/]?(.*?)(?:/index)?(\.mdx?)$")
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
    docs_path: str = DEFAULT_ROUTE
    """The docs plugin's ``path``: the docs folder inside the site folder, else ``docs``."""
    blog_route: str | None = DEFAULT_BLOG_ROUTE
    """The blog plugin's ``routeBasePath``, else ``blog``; ``None`` when the config says ``blog: false``."""

    @property
    def site_url(self) -> str | None:
        """``url`` joined with ``baseUrl``: where the site's home page is published."""
        return site_root(self.url, self.route)


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
    docs_path = DEFAULT_ROUTE
    blog_route: str | None = DEFAULT_BLOG_ROUTE
    if config is not None:
        source = _read(config)
        url, trailing, route = _site_url(source), _literal_bool(source, "trailingSlash"), _route(source)
        title = (literal_string(source, "title") or "").strip() or None  # the first one: the site's, not the navbar's
        last, locale = literal_string(source, "lastVersion"), literal_string(source, "defaultLocale")
        docs_path = _folder(literal_string(_block(source, "docs") or "", "path") or DEFAULT_ROUTE)
        blog_route = _blog_route(source)
    nav = sidebar_nav(sidebars, notes) if sidebars is not None else Nav()
    folder = (config or sidebars or resolved).parent
    return DocusaurusSite(url=url, trailing_slash=trailing, nav=nav, notes=tuple(notes), title=title, folder=folder,
                          last_version=last, default_locale=locale, route=route, docs_path=docs_path,
                          blog_route=blog_route)


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
    # The preset's ``docs: {...}`` options when the config has them; else the first
    # ``routeBasePath`` (a docs plugin configured on its own).
    docs = _block(source, "docs")
    configured = literal_string(docs if docs is not None else source, "routeBasePath")
    return DEFAULT_ROUTE if configured is None else configured.strip("/")


def _folder(path: str) -> str:
    """Return a config's folder path (``./docs/``) as ``docs``; ``.`` for the site folder itself."""
    return "/".join(part for part in path.split("/") if part not in ("", ".")) or "."


def _blog_route(source: str) -> str | None:
    if re.search(_KEY.replace("{key}", "blog") + r"false\b", source, re.MULTILINE):
        return None
    configured = literal_string(_block(source, "blog") or "", "routeBasePath")
    return DEFAULT_BLOG_ROUTE if configured is None else configured.strip("/")


def _block(source: str, key: str) -> str | None:
    """Return the object literal assigned to ``key`` (``docs: {...}``), braces balanced, or ``None``."""
    match = re.search(_KEY.replace("{key}", key) + r"\{", source, re.MULTILINE)
    if match is None:
        return None
    depth = 0
    for end in range(match.end() - 1, len(source)):
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        if depth == 0:
            return source[match.end() - 1 : end + 1]
    return None


def site_root(docs_url: str | None, route: str) -> str | None:
    """Return the site's home URL given where its docs are published (``docs_url``) under ``route``."""
    if docs_url is None or not route or not docs_url.rstrip("/").endswith("/" + route):
        return docs_url
    return docs_url.rstrip("/")[: -len(route)]


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


def blog_path(rel: str, meta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Return the path and front matter of the blog post ``rel`` as Docusaurus' blog plugin routes it.

    A front matter ``slug`` is under the blog's route, whatever the post's folder. Else a
    date in the file or folder name is the path: ``2024-03-09-launch.md`` and
    ``2024-03-09-launch/index.md`` are ``2024/03/09/launch``, a folder before it kept.
    """
    slug = meta.get("slug")
    if isinstance(slug, str) and slug.strip():
        return rel, {**meta, "slug": "/" + slug.strip().strip("/")}
    match = _BLOG_DATE.match(rel)
    if match is None:
        return rel, meta
    folder, date, text, suffix = match.groups()
    return f"{folder}{date.replace('-', '/')}/{text or 'index'}{suffix}", meta


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
