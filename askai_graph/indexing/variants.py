"""A docs site's versions and languages: the trees its generator builds, each at its own URL.

One folder given to ``askai index`` may be one tree of several the site publishes. Each
``Tree`` is read like the docs folder (``markdown.parse_markdown_page``) with its own
profile (base URL, nav), and every page it gives records the tree's ``version`` and
``locale`` and its path in the tree (``doc``: the same page in another language has
the same one).

- **Docusaurus.** ``versions.json`` beside the sidebars lists the released versions,
  newest first. With it, the docs folder is ``next`` at ``/docs/next/``, each version
  ``X`` is ``versioned_docs/version-X`` with ``versioned_sidebars/version-X-sidebars.json``
  at ``/docs/X/``, and the latest release (the config's ``lastVersion`` literal, else
  the first entry) at ``/docs/``. ``i18n/<locale>/docusaurus-plugin-content-docs/current``
  (and ``version-X``) are the translations, served with the locale after the site's
  base URL (``/es/docs/…``); the default locale is the config's ``defaultLocale``
  literal, else ``en``.
- **MkDocs, a folder per language** (FastAPI): a docs folder in ``<lang>/docs`` whose
  ``mkdocs.yml`` sits in ``<lang>/`` has translations in the sibling ``<other>/docs``
  folders, published at ``site_url`` + ``<other>/``, with the same nav. The default
  language is the folder's (or ``theme.language``).
- **MkDocs, mkdocs-static-i18n suffixes**: with the ``i18n`` plugin (``docs_structure:
  suffix``), ``page.es.md`` is ``page.md`` in Spanish, at ``site_url`` + ``es/``.
- **Hugo** (``hugo``: the config's ``languages``, ``defaultContentLanguage`` and
  ``defaultContentLanguageInSubdir``): translated by content folder, each language's
  ``contentDir`` (else ``content/<lang>``; without a ``languages`` table, two or more
  content subfolders all named like languages) is a tree of its own; else translated
  by file name, ``page.fr.md`` is ``page.md`` in French and an unsuffixed page is the
  default language's. The default language is served at the site root (under
  ``/<lang>/`` with ``defaultContentLanguageInSubdir``), every other under
  ``/<lang>/``, or at its own ``baseURL`` when the config gives it one.

- **mike** (MkDocs versions, ``mike_variants``): the root of mike's built branch; each
  version its ``versions.json`` lists is a built site at ``/<version>/``, its aliases
  (``latest``) name it, and readers get the one aliased ``latest`` by default.

Flags win: ``--version-label`` names the version of the folder given (``next`` on a
Docusaurus site with versions; a site without versions gets that one version),
``--locale`` its language, ``--default-version`` the version a reader gets without
asking for one (else the latest release). Nothing here runs site code.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from askai_graph.indexing.docusaurus import DEFAULT_BLOG_ROUTE, sidebar_nav, site_root
from askai_graph.indexing.files import FileEntry, Skip
from askai_graph.indexing.hugo import HugoSite
from askai_graph.indexing.mike import MikeSite
from askai_graph.indexing.nav import Nav
from askai_graph.indexing.sites import SiteProfile
from askai_graph.indexing.snippets import Snippets, repository_root
from askai_graph.indexing.urls import check_base_url

NEXT = "next"
"""The label of a Docusaurus site's unreleased docs (the ``docs/`` folder), as its URLs spell it."""
_LOCALE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_DOCS_PLUGIN = "docusaurus-plugin-content-docs"
# A Hugo content subfolder taken for a language without a ``languages`` table: ``en``, ``pt-br``.
_GUESSED_LANGUAGE = re.compile(r"^[a-z]{2}(?:-[A-Za-z]{2,4})?$")


class VariantError(ValueError):
    """A flag names a version or locale the site cannot have; the message says which."""


@dataclass(frozen=True)
class Tree:
    """One version in one language of the site: a folder and how its pages are published."""

    root: Path
    """The folder its pages are read from."""
    key: str
    """What its unit keys start with ('' for the folder ``askai index`` was given)."""
    site: SiteProfile
    """How its pages are read: base URL, nav, snippets."""
    version: str = ""
    """Its version ('' when the site has one)."""
    locale: str = ""
    """Its language ('' when the site has one and no flag names it)."""
    suffix: str = ""
    """mkdocs-static-i18n: only files named ``page.<suffix>.md`` are this tree's, read as ``page.md``."""
    foreign: tuple[str, ...] = ()
    """mkdocs-static-i18n, default language: files with one of these suffixes belong to another tree."""

    def entries(self, walked: Iterator[FileEntry | Skip]) -> Iterator[tuple[FileEntry | Skip, str]]:
        """Yield this tree's files of ``walked`` (its root's walk), each with its path as the generator reads it."""
        for entry in walked:
            if isinstance(entry, Skip):
                yield replace(entry, where=self.key + entry.where), entry.where
                continue
            rel = entry.rel
            if self.suffix or self.foreign:
                name = _locale_suffix(rel)
                if name in self.foreign or (self.suffix and name != self.suffix):
                    continue
                if name and name in (self.suffix, self.locale):  # page.es.md, or the default's page.en.md
                    rel = _without_suffix(rel, name)
            yield replace(entry, rel=self.key + entry.rel), rel


@dataclass
class Variants:
    """The trees of a site, and which version and language a reader gets by default."""

    trees: list[Tree]
    """Every tree, the folder given first."""
    versions: list[str] = field(default_factory=list)
    """The site's versions, in its own order (newest release first, then ``next``); empty with one."""
    default_version: str = ""
    """The version a reader who names none gets: the latest release, or ``--default-version``."""
    locales: list[str] = field(default_factory=list)
    """The site's languages, the default first; empty when it has one and no flag names it."""
    default_locale: str = ""
    """The language an untranslated page falls back to."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Other names of versions (mike's ``latest``), each with the version it names."""

    def manifest(self) -> dict[str, object]:
        """Return what the index manifest records of them."""
        return {"versions": self.versions, "default_version": self.default_version,
                "locales": self.locales, "default_locale": self.default_locale, "version_aliases": self.aliases}


def site_variants(
    root: Path,
    site: SiteProfile,
    *,
    version_label: str | None = None,
    locale: str | None = None,
    default_version: str | None = None,
) -> Variants:
    """Return the trees of the site whose docs folder is ``root`` (see the module docstring).

    Raises:
        VariantError: a flag's value is malformed, or ``--default-version`` is no version of the site.
    """
    if version_label is not None and not _VERSION.match(version_label):
        raise VariantError(f"--version-label {version_label!r} is not a version label (letters, digits, . _ -)")
    if locale is not None and not _LOCALE.match(locale):
        raise VariantError(f"--locale {locale!r} is not a language code such as en, es or pt-BR")
    if site.docusaurus is not None and site.docusaurus.folder is not None:
        variants = _docusaurus(root, site, site.docusaurus.folder, version_label, locale)
    elif site.mkdocs is not None:
        variants = _mkdocs(root, site, version_label, locale)
    elif site.hugo is not None:
        variants = _hugo(root, site, version_label, locale)
    else:
        label = version_label or ""
        variants = Variants([Tree(root, "", site, label, locale or "")], [label] if label else [], label,
                            [locale] if locale else [], locale or "")
    if default_version is not None:
        if default_version not in variants.versions:
            named = ", ".join(variants.versions) or "none"
            message = f"--default-version {default_version!r} is not a version of the site (versions: {named})"
            raise VariantError(message)
        variants.default_version = default_version
    return variants


def mike_variants(
    mike: MikeSite, *, version_label: str | None = None, locale: str | None = None, default_version: str | None = None
) -> Variants:
    """Return the versions of a mike branch (its built sites are read as they are, so no ``Tree``).

    ``--locale`` names their language; ``--default-version`` (a version or an alias)
    the one readers get, else the one aliased ``latest``, else the first listed.

    Raises:
        VariantError: ``--version-label`` is given (``versions.json`` names them), a flag
            is malformed, or ``--default-version`` is no version of the site.
    """
    if version_label is not None:
        raise VariantError("--version-label does not apply to a mike site: its versions.json names the versions")
    if locale is not None and not _LOCALE.match(locale):
        raise VariantError(f"--locale {locale!r} is not a language code such as en, es or pt-BR")
    versions, aliases = [v.version for v in mike.versions], mike.aliases()
    default = mike.default
    if default_version is not None:
        if aliases.get(default_version, default_version) not in versions:
            named = ", ".join(versions)
            message = f"--default-version {default_version!r} is not a version of the site (versions: {named})"
            raise VariantError(message)
        default = aliases.get(default_version, default_version)
    return Variants([], versions, default, [locale] if locale else [], locale or "", aliases)


def _docusaurus(root: Path, site: SiteProfile, folder: Path, label: str | None, locale: str | None) -> Variants:
    assert site.docusaurus is not None
    released = _versions(folder / "versions.json")
    i18n = folder / "i18n"
    locales = sorted(p.name for p in i18n.iterdir() if (p / _DOCS_PLUGIN).is_dir()) if i18n.is_dir() else []
    default_locale = locale or site.docusaurus.default_locale or ("en" if locales else "")
    # Given the site folder rather than its docs folder: the docs are its ``docs_path``
    # folder, and the blog and Markdown pages are trees of their own.
    docs_path = site.docusaurus.docs_path
    home = root.resolve() == folder and docs_path != "." and (folder / docs_path).is_dir()
    docs, docs_key = (folder / docs_path, docs_path + "/") if home else (root, "")
    extra = _site_trees(folder, site, label or "", default_locale) if home else []
    if not released:
        current = label or ""
        trees = [Tree(docs, docs_key, site, current, default_locale)]
        trees += [_translated(site, site.base_url, "", i18n / other / _DOCS_PLUGIN / "current", other, current)
                  for other in locales if other != default_locale]
        return Variants(trees + extra, [current] if current else [], current, _first(default_locale, locales),
                        default_locale)
    last = site.docusaurus.last_version
    latest = last if last in released else NEXT if last == "current" else released[0]
    current = label or NEXT
    latest = current if latest == NEXT else latest
    # (version, folder, unit key, nav, its path after the docs' base URL); the docs folder first.
    versions = [(current, docs, docs_key, site.nav, "" if latest == current else f"{current}/")]
    for version in released:
        notes: list[Skip] = site.notes
        sidebars = folder / "versioned_sidebars" / f"version-{version}-sidebars.json"
        nav = sidebar_nav(sidebars, notes) if sidebars.is_file() else site.nav
        tree = folder / "versioned_docs" / f"version-{version}"
        if tree.is_dir():
            path = "" if version == latest else f"{version}/"
            versions.append((version, tree, f"versioned_docs/version-{version}/", nav, path))
    trees = []
    for number, (version, tree, key, nav, path) in enumerate(versions):
        profile = replace(site, base_url=_under(site.base_url, path), nav=nav, prefix=site.prefix if not key else "")
        trees.append(Tree(tree, key, profile, version, default_locale))
        plugin = "current" if number == 0 else f"version-{version}"
        for other in locales:
            if other != default_locale:
                folder_of = i18n / other / _DOCS_PLUGIN / plugin
                trees.append(_translated(profile, site.base_url, path, folder_of, other, version))
    order = [v for v, *_ in versions[1:]] + [current]
    return Variants([t for t in trees if t.root.is_dir()] + extra, order, latest, _first(default_locale, locales),
                    default_locale)


def _site_trees(folder: Path, site: SiteProfile, version: str, locale: str) -> list[Tree]:
    """Return the blog and ``src/pages`` trees of the Docusaurus site in ``folder``, where they exist.

    Their pages are the site's, not a docs version's: they are published under the
    site's home URL (the blog under its route), with no sidebar. ``src/pages`` is read
    for its Markdown pages only (``/<path>``); React pages are code, not text.
    """
    assert site.docusaurus is not None
    home = site_root(site.base_url, site.docusaurus.route)
    plain = replace(site, nav=Nav(), nav_by_id=False, prefix="")
    trees = []
    blog = site.docusaurus.blog_route
    if blog is not None and (folder / DEFAULT_BLOG_ROUTE).is_dir():
        profile = replace(plain, base_url=_under(home, f"{blog}/" if blog else ""), blog=True)
        trees.append(Tree(folder / DEFAULT_BLOG_ROUTE, f"{DEFAULT_BLOG_ROUTE}/", profile, version, locale))
    if (folder / "src" / "pages").is_dir():
        trees.append(Tree(folder / "src" / "pages", "src/pages/", replace(plain, base_url=home), version, locale))
    return trees


def _translated(site: SiteProfile, docs_url: str | None, path: str, folder: Path, locale: str, version: str) -> Tree:
    """Return the Docusaurus tree of ``locale`` (read like ``site``): the locale after the site's base URL."""
    base = _under(_localized(docs_url, locale, route_segments=1), path)
    key = f"i18n/{locale}/{folder.name}/"
    return Tree(folder, key, replace(site, base_url=base, prefix=""), version, locale)


def _mkdocs(root: Path, site: SiteProfile, label: str | None, locale: str | None) -> Variants:
    assert site.mkdocs is not None
    mkdocs, version = site.mkdocs, label or ""
    versions = [version] if version else []
    if mkdocs.suffix_locales:
        default = locale or mkdocs.suffix_locales[0]
        others = tuple(lang for lang in mkdocs.suffix_locales if lang != default)
        trees = [Tree(root, "", site, version, default, foreign=others)]
        trees += [Tree(root, "", replace(site, base_url=_under(site.base_url, f"{lang}/")), version, lang, suffix=lang)
                  for lang in others]
        return Variants(trees, versions, version, [default, *others], default)
    home = mkdocs.config.parent
    docs = (root / site.prefix).resolve()
    folders = _language_folders(home, docs)
    if not folders:
        default = locale or mkdocs.language or ""
        return Variants([Tree(root, "", site, version, default)], versions, version, [default] if default else [],
                        default)
    default = locale or home.name
    trees = [Tree(root, "", site, version, default)]
    for lang, folder in folders:
        snippets = Snippets(folder, [folder.parent, home], repository_root(folder, home), site.notes)
        profile = replace(site, base_url=_under(site.base_url, f"{lang}/"), prefix="", snippets=snippets)
        trees.append(Tree(folder, f"../{lang}/{folder.name}/", profile, version, lang))
    return Variants(trees, versions, version, [default, *(lang for lang, _ in folders)], default)


def _hugo(root: Path, site: SiteProfile, label: str | None, locale: str | None) -> Variants:
    assert site.hugo is not None
    hugo, version = site.hugo, label or ""
    versions = [version] if version else []
    given = root.resolve()
    # The folder given may be the site root (the config's folder) or its content folder.
    content = hugo.content_dir if given == hugo.config.parent else given
    folders = _hugo_folders(content, hugo)
    codes = [code for code, _ in folders] or [language.code for language in hugo.languages]
    if not codes or (len(codes) == 1 and not folders):
        default = locale or (codes[0] if codes else "")
        return Variants([Tree(root, "", site, version, default)], versions, version, [default] if default else [],
                        default)
    default = locale or (hugo.default_language if hugo.default_language in codes else codes[0])
    others = [code for code in codes if code != default]
    order = [default, *others]
    if folders:  # translated by content folder: each language's folder is a tree of its own
        trees = []
        for code, folder in sorted(folders, key=lambda found: order.index(found[0]) if found[0] in order else 0):
            key = "" if folder == given else Path(os.path.relpath(folder, given)).as_posix() + "/"
            profile = replace(site, base_url=_hugo_url(site, code, default), prefix="")
            trees.append(Tree(folder, key, profile, version, code))
        return Variants(trees, versions, version, order, default)
    # Translated by file name: page.fr.md is page.md in French; an unsuffixed page is the default language's.
    trees = [Tree(root, "", replace(site, base_url=_hugo_url(site, default, default)), version, default,
                  foreign=tuple(others))]
    trees += [Tree(root, "", replace(site, base_url=_hugo_url(site, code, default)), version, code, suffix=code)
              for code in others]
    return Variants(trees, versions, version, order, default)


def _hugo_folders(content: Path, hugo: HugoSite) -> list[tuple[str, Path]]:
    """Return each language's content folder: its ``contentDir``, else ``<content>/<code>``.

    Without a ``languages`` table, the content folder's subfolders are the languages when
    there are two or more and every one is named like a language (``en``, ``pt-br``).
    """
    if hugo.languages:
        found = [(lang.code, lang.content_dir or content / lang.code) for lang in hugo.languages]
        return [(code, folder.resolve()) for code, folder in found if folder.is_dir()]
    if not content.is_dir():
        return []
    subfolders = [p for p in sorted(content.iterdir()) if p.is_dir() and not p.name.startswith((".", "_"))]
    if len(subfolders) < 2 or not all(_GUESSED_LANGUAGE.match(p.name) for p in subfolders):
        return []
    return [(p.name, p.resolve()) for p in subfolders]


def _hugo_url(site: SiteProfile, code: str, default: str) -> str | None:
    """Return where Hugo serves ``code``: its own ``baseURL``, the site root (the default language), or ``/<code>/``."""
    assert site.hugo is not None
    own = next((lang.base_url for lang in site.hugo.languages if lang.code == code and lang.base_url), None)
    if own is not None:
        return check_base_url(own)
    if code == default and not site.hugo.default_in_subdir:
        return site.base_url
    return _under(site.base_url, f"{code}/")


def _language_folders(home: Path, docs: Path) -> list[tuple[str, Path]]:
    """Return the translations of a docs folder ``<lang>/docs`` whose config is in ``<lang>/``: ``<other>/docs``."""
    if not _LOCALE.match(home.name) or docs.parent != home.resolve():
        return []
    found = []
    for sibling in sorted(home.parent.iterdir()):
        translated = sibling / docs.name
        if sibling.name != home.name and _LOCALE.match(sibling.name) and translated.is_dir():
            found.append((sibling.name, translated))
    return found


def _versions(path: Path) -> list[str]:
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return [v for v in data if isinstance(v, str) and _VERSION.match(v)] if isinstance(data, list) else []


def _under(base: str | None, path: str) -> str | None:
    """Return the base URL ``path`` below ``base`` (a folder path ending in ``/``, or '')."""
    if base is None or not path:
        return base
    return base.rstrip("/") + "/" + path


def _localized(base: str | None, locale: str, route_segments: int) -> str | None:
    """Return ``base`` with ``locale`` inserted before its last ``route_segments`` path segments."""
    if base is None:
        return None
    scheme, _, rest = base.partition("://")
    host, _, path = rest.partition("/")
    parts = [p for p in path.split("/") if p]
    cut = max(len(parts) - route_segments, 0)
    joined = "/".join([*parts[:cut], locale, *parts[cut:]])
    return f"{scheme}://{host}/{joined}/"


def _first(default: str, locales: list[str]) -> list[str]:
    if not default:
        return []
    return [default, *(locale for locale in locales if locale != default)]


def _locale_suffix(rel: str) -> str:
    """Return the ``es`` of ``page.es.md`` ('' for ``page.md``)."""
    parts = rel.rsplit("/", 1)[-1].split(".")
    return parts[-2] if len(parts) >= 3 and _LOCALE.match(parts[-2]) else ""


def _without_suffix(rel: str, locale: str) -> str:
    head, _, tail = rel.rpartition("/")
    stem, extension = tail.rsplit(".", 1)
    name = stem[: -len(locale) - 1] + "." + extension
    return f"{head}/{name}" if head else name
