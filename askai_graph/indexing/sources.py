"""What a source is made of: units (a page file, a JSONL line), each hashed and parsed alone.

A unit's ``key`` is what incremental indexing recognises it by (the file path; for a
JSONL line, its content hash, so inserting a line does not make every later one "new"),
its ``stamp`` and ``digest()`` say whether its content changed, and ``parse()`` returns
its post or a ``Skip``. ``scan_source`` parses every unit and drops duplicate URLs (the first in path
order wins): what ``load_corpus`` uses to index a source in memory.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from askai_graph.indexing.docusaurus_build import build_variants
from askai_graph.indexing.files import DEFAULT_MAX_FILE_BYTES, FileEntry, PageFile, Skip, text_problem, walk
from askai_graph.indexing.frontmatter import DEFAULT_MAX_FRONT_MATTER_BYTES, as_date, as_number
from askai_graph.indexing.html import HTML_SUFFIXES, parse_html_page, read_sitemap, served_url
from askai_graph.indexing.markdown import ORDER_KEYS, parse_markdown_page
from askai_graph.indexing.markup import summary_line
from askai_graph.indexing.mike import MikeSite, find_mike, sitemap_paths
from askai_graph.indexing.sites import site_profile
from askai_graph.indexing.urls import check_base_url
from askai_graph.indexing.variants import Tree, Variants, mike_variants, site_variants
from askai_graph.retrieval.corpus import CorpusError, Page, make_page

MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown")


class Unit:
    """One independently parsed piece of a source: a page file or a JSONL record."""

    key: str
    """Identity across runs: relative path, or ``line:<sha256>`` for a JSONL record."""
    where: str
    """Where to point a reader: the relative path, or ``file.jsonl:LINE``."""
    stamp: str
    """Cheap change signal (size and mtime of a file); equal stamps mean unchanged."""

    def digest(self) -> str | Skip:
        """Return the content hash (reading the file), or why it cannot be read."""
        raise NotImplementedError

    def parse(self) -> Page | Skip:
        """Parse the unit (only called when its content is new)."""
        raise NotImplementedError


class FileUnit(Unit):
    """A page file, read at most once, when its stamp is new."""

    def __init__(self, entry: FileEntry, parser: Callable[[str, str], Page | Skip]) -> None:
        """Parse ``entry`` with ``parser(rel, text)``."""
        self.key = self.where = entry.rel
        self.stamp = entry.stamp
        self._entry, self._parser = entry, parser
        self._page: PageFile | Skip | None = None

    def _read(self) -> PageFile | Skip:
        if self._page is None:
            self._page = self._entry.read()
        return self._page

    def digest(self) -> str | Skip:
        """Return the file's SHA-256, or why it cannot be read."""
        page = self._read()
        return page if isinstance(page, Skip) else page.digest

    def parse(self) -> Page | Skip:
        """Parse the page file."""
        page = self._read()
        return page if isinstance(page, Skip) else self._parser(page.rel, page.text())


class RecordUnit(Unit):
    """One line of a JSONL file."""

    def __init__(self, where: str, raw: bytes) -> None:
        """Parse the JSON object on ``raw``, found at ``where``."""
        self._digest = hashlib.sha256(raw).hexdigest()
        self.key, self.where, self.stamp, self._raw = f"line:{self._digest}", where, self._digest, raw

    def digest(self) -> str | Skip:
        """Return the line's SHA-256."""
        return self._digest

    def parse(self) -> Page | Skip:
        """Parse the record."""
        return _parse_record(self.where, self._raw)


@dataclass(frozen=True)
class Source:
    """A source folder or file, its kind, and its units."""

    kind: str
    """``docs``, ``html`` or ``jsonl``."""
    context: str
    """Hash of everything besides the units that parsing depends on (base URL, sitemap)."""
    units: Iterator[Unit | Skip]
    """The units, in path order (unreadable files come as ``Skip``)."""
    notes: list[Skip] = field(default_factory=list)
    """Pages indexed with something left out (a snippet include not found), and config
    files that could not be used; filled while the units are parsed."""
    report: list[str] = field(default_factory=list)
    """Lines the source adds to the run's report (a crawl's counts); filled by the end of ``units``."""
    save: Callable[[Path], None] | None = None
    """Writes what the source keeps for its next run (a crawl's validators) into the new index folder."""
    own_progress: bool = False
    """The units show their own progress bar (a crawl's), so the build shows none over them."""
    site_name: str | None = None
    """What the site calls itself, from its generator's config: ``llms.txt``'s title."""
    variants: Variants | None = None
    """A docs tree's versions and languages (``variants``), recorded in the manifest."""
    warnings: list[str] = field(default_factory=list)
    """What looks wrong in how the source was given (``askai index`` prints it on stderr)."""


@dataclass
class Scan:
    """Every post of a source, and every unit skipped."""

    items: list[Page] = field(default_factory=list)
    """The posts, duplicates removed."""
    skips: list[Skip] = field(default_factory=list)
    """What was left out, with reasons."""
    variants: dict[str, object] | None = None
    """The source's versions and languages (``variants.Variants.manifest``), if a docs tree has any."""


def open_source(
    path: Path,
    base_url: str | None,
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_front_matter_bytes: int = DEFAULT_MAX_FRONT_MATTER_BYTES,
    trailing_slash: bool | None = None,
    version_label: str | None = None,
    locale: str | None = None,
    default_version: str | None = None,
) -> Source:
    """Return the units of the docs tree, HTML site or JSONL file at ``path``.

    A docs tree is read the way its generator builds it (``sites.site_profile``):
    ``base_url`` and ``trailing_slash`` override what the generator's config says. Its
    site's other versions and languages are read too (``variants.site_variants``, where
    ``version_label``, ``locale`` and ``default_version`` override what the site says).

    Raises:
        CorpusError: the path does not exist, is not a supported kind, the base URL
            is not http(s), or the generator's config is unreadable.
    """
    base = check_base_url(base_url)
    if path.is_file() and path.suffix == ".jsonl":
        return Source("jsonl", _context("jsonl"), _jsonl_units(path))
    if not path.is_dir():
        raise CorpusError(f"{path}: not a folder of pages or a .jsonl file")
    mike = find_mike(path)
    if mike is not None:
        return _mike_source(path, base, mike, max_file_bytes, version_label, locale, default_version)
    # A built site has its home page (or sitemap) at the top; a stray README.md in it does
    # not make it a docs tree, nor do template .html files make a docs tree a built site.
    built = (path / "index.html").is_file() or (path / "sitemap.xml").is_file()
    if not built and (_has_files(path, MARKDOWN_SUFFIXES) or not _has_files(path, HTML_SUFFIXES)):
        try:
            site = site_profile(path, base, trailing_slash)
            site.base_url = check_base_url(site.base_url)
            variants = site_variants(path, site, version_label=version_label, locale=locale,
                                     default_version=default_version)
        except ValueError as exc:
            raise CorpusError(f"{path}: {exc}") from None
        context = _context("docs", site.base_url, max_front_matter_bytes, site.digest(), _trees_digest(variants))
        units = _tree_units(variants.trees, max_file_bytes, max_front_matter_bytes)
        return Source("docs", context, units, site.notes, site_name=site.name, variants=variants,
                      warnings=site.warnings)
    if version_label or locale or default_version:
        raise CorpusError(f"{path}: --version-label, --locale and --default-version apply to a docs tree")
    sitemap = read_sitemap(path)
    entries = list(walk(path, HTML_SUFFIXES, max_file_bytes))
    build = build_variants(path, (entry.rel for entry in entries if isinstance(entry, FileEntry)))
    html = partial(parse_html_page, base_url=base, sitemap=sitemap, build=build)
    context = _context("html", base, sorted(sitemap) if sitemap else None, repr(build))
    return Source("html", context, _file_units(iter(entries), html), variants=build.variants())


def scan_source(path: Path, base_url: str | None, **limits: int) -> Scan:
    """Parse every unit of the source at ``path``; see ``open_source``."""
    scan = Scan()
    seen: dict[str, str] = {}
    source = open_source(
        path,
        base_url,
        max_file_bytes=limits.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES),
        max_front_matter_bytes=limits.get("max_front_matter_bytes", DEFAULT_MAX_FRONT_MATTER_BYTES),
    )
    scan.variants = source.variants.manifest() if source.variants is not None else None
    for unit in source.units:
        result = unit if isinstance(unit, Skip) else unit.parse()
        if isinstance(result, Skip):
            scan.skips.append(result)
        elif result.url in seen:
            assert isinstance(unit, Unit)
            scan.skips.append(duplicate(unit.where, result.url, seen[result.url]))
        else:
            assert isinstance(unit, Unit)
            seen[result.url] = unit.where
            scan.items.append(result)
    return scan


def duplicate(where: str, url: str, first: str) -> Skip:
    """Return the skip for a page whose URL an earlier page already has."""
    return Skip(where, f"duplicate url {url} (already used by {first})")


def _tree_units(trees: list[Tree], max_file_bytes: int, max_front_matter: int) -> Iterator[Unit | Skip]:
    for tree in trees:
        parse = partial(parse_markdown_page, base_url=tree.site.base_url, max_front_matter=max_front_matter,
                        site=tree.site)
        for entry, rel in tree.entries(walk(tree.root, MARKDOWN_SUFFIXES, max_file_bytes)):
            yield entry if isinstance(entry, Skip) else FileUnit(entry, partial(_tree_page, parse, tree, rel))


def _tree_page(parse: Callable[[str, str], Page | Skip], tree: Tree, rel: str, key: str, text: str) -> Page | Skip:
    """Parse the page ``rel`` of ``tree`` (its unit key is ``key``), recording the tree's version and locale."""
    page = parse(rel, text)
    if isinstance(page, Skip):
        return replace(page, where=key) if tree.key else page
    if not (tree.version or tree.locale):
        return page
    doc = rel[len(tree.site.prefix) :] if rel.startswith(tree.site.prefix) else rel
    return page.model_copy(update={"version": tree.version, "locale": tree.locale, "doc": doc})


def _trees_digest(variants: Variants) -> list[object]:
    return [(t.key, t.version, t.locale, t.site.base_url, t.suffix, t.foreign, t.site.nav.digest_parts())
            for t in variants.trees]


def _mike_source(
    path: Path, base: str | None, mike: MikeSite, max_file_bytes: int,
    version_label: str | None, locale: str | None, default_version: str | None,
) -> Source:
    """Return the built pages of every version of a mike branch (``mike``), each at ``base`` + its version."""
    if base is None:
        raise CorpusError(f"{path}: a mike site's pages are served under its URL: give --base-url (or ASKAI_SITE_URL)")
    try:
        variants = mike_variants(mike, version_label=version_label, locale=locale, default_version=default_version)
    except ValueError as exc:
        raise CorpusError(f"{path}: {exc}") from None
    folders = [(v.version, v.folder.name) for v in mike.versions]
    context = _context("mike", base, folders, variants.manifest())
    return Source("html", context, _mike_units(mike, base, variants.default_locale, max_file_bytes), variants=variants)


def _mike_units(mike: MikeSite, base: str, locale: str, max_file_bytes: int) -> Iterator[Unit | Skip]:
    for version in mike.versions:
        listed = sitemap_paths(read_sitemap(version.folder))
        read = partial(_mike_page, base + version.version + "/", version.version, locale, listed)
        for entry in walk(version.folder, HTML_SUFFIXES, max_file_bytes):
            key = f"{version.version}/{entry.where if isinstance(entry, Skip) else entry.rel}"
            if isinstance(entry, Skip):
                yield replace(entry, where=key)
            else:
                yield FileUnit(replace(entry, rel=key), partial(read, entry.rel))


def _mike_page(
    version_base: str, version: str, locale: str, listed: frozenset[str] | None, rel: str, key: str, text: str
) -> Page | Skip:
    """Parse the built page ``rel`` of one mike version, at the URL it is served at there.

    Not at its canonical link: mike builds every version with the site's one ``site_url``
    (or points them all at the ``canonical_version``), so that link names another version.
    """
    path = served_url(rel, "")
    if listed is not None and path not in listed:
        return Skip(key, "not listed in sitemap.xml")
    page = parse_html_page(rel, text, version_base, None, canonical=False)
    if isinstance(page, Skip):
        return replace(page, where=key)
    return page.model_copy(update={"version": version, "locale": locale, "doc": rel})


def _file_units(files: Iterator[FileEntry | Skip], parse: Callable[[str, str], Page | Skip]) -> Iterator[Unit | Skip]:
    for entry in files:
        yield entry if isinstance(entry, Skip) else FileUnit(entry, parse)


def _jsonl_units(path: Path) -> Iterator[Unit | Skip]:
    # Read line by line: a 100k-post file is never held whole in memory.
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            where = f"{path.name}:{number}"
            problem = text_problem(raw)
            if problem:
                yield Skip(where, problem)
                continue
            yield RecordUnit(where, raw)


def _parse_record(where: str, raw: bytes) -> Page | Skip:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as exc:
        return Skip(where, f"not JSON ({exc.msg})")
    if not isinstance(record, dict):
        return Skip(where, "a post must be an object with title and url")
    if record.get("draft") is True:
        return Skip(where, "draft: true", draft=True)
    if "body" not in record:
        record["body"] = record.get("content", "")
    if isinstance(record.get("summary"), str):
        record["summary"] = summary_line(record["summary"])
    # The site's order, read as leniently as from front matter.
    record["weight"] = next((n for k in ORDER_KEYS if (n := as_number(record.get(k))) is not None), None)
    record["date"] = as_date(record.get("date"))
    try:
        return make_page(record, where)
    except CorpusError as exc:
        return Skip(where, str(exc))


def _has_files(root: Path, suffixes: tuple[str, ...]) -> bool:
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        if any(name.lower().endswith(suffixes) for name in files):
            return True
        del folder
    return False


READING = 3
"""How pages are read into text: bump it when a reader's output changes (2: raw HTML tags and
template statements leave the prose; 3: Prism's line spans are lines, Docusaurus titles are
their ``<h1>``), so the next build re-reads every page instead of
keeping the unchanged files' old text."""


def _context(*parts: object) -> str:
    return hashlib.sha256(json.dumps([READING, *parts], default=str).encode()).hexdigest()
