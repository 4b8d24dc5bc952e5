"""The site's index, built from the pages its generator rendered: final URLs, nav titles and order.

A generator knows what a crawler or a reader of the source tree has to guess: where each
page is published, the title the nav gives it, its section and its place in reading
order. Each rendered page is one index unit; the URL, title, section and rank come
from the generator. Its text is read, when the generator hands the plugin the page's
Markdown (MkDocs), with the Markdown reader of ``askai index`` (``indexing.markdown``):
the same sections, headings, code and prose as an index of the source tree, which
measured better answers than reading the rendered HTML (docs/benchmarks.md). Otherwise
(Sphinx) it is read from the HTML the generator rendered, with the built-site reader
(``indexing.html``: headings' anchors, code blocks, their languages): the page's body
alone when the generator hands it over (``content_only``), else its main content.

The index is kept in a cache folder outside the built site (generators wipe their output
folder before each build) and updated there incrementally: a page whose rendered HTML,
URL and place did not change is not parsed again, which is what makes each rebuild of a
``mkdocs serve`` or ``sphinx-autobuild`` cheap. The finished index is then copied into
the built site (``askai/index/``), where ``askai serve --site`` finds it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from askai_graph.indexing.build import write_source
from askai_graph.indexing.files import Skip
from askai_graph.indexing.html import read_content_html, read_html_page
from askai_graph.indexing.markdown import read_generator_markdown
from askai_graph.indexing.sites import SiteProfile
from askai_graph.indexing.sources import Source, Unit
from askai_graph.indexing.writer import IndexSummary
from askai_graph.plugins import SITE_INDEX
from askai_graph.retrieval.corpus import Page
from askai_graph.settings import Settings


@dataclass(frozen=True)
class RenderedPage:
    """One page as its generator built it."""

    where: str
    """The page's source file, relative to the docs folder (its identity across builds)."""
    url: str
    """Its final, absolute URL."""
    title: str
    """The title the nav shows for it."""
    html: str
    """The HTML the generator wrote: the whole page, or (``content_only``) its main content alone."""
    rank: int | None = None
    """Its place in the nav's reading order, from 0 (``None``: not in the nav; it comes after those that are)."""
    section: str = ""
    """The label of the nav section it is listed under ('' at the top level)."""
    content_only: bool = False
    """``html`` is the page's content without the theme around it: read it as such (faster)."""
    description: str = ""
    """The page's description (its summary), when the generator knows one."""
    markdown: str | None = None
    """The page's Markdown as the generator hands it to its renderer (front matter removed), when it has one."""


class RenderedUnit(Unit):
    """A rendered page as an index unit: unchanged when its HTML, URL and place are."""

    def __init__(self, page: RenderedPage, site: SiteProfile) -> None:
        """Index ``page`` of ``site`` (which resolves a Markdown page's snippet includes and images)."""
        self.page, self.site = page, site
        self.key = self.where = page.where
        meta = json.dumps([page.url, page.title, page.rank, page.section, page.content_only, page.description])
        # The HTML stays in the stamp when the Markdown is read: it changes with an included file.
        markdown = b"" if page.markdown is None else page.markdown.encode()
        self.stamp = hashlib.sha256(b"\0".join((meta.encode(), page.html.encode(), markdown))).hexdigest()

    def digest(self) -> str | Skip:
        """Return the content hash (already computed as the stamp)."""
        return self.stamp

    def parse(self) -> Page | Skip:
        """Read the page's main content; URL, title, section and order are the generator's."""
        page = self.page
        if page.markdown is not None:
            title = " ".join(page.title.split()) or self.where
            post = read_generator_markdown(self.where, page.markdown, page.url, title, page.description, self.site)
        elif page.content_only:
            title = " ".join(page.title.split()) or self.where
            post = read_content_html(self.where, page.html, page.url, title, page.description)
        else:
            post = read_html_page(self.where, page.html, page.url)
        if isinstance(post, Skip):
            return post
        update = {"url": self.page.url, "section": self.page.section}
        if self.page.title.strip():
            update["title"] = " ".join(self.page.title.split())
        return post.model_copy(update={**update, "weight": None if self.page.rank is None else float(self.page.rank)})


def site_source(pages: Iterable[RenderedPage], context: str, site: SiteProfile | None = None) -> Source:
    """Return the rendered pages as an index source; ``context`` names what all of them depend on (the base URL)."""
    profile = site or SiteProfile()
    units: Iterator[Unit | Skip] = (RenderedUnit(page, profile) for page in pages)
    return Source("site", hashlib.sha256(context.encode()).hexdigest(), units)


def write_site_index(
    pages: Iterable[RenderedPage],
    *,
    cache: Path,
    site_dir: Path,
    context: str,
    source_name: str,
    site: SiteProfile | None = None,
) -> IndexSummary:
    """Update the index in ``cache`` from ``pages`` and copy it into ``site_dir/askai/index``.

    ``site`` reads the pages that carry their Markdown (the generator, its snippet
    includes, its base URL). The environment's ``ASKAI_*`` settings apply as for ``askai index`` (passage size, an
    embedding model with ``ASKAI_EMBEDDINGS``).

    Raises:
        CorpusError: no page could be indexed, or ``cache`` holds something else than an index.
    """
    from askai_graph.retrieval.embeddings import embeddings_for, model_key

    settings = Settings()
    summary = write_source(
        site_source(pages, context, site),
        cache,
        source_name,
        passage_chars=settings.passage_chars,
        embeddings=embeddings_for(settings, batch=True),
        embeddings_model=model_key(settings),
    )
    target = site_dir / SITE_INDEX
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(cache, target)
    return summary


def summary_line(summary: IndexSummary, target: Path) -> str:
    """Return the one line a build prints: pages indexed, where, and what was parsed anew."""
    skipped = f", {len(summary.errors)} skipped" if summary.errors else ""
    return (
        f"askai: indexed {summary.posts} pages into {target} ({summary.parsed} parsed, the rest unchanged"
        f"{skipped}) in {summary.seconds:.1f} s"
    )
