"""What the pages of a Docusaurus build say about themselves: their kind, title, version and language.

Docusaurus marks every page it renders on its ``<html>`` element: the page's kind in a
class (``docs-doc-page``, ``blog-post-page``, ``blog-tags-post-list-page``…), a docs
page's version in ``docs-version-<name>`` (``current`` for the docs folder), and the
page's language in ``lang``. Those marks are all a build keeps of the site's versions
(it has no ``versions.json``), so the built-site reader takes them from there:

- list pages (tags, authors, the blog's archive and paginated lists) repeat other
  pages' text under their own URL: they are not indexed (the blog's pages other than
  its posts, and the docs' tag pages);
- a page's text is its article's Markdown (``keep_content_only``), without the
  theme's badge, breadcrumbs, post header and pagination around it;
- a page's title is its article's ``<h1>`` (``<title>`` carries the site's name:
  ``Create a Document | My Site``), else ``<title>`` without that suffix (the home page's
  ``<h1>`` is the site's name in its hero banner);
- a build with two or more docs versions has versions as the source index has them:
  ``current`` is ``next``, the version whose pages carry no ``/<name>/`` in their path
  is the one readers get by default; a build in two or more languages has locales,
  the one of the top-level ``index.html`` being the default.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from askai_graph.indexing.variants import NEXT, Variants

LIST_PAGES = frozenset({
    "blog-list-page", "blog-tags-list-page", "blog-tags-post-list-page",
    "blog-authors-list-page", "blog-authors-posts-page", "docs-tags-list-page", "docs-tags-doc-list-page",
})  # fmt: skip
"""``<html>`` classes of the pages that list other pages (Docusaurus 3's ``ThemeClassNames.page``)."""
_BLOG_PLUGIN = "plugin-blog"
_BLOG_POST = "blog-post-page"
"""A blog's only pages of their own are its posts: every other page of the blog plugin lists them.

The archive (``/blog/archive``) has no page class at all, only its plugin's."""
_VERSION_CLASS = "docs-version-"
_CURRENT = "current"
_HEAD_BYTES = 8192
"""How much of a page the variant pass reads: the ``<html>`` tag is at its start."""
_HTML_TAG = re.compile(r"<html\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""\b(class|lang)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_GENERATOR = "docusaurus"
_NUMBERS = re.compile(r"\d+|\D+")
_TITLE_DELIMITER = " | "
"""Docusaurus' default ``titleDelimiter``, between a page's title and the site's."""
_INVISIBLE = "\u200b"  # the zero-width space Docusaurus puts in each heading's hash link


@dataclass(frozen=True)
class Marks:
    """What one page's ``<html>`` element says: its classes and its language."""

    classes: frozenset[str]
    lang: str

    @property
    def version(self) -> str:
        """The docs version the page belongs to, as Docusaurus names it ('' outside the docs)."""
        for name in self.classes:
            if name.startswith(_VERSION_CLASS):
                return name[len(_VERSION_CLASS) :]
        return ""

    @property
    def listing(self) -> bool:
        """Whether the page lists other pages (tags, authors, archive)."""
        blog_listing = _BLOG_PLUGIN in self.classes and _BLOG_POST not in self.classes
        return blog_listing or bool(self.classes & LIST_PAGES)


def marks_of(root: Any) -> Marks:
    """Return the marks of the parsed page ``root`` (an lxml tree)."""
    return Marks(frozenset(str(root.get("class") or "").split()), str(root.get("lang") or "").strip())


def is_docusaurus(root: Any) -> bool:
    """Whether the parsed page was rendered by Docusaurus (its generator meta tag, or its root element)."""
    for meta in root.iter("meta"):
        if str(meta.get("name") or "").lower() == "generator":
            return str(meta.get("content") or "").lower().startswith(_GENERATOR)
    return any(True for _ in root.iterfind(".//div[@id='__docusaurus']"))


def page_title(root: Any) -> str:
    """Return the page's own title: its article's ``<h1>``, else ``<title>`` without the site's name ('')."""
    for heading in root.iter("h1"):
        text = " ".join(str(heading.text_content()).replace(_INVISIBLE, "").split())
        if text and any(node.tag == "article" for node in heading.iterancestors()):
            return text
    title = " ".join(str(root.findtext(".//title") or "").split())
    return title.rpartition(_TITLE_DELIMITER)[0].strip() or title


def keep_content_only(root: Any) -> None:
    """Leave in the parsed page's ``<body>`` only its article's Markdown, when it has one.

    A doc's ``theme-doc-markdown`` and a post's ``#__blog-post-container`` carry the class
    ``markdown``; around them the theme puts breadcrumbs, the version badge, a post's
    date and authors, its tags, the previous and next pages' titles. On a short page
    trafilatura cannot tell those from the content. ``<head>`` (canonical URL,
    description, a post's date) stays.
    """
    body = root.find("body")
    found = next(((article, node) for article in root.iter("article") for node in article.iter()
                  if "markdown" in str(node.get("class") or "").split()), None)  # fmt: skip
    if body is None or found is None:
        return
    article, content = found
    content.tail = article.tail = None
    article[:] = [content]  # inside an <article>, which trafilatura takes for the main content
    body[:] = [article]


@dataclass(frozen=True)
class BuildVariants:
    """A build's versions and languages, read from its pages' marks; how to label each page."""

    versions: tuple[str, ...] = ()
    """Docusaurus' version names (``current`` included); empty with one."""
    default_version: str = ""
    locales: tuple[str, ...] = ()
    """The build's languages, the default first; empty with one."""
    default_locale: str = ""

    def version_of(self, marks: Marks) -> str:
        """The page's version as readers name it ('' when the build has none, or outside the docs)."""
        version = marks.version
        if not self.versions or not version:
            return ""
        return NEXT if version == _CURRENT else version

    def locale_of(self, marks: Marks) -> str:
        """The page's language ('' when the build has one)."""
        return (marks.lang or self.default_locale) if self.locales else ""

    def doc_of(self, rel: str) -> str:
        """The page's path, the same in every language: ``fr/docs/intro/index.html`` is ``docs/intro/index.html``."""
        first, _, rest = rel.partition("/")
        return rest if rest and first in self.locales[1:] else rel

    def variants(self) -> Variants | None:
        """The manifest's versions and languages, ``None`` for a build with one of each."""
        if not (self.versions or self.locales):
            return None
        releases = sorted((v for v in self.versions if v != _CURRENT), key=_version_key, reverse=True)
        named = [*releases, *([NEXT] if _CURRENT in self.versions else [])]
        default = NEXT if self.default_version == _CURRENT else self.default_version
        return Variants([], named, default, list(self.locales), self.default_locale)


def build_variants(root: Path, rels: Iterable[str]) -> BuildVariants:
    """Read the marks at the start of each built page ``rels`` of ``root``: the build's versions and languages."""
    versions: dict[str, list[str]] = {}
    langs: Counter[str] = Counter()
    home = ""
    for rel in rels:
        marks = _head_marks(root / rel)
        if marks is None:
            continue
        if marks.version:
            versions.setdefault(marks.version, []).append(rel)
        if marks.lang:
            langs[marks.lang] += 1
            if rel == "index.html":
                home = marks.lang
    names = tuple(versions) if len(versions) > 1 else ()
    # The latest release is served without its name in the path (``/docs/intro``, not ``/docs/1.0/intro``).
    unnamed = [v for v in names if v != _CURRENT and not any(f"/{v}/" in f"/{rel}" for rel in versions[v])]
    default = unnamed[0] if unnamed else (max(names, key=_version_key) if names else "")
    default_locale = home or (langs.most_common(1)[0][0] if langs else "")
    locales = (default_locale, *sorted(set(langs) - {default_locale})) if len(langs) > 1 else ()
    return BuildVariants(names, default, locales, default_locale if locales else "")


def _head_marks(path: Path) -> Marks | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    tag = _HTML_TAG.search(head)
    if tag is None:
        return None
    found = {m.group(1).lower(): m.group(2) if m.group(2) is not None else m.group(3)
             for m in _ATTRIBUTE.finditer(tag.group(0))}
    return Marks(frozenset(found.get("class", "").split()), found.get("lang", "").strip())


def _version_key(name: str) -> tuple[tuple[int, object], ...]:
    """Natural order: ``10.0`` after ``9.1``."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _NUMBERS.findall(name))
