"""The MkDocs plugin: ``plugins: [search, askai]`` in ``mkdocs.yml``.

On ``mkdocs build`` (and each rebuild of ``mkdocs serve``) it puts the widget on every
page MkDocs renders and writes the site's index into the built site (``askai/index/``)
from those pages: their final URLs, the titles the nav gives them, their sections and
the nav's order (``rendered``), and their text from the content MkDocs rendered for
each (``content_document``). The index is updated incrementally in
``.cache/plugin/askai/`` beside ``mkdocs.yml`` (where Material's plugins keep their
caches too), so a rebuild parses only the pages whose HTML changed.

Options are checked when the config loads: an unknown one, or a wrong value, stops the
build with one line naming it (MkDocs by itself only warns about unknown plugin options).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

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
            log.warning(f"askai: mkdocs.yml has no site_url: the index links pages at {LOCAL_SITE_URL} "
                        "(askai serve --site); set site_url before publishing")
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
            self.pages.append(RenderedPage(
                where=page.file.src_uri,
                url=self.base_url + page.url,
                title=page.title or "",
                html=content_document(page),
                content_only=True,
                description=description if isinstance(description := page.meta.get("description"), str) else "",
                rank=self.ranks.get(page.file.src_uri),
                section=str(parent.title) if parent is not None and parent.title else "",
            ))
        return output

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Write the index of the rendered pages into the built site; print one line."""
        if not self.options.index:
            return
        site_dir = Path(config.site_dir)
        cache = Path(config.config_file_path).parent / CACHE
        try:
            summary = write_site_index(
                self.pages, cache=cache, site_dir=site_dir, context=f"mkdocs\0{self.base_url}",
                source_name=str(Path(config.docs_dir).resolve()),
            )
        except CorpusError as exc:
            raise PluginError(f"askai: cannot index the site: {exc}") from None
        finally:
            self.pages = []
        log.info(summary_line(summary, site_dir / SITE_INDEX))


def content_document(page: Page) -> str:
    """Return the page's rendered content as a document of its own: what the index reads.

    The theme's chrome around it (nav, header, footer) is no text of the page, and
    changes with other pages (a nav title) or with every build (the MkDocs theme's build
    date): reading the content alone makes a rebuild re-read only the pages whose own
    HTML changed, and makes extraction cheaper (no boilerplate to find).
    """
    return f"<!doctype html><html><body><article>{page.content or ''}</article></body></html>"
