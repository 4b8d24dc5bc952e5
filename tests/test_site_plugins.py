"""The parts the site-generator plugins share: checked options and the tags put on each page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from askai_graph.plugins.options import OptionsError, site_options
from askai_graph.plugins.widget import DARK, LIGHT, insert_before_body_end, widget_element

STYLES = Path(__file__).resolve().parent.parent / "web" / "src" / "styles.css"


def palette(css: str) -> dict[str, str]:
    return dict(re.findall(r"--askai-([\w-]+):\s*(#[0-9a-f]+);", css))


def test_the_theme_palettes_are_the_widgets_own() -> None:
    css = STYLES.read_text("utf-8")
    light, dark = css.split("@media (prefers-color-scheme: dark)")
    assert palette(light.split("}")[0]) == LIGHT
    assert palette(dark.split("}")[0]) == DARK


@pytest.mark.parametrize(
    ("values", "option", "problem"),
    [
        ({"sever_url": "https://x.example"}, "sever_url", "unknown option (the options are server_url, mode, index"),
        ({"server_url": "ftp://x.example"}, "server_url", "must be an http:// or https:// URL (got 'ftp://x.example')"),
        ({"server_url": "https://"}, "server_url", "must be an http:// or https:// URL"),
        ({"mode": "sidebar"}, "mode", "Input should be 'floating' or 'inline'"),
        ({"index": "maybe"}, "index", "valid boolean"),
        ({"suggestions": "How?"}, "suggestions", "valid list"),
        ({"strings": {"send": 3}}, "strings.send", "valid string"),
    ],
)
def test_a_wrong_option_is_one_error_naming_it(values: dict[str, object], option: str, problem: str) -> None:
    with pytest.raises(OptionsError) as caught:
        site_options(values)
    assert caught.value.option == option and problem in caught.value.problem


def test_option_values_are_escaped_into_the_element() -> None:
    options = site_options({"suggestions": ['"><script>alert(1)</script>'], "strings": {"send": "A & B"}})
    element = widget_element(options)
    assert "<script>" not in element and element.count("<") == 2
    assert 'strings="{&quot;send&quot;: &quot;A &amp; B&quot;}"' in element


def test_tags_go_before_the_last_body_end_or_at_the_end() -> None:
    assert insert_before_body_end("<body><p>x</p></BODY></html>", "<i>") == "<body><p>x</p><i></BODY></html>"
    assert insert_before_body_end("<p>x</p>", "<i>") == "<p>x</p><i>"


def test_rendered_content_keeps_headings_without_their_permalink_and_identifiers_unescaped() -> None:
    from askai_graph.indexing.html import read_content_html
    from askai_graph.retrieval.corpus import Page

    permalink = '<a class="headerlink" href="#dump" title="Permanent link">¶</a>'
    html = (f'<html><body><article><p>Models can be dumped.</p><h2 id="dump">Serializing data{permalink}</h2>'
            "<p>Call model_dump() to get a dict.</p></article></body></html>")
    page = read_content_html("concepts.md", html, "https://x.example/concepts/", "Concepts")
    assert isinstance(page, Page)
    assert page.body == "Models can be dumped.\n\n## Serializing data\n\nCall model_dump() to get a dict."
    assert [(a.heading, a.id) for a in page.anchors] == [("Serializing data", "dump")]


def test_unresolved_reference_links_read_as_their_text() -> None:
    from askai_graph.indexing.html import read_content_html
    from askai_graph.retrieval.corpus import Page

    html = ("<html><body><article><p>Subclass [<code>BaseModel</code>][pydantic.BaseModel] and call "
            "[dict][] on it; [a link](x) in brackets stays.</p></article></body></html>")
    page = read_content_html("models.md", html, "https://x.example/models/", "Models")
    assert isinstance(page, Page)
    assert page.body.startswith("Subclass `BaseModel` and call dict on it;")
