"""The tags a plugin puts on each built page: the widget's script, its element, and its colours.

``<script src=".../widget.js" defer>`` and one ``<askai-widget>``. With a ``server_url``
both point at that server; without one the script is taken from the site's own root
(a path relative to the page, so a site built for a sub-path still finds it) and the
widget asks the server it came from: ``askai serve --site`` serves the pages, the
widget and the API from one origin.

The widget follows the reader's system colour scheme by itself. A theme with a dark
mode of its own (Material's ``slate``, the MkDocs theme's and Bootstrap's
``data-bs-theme``, Furo's and PyData's ``data-theme``) may show dark pages on a light
system or the reverse, and switches without a reload. The widget's colours are CSS
custom properties on its host element, which inherit into its shadow root and which a
rule of the page outranks; so a small style sheet sets them from the theme's own
attribute, live, with no script.
"""

from __future__ import annotations

import json
from html import escape

from askai_graph.plugins.options import SiteOptions

# The widget's two palettes (web/src/styles.css; a test keeps them equal).
LIGHT = {
    "bg": "#ffffff", "fg": "#1c1e21", "muted": "#5b616b", "border": "#d9dce1", "accent": "#2450c8",
    "accent-fg": "#ffffff", "card": "#f5f7fa", "code": "#f0f2f5", "notice": "#fff6e0", "notice-fg": "#5c4200",
    "error": "#b3261e",
}
DARK = {
    "bg": "#17191c", "fg": "#e8eaed", "muted": "#a5abb4", "border": "#363a40", "accent": "#8fb0ff",
    "accent-fg": "#0d1424", "card": "#202328", "code": "#24272c", "notice": "#3a2f12", "notice-fg": "#f4dca0",
    "error": "#ff9d94",
}
# Where each theme says which scheme it shows.
DARK_SELECTORS = ('[data-md-color-scheme="slate"]', '[data-bs-theme="dark"]', '[data-theme="dark"]')
LIGHT_SELECTORS = ('[data-md-color-scheme="default"]', '[data-bs-theme="light"]', '[data-theme="light"]')


def _rule(selectors: tuple[str, ...], palette: dict[str, str]) -> str:
    targets = ",".join(f"{selector} askai-widget" for selector in selectors)
    return targets + "{" + ";".join(f"--askai-{name}:{value}" for name, value in palette.items()) + "}"


THEME_STYLE = f"<style data-askai-theme>{_rule(LIGHT_SELECTORS, LIGHT)}{_rule(DARK_SELECTORS, DARK)}</style>"
"""The page's own colour scheme wins over the system's, in both directions."""


def script_tag(options: SiteOptions, to_root: str) -> str:
    """Return the ``<script>`` that loads the widget; ``to_root`` is the page's relative path to the site root."""
    src = options.server_url.rstrip("/") + "/widget.js" if options.server_url else f"{to_root}widget.js"
    return f'<script src="{escape(src)}" defer data-askai-script></script>'


def widget_element(options: SiteOptions) -> str:
    """Return the one ``<askai-widget>`` element, its attributes from the options."""
    attributes = []
    if options.server_url:
        attributes.append(f'endpoint="{escape(options.server_url)}"')
    if options.mode == "inline":
        attributes.append("inline")
    if options.suggestions is not None:
        attributes.append(f'suggestions="{escape(json.dumps(options.suggestions))}"')
    if options.strings is not None:
        attributes.append(f'strings="{escape(json.dumps(options.strings))}"')
    return f"<askai-widget {' '.join(attributes)}></askai-widget>".replace(" >", ">")


def page_tags(options: SiteOptions, to_root: str) -> str:
    """Return everything a floating widget adds before ``</body>``: style, script and element."""
    return THEME_STYLE + script_tag(options, to_root) + widget_element(options)


def insert_before_body_end(html: str, tags: str) -> str:
    """Return ``html`` with ``tags`` before its last ``</body>`` (at the end when it has none)."""
    at = html.lower().rfind("</body>")
    return html + tags if at < 0 else html[:at] + tags + html[at:]
