"""Code blocks of built pages keep their lines and language, however the highlighter wrapped them (issue #38).

``tests/data/highlighted/page.html`` is written for these tests in the markup Pygments
gives through ``pymdownx.highlight`` (with Material's line spans and anchors, plainly,
and in a line-numbered table) and through Sphinx.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph.indexing.html import read_content_html, read_html_page
from askai_graph.retrieval.corpus import Page

PAGE = (Path(__file__).parent / "data" / "highlighted" / "page.html").read_text("utf-8")
URL = "https://shop.example/models/"


def _read(reader: str) -> Page:
    if reader == "content":
        page = read_content_html("models.md", PAGE, URL, "Models")
    else:
        page = read_html_page("models/index.html", PAGE, URL)
    assert isinstance(page, Page)
    return page


@pytest.fixture(params=["content", "page"])
def body(request: pytest.FixtureRequest) -> str:
    return _read(request.param).body


def test_line_spans_keep_blank_lines_and_stay_out_of_the_paragraphs(body: str) -> None:
    code = 'from shop import Model\n\n\nclass Basket(Model):\n    items: int\n\n    owner: str = "Ada"'
    assert f"A model is a class with typed fields.\n\n```python\n{code}\n```\n\nFields without" in body


def test_plain_pygments_keeps_blank_lines(body: str) -> None:
    assert "```bash\n$ shop check basket.py\n\n$ shop run\n```" in body


def test_a_line_numbered_table_gives_its_code_without_the_numbers(body: str) -> None:
    assert "```toml\n[shop]\n\nstrict = true\n```" in body


def test_sphinx_blocks_take_the_language_of_the_block_around_them(body: str) -> None:
    assert "```python\nbasket = Basket(items=2)\n\nprint(basket)\n```" in body


def test_code_set_aside_leaves_no_placeholder_and_headings_keep_their_ids() -> None:
    page = _read("content")
    assert "askaicode" not in page.body
    assert [(a.heading, a.id) for a in page.anchors] == [("Models", "models"), ("Running it", "shell")]


def test_a_page_of_many_blocks_gets_each_block_back_in_its_place() -> None:
    blocks = "".join(f"<p>Step {n}.</p><pre><code>run({n})\n\ncheck({n})</code></pre>" for n in range(12))
    page = read_content_html("steps.md", f"<html><body><article>{blocks}</article></body></html>", URL, "Steps")
    assert isinstance(page, Page)
    expected = "\n\n".join(f"Step {n}.\n\n```\nrun({n})\n\ncheck({n})\n```" for n in range(12))
    assert page.body == expected


def _one_block(pre: str) -> str:
    page = read_content_html("cli.md", f"<html><body><article><p>Run:</p>{pre}</article></body></html>", URL, "CLI")
    assert isinstance(page, Page)
    return page.body


def test_inline_line_numbers_are_not_part_of_the_code() -> None:
    # Sphinx's `:linenos:` (html_codeblock_linenos_style = "inline"): the numbers are spans inside the <pre>.
    pre = ('<div class="highlight-sh notranslate"><div class="highlight"><pre><span></span>'
           '<span class="linenos">1</span>shop<span class="w"> </span>check\n'
           '<span class="linenos">2</span>shop<span class="w"> </span>run\n</pre></div></div>')
    assert "```sh\nshop check\nshop run\n```" in _one_block(pre)


def test_trailing_spaces_inside_a_code_line_are_kept() -> None:
    # Two spaces ending a Markdown line are a hard line break: a Markdown sample without them says something else.
    lines = ["Ends in a hard break:  ", "the next line.", "tab\t"]
    pre = '<pre class="language-md"><code>' + "\n".join(lines) + "\n</code></pre>"
    assert "```md\n" + "\n".join(lines) + "\n```" in _one_block(pre)
