"""The reader's version and language: which pages of a site retrieval may return to them.

A site indexed with versions and languages (``askai_graph.indexing.variants``) records
each page's ``version``, ``locale`` and ``doc`` (its path in its tree). A reader reads
one version in one language; a ``Scope`` is the pages they may get:

- the pages of that version in that language;
- for a page not translated yet into it, the default language's page of that version
  (what the live site shows there), marked as standing in (``fallback``), so its card
  can say it is in another language.

Without a version the reader gets the site's default (its latest release, or
``--default-version``); without a language, the default language. ``current`` (the
class Docusaurus puts on its unreleased docs) names ``next``. A language is matched
exactly, else by its primary subtag (``es-ES`` reads ``es``), case aside. A version the
site does not have scopes no page: such a reader gets no answer from another version's
pages. A version's alias (mike's ``latest``) names it. A site without versions and
languages has no scope: every page is the reader's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

CURRENT = "current"
"""What Docusaurus calls the docs folder's version (its ``docs-version-current`` class)."""
ALIASES = {CURRENT: "next"}
"""Names a page may give a version (Docusaurus' ``docs-version-current`` class), and the label they mean."""


class ScopeError(ValueError):
    """A reader named a version the site does not have; the message lists those it has."""


class NoVersions(ScopeError):
    """A reader named a version of a site indexed without versions (``current`` aside)."""


@dataclass(frozen=True)
class SiteVariants:
    """A site's versions and languages, and the defaults a reader gets."""

    versions: tuple[str, ...] = ()
    """Its versions, in its own order; empty when it keeps one."""
    default_version: str = ""
    """The version a reader who names none gets."""
    locales: tuple[str, ...] = ()
    """Its languages, the default first; empty when it keeps one."""
    default_locale: str = ""
    """The language an untranslated page falls back to."""
    aliases: tuple[tuple[str, str], ...] = ()
    """Other names of versions (mike's ``latest``), each with the version it names."""

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, object]) -> SiteVariants:
        """Return what an index manifest (or ``Variants.manifest()``) records."""
        versions, locales = manifest.get("versions") or [], manifest.get("locales") or []
        aliases = manifest.get("version_aliases") or {}
        return cls(
            tuple(str(v) for v in versions) if isinstance(versions, list | tuple) else (),
            str(manifest.get("default_version") or ""),
            tuple(str(lang) for lang in locales) if isinstance(locales, list | tuple) else (),
            str(manifest.get("default_locale") or ""),
            tuple((str(k), str(v)) for k, v in aliases.items()) if isinstance(aliases, Mapping) else (),
        )

    @property
    def any(self) -> bool:
        """Whether the site has versions or languages at all."""
        return bool(self.versions or self.locales)

    def version(self, asked: str | None) -> str:
        """Return the version a reader asking for ``asked`` reads ('' on a site without versions).

        Raises:
            ScopeError: the site has versions and ``asked`` is none of them.
        """
        if not self.versions:
            return ""
        if not asked:
            return self.default_version or self.versions[0]
        for name in (asked, dict(self.aliases).get(asked, asked), ALIASES.get(asked.lower(), asked)):
            if name in self.versions:
                return name
        raise ScopeError(f"version {asked!r} is not a version of this site ({', '.join(self.versions)})")

    def honoured(self, asked: str) -> None:
        """Refuse a version a reader may not ask this site for; every face asks this.

        A site indexed without versions honours none but ``current``: Docusaurus names its
        docs folder so on every docs page (the widget sends it), and that folder is all
        the site keeps. Answering any other from the one version would cite the wrong pages.

        Raises:
            NoVersions: the site keeps no versions and ``asked`` is not ``current``.
            ScopeError: the site has versions and ``asked`` is none of them.
        """
        if not self.versions:
            if asked.lower() != CURRENT:
                raise NoVersions(f"{asked!r}: this site's index keeps no versions")
            return
        self.version(asked)

    def locale(self, asked: str | None) -> str:
        """Return the language a reader asking for ``asked`` reads (maybe one the site lacks: all falls back)."""
        if not self.locales or not asked:
            return self.default_locale
        lowered = {locale.lower(): locale for locale in self.locales}
        wanted = asked.strip().lower().replace("_", "-")
        return lowered.get(wanted) or lowered.get(wanted.split("-")[0]) or wanted


@dataclass(frozen=True)
class Scope:
    """The pages one reader may get (by the retriever's page id)."""

    version: str
    """The version read."""
    locale: str
    """The language read."""
    pages: frozenset[int] = field(default_factory=frozenset)
    """Every page in scope."""
    fallback: frozenset[int] = field(default_factory=frozenset)
    """Those in the default language, standing in for a page not translated yet."""


def scope_of(
    variants: SiteVariants, rows: Iterable[tuple[int, str, str, str]], version: str | None, locale: str | None
) -> Scope | None:
    """Return the scope of a reader of ``version`` in ``locale`` over the pages ``rows`` (id, version, locale, doc).

    ``None`` when the site has no versions or languages. An unknown version scopes nothing.
    """
    if not variants.any:
        return None
    try:
        read = variants.version(version)
    except ScopeError:
        return Scope(version or "", locale or "", frozenset(), frozenset())
    language, default = variants.locale(locale), variants.default_locale
    own: set[int] = set()
    translated: set[str] = set()
    defaults: dict[str, int] = {}
    for page, page_version, page_locale, doc in rows:
        if page_version and page_version != read:
            continue  # a page of no version (a built site's blog, its home page) is every version's
        if page_locale == language:
            own.add(page)
            translated.add(doc)
        elif page_locale == default:
            defaults[doc] = page
    fallback = frozenset(page for doc, page in defaults.items() if doc not in translated and language != default)
    return Scope(read, language, frozenset(own) | fallback, fallback)
