"""The Sphinx extension: ``extensions = ["askai_graph.sphinx"]`` in ``conf.py``.

The options are ``conf.py`` values with an ``askai_`` prefix (``askai_server_url``,
``askai_mode``, ``askai_index``, ``askai_suggestions``, ``askai_strings``), checked when
the config is read: a misspelt ``askai_*`` name or a wrong value stops the build.

For the ``html`` and ``dirhtml`` builders the widget's script is added with
``app.add_js_file`` and its element at the end of each page's body. Sphinx's own pages
(``genindex``, ``search``, ``py-modindex``) are rendered from templates with no body to
add to: the element is written into their HTML when the build finishes (a reader lands
there too), and they are not indexed (they are no document of the site). On
``build-finished`` the index is built from the HTML Sphinx rendered (the built-site
reader, ``rendered``), each page with the URL the builder gives it under
``html_baseurl``, its title, and its place in the toctree's reading order (depth first
from the root document, as Sphinx's own "next" links go). A page is read from its body
as Sphinx hands it to the theme (kept in the doctree folder when the page is written,
since an incremental build writes only the pages that changed): the theme's sidebar,
which names every page, is no page's text. The index is updated incrementally in the
doctree folder, which Sphinx keeps between builds, and copied into the output's
``askai/index/``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.config import Config
from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging

from askai_graph.plugins import SITE_INDEX
from askai_graph.plugins.options import LOCAL_SITE_URL, OptionsError, SiteOptions, site_options
from askai_graph.plugins.rendered import RenderedPage, summary_line, write_site_index
from askai_graph.plugins.widget import THEME_STYLE, insert_before_body_end, widget_element
from askai_graph.retrieval.corpus import CorpusError

BUILDERS = ("html", "dirhtml")
PREFIX = "askai_"
BODIES = "askai-bodies"
"""The doctree folder's folder of each page's rendered body, one per builder."""
log = logging.getLogger(__name__)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``askai_*`` config values and the build's hooks."""
    for name, field in SiteOptions.model_fields.items():
        app.add_config_value(PREFIX + name, field.default, "html")
    app.connect("config-inited", _check_options)
    app.connect("builder-inited", _add_script)
    app.connect("html-page-context", _add_element)
    app.connect("build-finished", _add_element_to_generated_pages)
    app.connect("build-finished", _write_index)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def _options(app: Sphinx) -> SiteOptions:
    options: SiteOptions = app.config._askai_options  # noqa: SLF001 - set by _check_options
    return options


def _check_options(app: Sphinx, config: Config) -> None:
    raw = getattr(config, "_raw_config", {})
    values = {name[len(PREFIX):]: raw[name] for name in raw if name.startswith(PREFIX)}  # a misspelt name too
    values.update({name: config[PREFIX + name] for name in SiteOptions.model_fields})
    try:
        config._askai_options = site_options(values)  # noqa: SLF001 - the checked options, kept with the config
    except OptionsError as exc:
        raise ConfigError(f"askai: option {PREFIX + exc.option!r}: {exc.problem}") from None


def _add_script(app: Sphinx) -> None:
    if app.builder.name not in BUILDERS:
        return
    options = _options(app)
    # A relative file is taken under _static/; without a server the widget comes from the site's root.
    src = options.server_url.rstrip("/") + "/widget.js" if options.server_url else "../widget.js"
    attributes: dict[str, Any] = {"data-askai-script": ""}
    app.add_js_file(src, loading_method="defer", **attributes)


def _add_element(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if app.builder.name not in BUILDERS:
        return
    context["metatags"] = context.get("metatags", "") + THEME_STYLE
    if "body" in context:
        if _options(app).index:
            body = _body_file(app, pagename)
            body.parent.mkdir(parents=True, exist_ok=True)
            body.write_text(context["body"], "utf-8")
        context["body"] = context["body"] + widget_element(_options(app))
    else:  # genindex, search, py-modindex: no body in the context; written in at the end
        _generated(app).add(pagename)


def _body_file(app: Sphinx, pagename: str) -> Path:
    """Where the page's body (its content without the theme) is kept between builds."""
    name = hashlib.sha256(pagename.encode()).hexdigest()
    # Not .html: the doctree folder may be inside the output (sphinx-build -b's default): no page there.
    return Path(app.doctreedir) / BODIES / app.builder.name / f"{name}.body"


def _generated(app: Sphinx) -> set[str]:
    """The pages rendered without a body this build (Sphinx's own: the index, search, module index)."""
    pages: set[str] | None = getattr(app, "_askai_generated", None)
    if pages is None:
        pages = set()
        app._askai_generated = pages  # type: ignore[attr-defined]  # noqa: SLF001 - one build's bookkeeping
    return pages


def _add_element_to_generated_pages(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.name not in BUILDERS:
        return
    builder = app.builder
    assert isinstance(builder, StandaloneHTMLBuilder)  # html and dirhtml (BUILDERS)
    element = widget_element(_options(app))
    for pagename in sorted(_generated(app)):
        path = Path(builder.get_outfilename(pagename))
        if not path.is_file():
            continue
        html = path.read_text("utf-8")
        if "<askai-widget" not in html:
            path.write_text(insert_before_body_end(html, element), "utf-8")
    _generated(app).clear()


def _write_index(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.name not in BUILDERS or not _options(app).index:
        return
    base = app.config.html_baseurl or ""
    if not base:
        base = LOCAL_SITE_URL
        log.warning(f"askai: conf.py has no html_baseurl: the index links pages at {LOCAL_SITE_URL} "
                    "(askai serve --site); set html_baseurl before publishing")
    base = base if base.endswith("/") else base + "/"
    outdir = Path(app.outdir)
    try:
        summary = write_site_index(
            _pages(app, base), cache=Path(app.doctreedir) / "askai-index", site_dir=outdir,
            context=f"sphinx\0{app.builder.name}\0{base}", source_name=str(Path(app.srcdir).resolve()),
        )
    except CorpusError as exc:
        raise ExtensionError(f"askai: cannot index the site: {exc}") from None
    log.info(summary_line(summary, outdir / SITE_INDEX))


def _pages(app: Sphinx, base: str) -> list[RenderedPage]:
    env, builder = app.env, app.builder
    assert isinstance(builder, StandaloneHTMLBuilder)  # html and dirhtml (BUILDERS)
    places = toctree_order(app.config.root_doc, env.toctree_includes, {d: env.titles[d].astext() for d in env.titles})
    pages = []
    for docname in sorted(env.found_docs):
        path = Path(builder.get_outfilename(docname))
        if not path.is_file():
            continue
        rank, section = places.get(docname, (None, ""))
        title = env.titles[docname].astext() if docname in env.titles else docname
        uri = builder.get_target_uri(docname)
        body = _body_file(app, docname)
        # Without a kept body (an output written before this version of the extension) the whole page is read.
        html, content_only = (body.read_text("utf-8"), True) if body.is_file() else (path.read_text("utf-8"), False)
        pages.append(RenderedPage(
            where=str(env.doc2path(docname, False)), url=base + uri, title=title,
            html=html, rank=rank, section=section, content_only=content_only,
        ))
    return pages


def toctree_order(root: str, includes: dict[str, list[str]], titles: dict[str, str]) -> dict[str, tuple[int, str]]:
    """Return each document's rank in reading order (depth first from ``root``) and its section.

    The section is the title of the document whose toctree lists it ('' for those the
    root document lists).
    """
    order: dict[str, tuple[int, str]] = {}
    stack = [(root, "")]
    while stack:
        doc, section = stack.pop()
        if doc in order:
            continue
        order[doc] = (len(order), section)
        label = "" if doc == root else titles.get(doc, "")
        stack.extend((child, label) for child in reversed(includes.get(doc, [])))
    return order
