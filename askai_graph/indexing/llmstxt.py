"""``llms.txt`` and ``llms-full.txt``: the site's pages for language models (https://llmstxt.org).

``llms.txt`` is Markdown in the llmstxt.org layout: an H1 with the site's name (its
generator's config: MkDocs ``site_name``, Docusaurus ``title``; else its home page's title), a
blockquote with a one-line summary, then H2 sections (the site's nav sections) listing
every page in the site's own order (the catalog's, ``retrieval.corpus.site_order_key``) as
``- [title](url): summary``. ``llms-full.txt`` holds every page's text in the same
order, each with its URL (and its title, when its text does not open with it).

``askai index`` writes both next to the index (``write_index_llms_files``, called by the
writer once the catalog is ordered), streaming the pages from the index database: a
100k-page site's text is never held in memory whole, and no stored page is validated
again (at 100k pages that was most of an incremental build's memory and a share of its
time). ``askai serve`` serves those files, or, for a
corpus without an index folder (the bundled sample site, a source folder), generates
them from the pages it serves (``site_pages``).

Titles and summaries are plain text (escaped in link text), so nothing in a page's
front matter becomes a link, a heading or markup of its own.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol
from urllib.parse import urlsplit

from askai_graph.retrieval.corpus import Corpus, Page, site_order_key
from askai_graph.text.plain import escape_markdown, markdown_link, plain_text

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
UNSECTIONED = "Pages"
"""The heading of pages the site lists under no nav section."""


class Listed(Protocol):
    """What the two files read of a page (a ``Page``, or a stored row)."""

    @property
    def title(self) -> str: ...  # noqa: D102
    @property
    def url(self) -> str: ...  # noqa: D102
    @property
    def summary(self) -> str: ...  # noqa: D102
    @property
    def section(self) -> str: ...  # noqa: D102


class Full(Listed, Protocol):
    """A page with its text, for ``llms-full.txt``."""

    @property
    def body(self) -> str: ...  # noqa: D102


class StoredPage(NamedTuple):
    """The columns of a stored page the two files use (read without validating a ``Page``)."""

    title: str
    url: str
    summary: str
    section: str
    body: str = ""


# Nothing but "/" between a URL's host and its end, "?" or "#": the only URLs whose path
# can be "" or "/". Tested first, so a 100k-page site is not split URL by URL.
_MAYBE_HOME = re.compile(r"(?:[^:/?#]*:)?(?://[^/?#]*)?/?(?:[?#]|$)")


def is_home(url: str) -> bool:
    """Whether ``url`` is the root of its host (its path is empty or ``/``)."""
    return _MAYBE_HOME.match(url) is not None and urlsplit(url).path in ("", "/")


def site_title(pages: Sequence[Listed], name: str | None = None) -> str:
    """Return the site's title: ``name`` (its config's), else its home page's, else its host name."""
    if name and plain_text(name):
        return plain_text(name)
    for page in pages:
        if is_home(page.url):
            return plain_text(page.title)
    hosts = (urlsplit(page.url).hostname for page in pages)
    return next((host for host in hosts if host), "Documentation")


def site_summary(pages: Sequence[Listed]) -> str:
    """Return the one-line summary: the home page's, else a count of the pages."""
    for page in pages:
        if is_home(page.url) and page.summary.strip():
            return plain_text(page.summary)
    return f"The {len(pages)} pages of this site, in the site's own order."


def llms_txt(pages: Sequence[Listed]) -> str:
    """Return ``llms.txt`` for ``pages`` (already in the site's order)."""
    return "".join(_llms_txt_lines(site_title(pages), site_summary(pages), pages))


def _llms_txt_lines(title: str, summary: str, pages: Iterable[Listed]) -> Iterator[str]:
    yield f"# {escape_markdown(title)}\n\n> {escape_markdown(summary)}\n"
    section: str | None = None
    for page in pages:
        if page.section != section:
            section = page.section
            yield f"\n## {escape_markdown(plain_text(section) or UNSECTIONED)}\n\n"
        text = plain_text(page.summary)
        link = markdown_link(page.title, page.url)
        yield f"- {link}: {escape_markdown(text)}\n" if text else f"- {link}\n"


def llms_full_txt(pages: Sequence[Full]) -> str:
    """Return ``llms-full.txt`` for ``pages``: each page's title, URL and text, in order."""
    return "".join(_llms_full_parts(site_title(pages), site_summary(pages), pages))


def _llms_full_parts(title: str, summary: str, pages: Iterable[Full]) -> Iterator[str]:
    yield f"# {escape_markdown(title)}\n\n> {escape_markdown(summary)}\n"
    for page in pages:
        body = page.body.strip()
        # Most pages open with their own H1; the others get their title as one.
        heading = "" if body.startswith("# ") else f"# {escape_markdown(plain_text(page.title))}\n\n"
        yield f"\n{heading}Source: {page.url}\n\n{body}\n"


_CATALOG = "FROM catalog c JOIN posts p ON p.id = c.post_id ORDER BY c.rank"


def write_index_llms_files(folder: Path, db: sqlite3.Connection, site_name: str | None = None) -> None:
    """Write ``llms.txt`` and ``llms-full.txt`` for the pages of an index database, in its catalog's order.

    The listing columns are read once (the site's title and summary need the home page);
    the page texts are streamed from SQLite into ``llms-full.txt`` a row at a time. The
    title is ``site_name`` when the site's config gives one (MkDocs ``site_name``,
    Docusaurus ``title``): the first page's title is often "Introduction".
    """
    listed = [StoredPage(*row) for row in db.execute(f"SELECT p.title, p.url, p.summary, p.section {_CATALOG}")]
    title, summary = site_title(listed, site_name), site_summary(listed)
    with (folder / LLMS_TXT).open("w", encoding="utf-8") as out:
        out.writelines(_llms_txt_lines(title, summary, listed))
    del listed
    rows = db.execute(f"SELECT p.title, p.url, p.summary, p.section, p.body {_CATALOG}")
    with (folder / LLMS_FULL_TXT).open("w", encoding="utf-8") as out:
        out.writelines(_llms_full_parts(title, summary, (StoredPage(*row) for row in rows)))


def site_pages(corpus: Corpus) -> list[Page]:
    """Return a served corpus' pages in the site's order (its index's catalog, when it has one)."""
    if corpus.index is not None:
        return [page for _, page in corpus.index.catalog(len(corpus.posts))]
    return sorted(corpus.posts, key=lambda p: site_order_key(p.weight, p.date, p.title, p.url))
