"""``llms.txt`` and ``llms-full.txt``: the site's pages for language models (https://llmstxt.org).

``llms.txt`` is Markdown in the llmstxt.org layout: an H1 with the site's title, a
blockquote with a one-line summary, then H2 sections (the site's nav sections) listing
every page in the site's own order (the catalog's, ``catalog.site_order_key``) as
``- [title](url): summary``. ``llms-full.txt`` holds every page's text in the same
order, each with its URL (and its title, when its text does not open with it).

``askai index`` writes both next to the index (``write_llms_files``, called by the
writer once the catalog is ordered); ``askai serve`` serves those files, or, for a
corpus without an index folder (the bundled sample site, a source folder), generates
them from the pages it serves (``site_pages``).

Titles and summaries are plain text (escaped in link text), so nothing in a page's
front matter becomes a link, a heading or markup of its own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from askai_graph.catalog import site_order_key
from askai_graph.indexing.store import row_post
from askai_graph.plaintext import escape_markdown, markdown_link, plain_text
from askai_graph.retrieval.corpus import Corpus, Page

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
UNSECTIONED = "Pages"
"""The heading of pages the site lists under no nav section."""


def site_title(pages: Sequence[Page]) -> str:
    """Return the site's title: its home page's (the page at the root of its host), else the host name."""
    for page in pages:
        if urlsplit(page.url).path in ("", "/"):
            return plain_text(page.title)
    hosts = [urlsplit(page.url).hostname for page in pages]
    return next((host for host in hosts if host), "Documentation")


def site_summary(pages: Sequence[Page]) -> str:
    """Return the one-line summary: the home page's, else a count of the pages."""
    for page in pages:
        if urlsplit(page.url).path in ("", "/") and page.summary.strip():
            return plain_text(page.summary)
    return f"The {len(pages)} pages of this site, in the site's own order."


def llms_txt(pages: Sequence[Page]) -> str:
    """Return ``llms.txt`` for ``pages`` (already in the site's order)."""
    lines = [f"# {escape_markdown(site_title(pages))}", "", f"> {escape_markdown(site_summary(pages))}"]
    section: str | None = None
    for page in pages:
        if page.section != section:
            section = page.section
            lines += ["", f"## {escape_markdown(plain_text(section) or UNSECTIONED)}", ""]
        summary = plain_text(page.summary)
        link = markdown_link(page.title, page.url)
        lines.append(f"- {link}: {escape_markdown(summary)}" if summary else f"- {link}")
    return "\n".join(lines) + "\n"


def llms_full_txt(pages: Sequence[Page]) -> str:
    """Return ``llms-full.txt`` for ``pages``: each page's title, URL and text, in order."""
    parts = [f"# {escape_markdown(site_title(pages))}\n\n> {escape_markdown(site_summary(pages))}\n"]
    for page in pages:
        body = page.body.strip()
        # Most pages open with their own H1; the others get their title as one.
        title = "" if body.startswith("# ") else f"# {escape_markdown(plain_text(page.title))}\n\n"
        parts.append(f"{title}Source: {page.url}\n\n{body}\n")
    return "\n".join(parts)


def write_llms_files(folder: Path, pages: Sequence[Page]) -> None:
    """Write ``llms.txt`` and ``llms-full.txt`` for ``pages`` into ``folder``."""
    (folder / LLMS_TXT).write_text(llms_txt(pages), "utf-8")
    (folder / LLMS_FULL_TXT).write_text(llms_full_txt(pages), "utf-8")


def catalog_pages(db: sqlite3.Connection) -> list[Page]:
    """Return the pages of an index database in its catalog's order."""
    rows = db.execute(
        "SELECT p.title, p.url, p.summary, p.body, p.images, p.weight, p.date, p.section, p.anchors FROM catalog c "
        "JOIN posts p ON p.id = c.post_id ORDER BY c.rank"
    )
    return [row_post(row) for row in rows]


def site_pages(corpus: Corpus) -> list[Page]:
    """Return a served corpus' pages in the site's order (its index's catalog, when it has one)."""
    if corpus.index is not None:
        return [page for _, page in corpus.index.catalog(len(corpus.posts))]
    return sorted(corpus.posts, key=lambda p: site_order_key(p.weight, p.date, p.title, p.url))
