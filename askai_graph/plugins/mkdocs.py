"""The MkDocs plugin: ``plugins: [search, askai]`` in ``mkdocs.yml``.

On ``mkdocs build`` (and each rebuild of ``mkdocs serve``) it puts the widget on every
page MkDocs renders and writes the site's index into the built site (``askai/index/``)
from those pages: their final URLs, the titles the nav gives them, their sections and
the nav's order (``rendered``), and their text from each page's Markdown as MkDocs hands
it to its renderer (``page.markdown``: front matter removed, every other plugin's
``on_page_markdown`` applied), read with the Markdown reader ``askai index`` uses: the
same sections, headings, code and prose as an index of the source tree, which answered
more questions on a real site than the text of the rendered HTML (docs/benchmarks.md).
The index is updated incrementally in ``.cache/plugin/askai/`` beside ``mkdocs.yml``
(where Material's plugins keep their caches too), so a rebuild parses only the pages
whose Markdown or rendered content changed.

Options are checked when the config loads: an unknown one, or a wrong value, stops the
build with one line naming it (MkDocs by itself only warns about unknown plugin options).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from askai_graph.indexing.frontmatter import as_text
from askai_graph.indexing.sites import SiteProfile
from askai_graph.indexing.snippets import Snippets, repository_root
from askai_graph.plugins import SITE_INDEX
from askai_graph.plugins.options import LOCAL_SITE_URL, OptionsError, SiteOptions, site_options
from askai_graph.plugins.rendered import RenderedPage, summary_line, write_site_index
from askai_graph.plugins.widget import THEME_STYLE, insert_before_body_end, page_tags, script_tag, widget_element
from askai_graph.retrieval.corpus import CorpusError

CACHE = Path(".cache") / "plugin" / "askai" / "index"
"""Where the incrementally updated index lives, relative to ``mkdocs.yml``."""

log = logging.getLogger("mkdocs.plugins.askai")


class AskAIPlugin(BasePlugin):  # type: ignore[type-arg,no-untyped-call]
    """Puts the Ask AI widget on every page and the site's index into the built site."""

    def __init__(self) -> None:
        """Start with the default options (MkDocs calls ``load_config`` with the site's)."""
        super().__init__()
        self.options = SiteOptions()
        self.base_url = LOCAL_SITE_URL
        self.ranks: dict[str, int] = {}
        self.pages: list[RenderedPage] = []
        self.site = SiteProfile(generator="mkdocs")

    def load_config(self, options: dict[str, Any], config_file_path: str | None = None) -> tuple[Any, Any]:
        """Check the options: an unknown one or a wrong value is an error, not a warning."""
        super().load_config({}, config_file_path)  # MkDocs' own bookkeeping of the plugin's config
        try:
            self.options = site_options(dict(options))
        except OptionsError as exc:
            return [(exc.option, exc.problem)], []
        return [], []

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        """Find the pages' base URL: ``site_url``, else where ``askai serve --site`` serves them."""
        self.pages, self.ranks = [], {}
        if config.site_url:
            self.base_url = config.site_url if config.site_url.endswith("/") else config.site_url + "/"
        elif self.options.index:
            self.base_url = LOCAL_SITE_URL
            log.warning(
                f"askai: mkdocs.yml has no site_url: the index links pages at {LOCAL_SITE_URL} "
                "(askai serve --site); set site_url before publishing"
            )
        self.site = markdown_profile(config, self.base_url)
        return config

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Any) -> Navigation | None:
        """Remember each page's place in the nav's reading order."""
        self.ranks = {page.file.src_uri: rank for rank, page in enumerate(nav.pages)}
        return nav

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Any) -> str | None:
        """In inline mode, put the panel under the page's content."""
        if self.options.mode == "inline":
            return html + widget_element(self.options)
        return html

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str | None:
        """Add the widget to the page as written, and keep the page for the index."""
        to_root = "../" * page.url.count("/")
        if self.options.mode == "inline" or "<askai-widget" in output:
            tags = THEME_STYLE + script_tag(self.options, to_root)  # the element is already in the page
        else:
            tags = page_tags(self.options, to_root)
        output = insert_before_body_end(output, tags)
        if self.options.index:
            parent = page.parent
            self.pages.append(
                RenderedPage(
                    where=page.file.src_uri,
                    url=self.base_url + page.url,
                    title=page.title or "",
                    html=content_document(page),
                    content_only=True,
                    description=page_summary(page.meta),
                    rank=self.ranks.get(page.file.src_uri),
                    section=str(parent.title) if parent is not None and parent.title else "",
                    markdown=page.markdown,
                )
            )
        return output

    def on_post_template(self, output_content: str, /, *, template_name: str, config: MkDocsConfig) -> str | None:
        """Put the widget on the theme's ``404.html`` too (a reader lands there); it is not indexed.

        The server shows that page at any missing path, so its script is loaded from the
        site's root path, not relative to where the file sits.
        """
        if not template_name.endswith(".html") or "<askai-widget" in output_content:
            return output_content
        return insert_before_body_end(output_content, page_tags(self.options, urlsplit(self.base_url).path or "/"))

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Write the index of the rendered pages into the built site; print one line."""
        if not self.options.index:
            return
        site_dir = Path(config.site_dir)
        cache = Path(config.config_file_path).parent / CACHE
        try:
            summary = write_site_index(
                self.pages,
                cache=cache,
                site_dir=site_dir,
                context=f"mkdocs\0{self.base_url}",
                source_name=str(Path(config.docs_dir).resolve()),
                site=self.site,
            )
        except CorpusError as exc:
            raise PluginError(f"askai: cannot index the site: {exc}") from None
        finally:
            self.pages = []
        for note in self.site.notes:
            log.info(f"askai: {note.where}: {note.reason}")
        self.site.notes.clear()
        log.info(summary_line(summary, site_dir / SITE_INDEX))


def markdown_profile(config: MkDocsConfig, base_url: str) -> SiteProfile:
    """Return how ``askai index`` reads this site's Markdown: MkDocs syntax, its snippet includes, its base URL.

    Snippet paths resolve as ``askai index`` resolves them (the page's folder, the docs
    folder, the config's folder) and, first, against the ``base_path`` folders the site
    gives ``pymdownx.snippets``, which renders them in MkDocs.
    """
    docs, folder = Path(config.docs_dir).resolve(), Path(config.config_file_path).parent.resolve()
    search = [*snippet_base_paths(config.mdx_configs.get("pymdownx.snippets"), folder), folder]
    snippets = Snippets(docs, search, repository_root(docs, folder))
    profile = SiteProfile(generator="mkdocs", base_url=base_url, snippets=snippets)
    snippets.notes = profile.notes  # one list: what the build reports
    return profile


def snippet_base_paths(options: object, folder: Path) -> list[Path]:
    """Return the ``base_path`` folders of ``pymdownx.snippets``' options (relative to the config's folder)."""
    paths = options.get("base_path") if isinstance(options, dict) else None
    listed = [paths] if isinstance(paths, str) else paths if isinstance(paths, list) else []
    return [(folder / path).resolve() for path in listed if isinstance(path, str)]


def page_summary(meta: Mapping[str, Any]) -> str:
    """Return the page's front matter ``summary``, else its ``description`` (the Markdown reader's order), or ''."""
    return as_text(meta.get("summary")) or as_text(meta.get("description"))


def content_document(page: Page) -> str:
    """Return the page's rendered content as a document of its own (what the index keeps in each page's stamp).

    The theme's chrome around it (nav, header, footer) is no text of the page, and
    changes with other pages (a nav title) or with every build (the MkDocs theme's build
    date): stamping the content alone makes a rebuild re-read only the pages whose own
    HTML changed (an included file's, too).
    """
    return f"<!doctype html><html><body><article>{page.content or ''}</article></body></html>"
