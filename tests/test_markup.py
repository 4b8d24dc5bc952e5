"""Generator syntax becomes the Markdown and the text readers see; code is never touched."""

from __future__ import annotations

import pytest

from askai_graph.indexing.markup import clean_prose, first_h1, plain_line, strip_mdx, summary_line, unwrap_mkdocs


@pytest.mark.parametrize(
    ("body", "title"),
    [
        ("```shell\n# a shell comment\n```\n\n# Real title\n", "Real title"),
        ("~~~~\n# not a heading\n~~~\n# still code\n~~~~\n# Title\n", "Title"),
        ("    ```bash\n    # indented fence comment\n    ```\n# Title\n", "Title"),
        ("## Second level first\n\n# First H1 { #anchor }\n", "First H1"),
        ("# `Code` and [link](https://x.example/) #\n", "Code and link"),
        ("No heading at all.\n", ""),
    ],
)
def test_first_h1_is_outside_code_fences_without_attribute_lists(body: str, title: str) -> None:
    assert first_h1(body) == title


CODE = '```python\n!!! not an admonition\n=== "nor a tab"\n```'


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('!!! note "Heads up"\n    Body text.\n\nAfter.', "**Heads up**\n\nBody text.\n\nAfter."),
        ("!!! warning\n    Careful.", "**Warning**\n\nCareful."),
        ('!!! tip ""\n    No title.', "No title."),
        ("!!!note\n    Tight.", "**Note**\n\nTight."),
        ('??? api "API Documentation"\n    `pydantic.x`', "**API Documentation**\n\n`pydantic.x`"),
        ('???+ example "Open"\n    Shown.', "**Open**\n\nShown."),
        ('=== "Python"\n\n    ```python\n    x = 1\n    ```', "**Python**\n\n```python\nx = 1\n```"),
        ("/// tip | Hint\n\nUse it.\n\n///\n\nNext.", "**Hint**\n\nUse it.\n\nNext."),
        ("/// note\n\nPlain.\n\n///", "Plain.\n"),
        (CODE, CODE),
    ],
)
def test_mkdocs_blocks_are_unwrapped_and_code_stays_code(source: str, expected: str) -> None:
    assert unwrap_mkdocs(source).strip("\n") == expected.strip("\n")


def test_nested_admonition_bodies_are_dedented_level_by_level() -> None:
    source = '!!! note "Outer"\n    Outer text.\n\n    !!! tip "Inner"\n        Inner text.\n\n    Back out.\n'
    assert unwrap_mkdocs(source) == "**Outer**\n\nOuter text.\n\n**Inner**\n\nInner text.\n\nBack out.\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import Tabs from '@theme/Tabs';\n\nText.", "\nText."),
        ("export const meta = 1;\nText.", "Text."),
        ('<Tabs>\n  <TabItem value="a" label="A">\n\nInside.\n\n  </TabItem>\n</Tabs>', "\n**A**\n\nInside.\n"),
        ("<TabItem value='yarn'>\n\n```bash\nyarn add x\n```\n</TabItem>", "\n**yarn**\n\n```bash\nyarn add x\n```\n"),
        ("Keep <Highlight color=\"red\">this</Highlight> text.", "Keep this text."),
        ("A List<Document> stays? No: it is a tag to MDX.", "A List stays? No: it is a tag to MDX."),
        ("{/* a comment */}Text.", "Text."),
        (":::note\n\nKeep it JSON.\n\n:::\n", "**Note**\n\nKeep it JSON.\n"),
        (":::info Legacy timers\nOld.\n:::", "**Legacy timers**\n\nOld."),
        (":::tip[Use the CLI]\n\nRun it.\n\n:::", "**Use the CLI**\n\nRun it.\n"),
        ("```jsx\nimport React from 'react';\n<Tabs />\n```", "```jsx\nimport React from 'react';\n<Tabs />\n```"),
    ],
)
def test_mdx_imports_and_jsx_tags_go_and_the_text_inside_stays(source: str, expected: str) -> None:
    assert strip_mdx(source) == expected


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("See [the guide](https://x.example/guide) now.", "See the guide now."),
        ("Use `model_validate_json` with **care** and _style_.", "Use model_validate_json with care and style."),
        ("A [ref link][ref] and ![an image](i.png).", "A ref link and an image."),
        ("Escaped \\[brackets\\] stay text.", "Escaped [brackets] stay text."),
        ("Version {{ version }} released.", "Version released."),
        ("Title { #anchor .class }", "Title"),
        ("List<Document> & friends", "List<Document> & friends"),
    ],
)
def test_plain_line_keeps_the_text_of_markup(markdown: str, text: str) -> None:
    assert plain_line(markdown) == text


def test_summary_line_holds_no_url() -> None:
    assert summary_line("Read https://x.example/a or <https://y.example/> or [z](https://z.example/).") == (
        "Read or or z."
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('<div class="user-list user-list-center">\n\nOur team.\n</div>', "Our team."),
        ("{% for user in people %}\nThanks, {{ user.name }}!\n{% endfor %}", "Thanks, !"),
        ('Say <b class="x">hello</b> to List<Document>.', "Say hello to List<Document>."),
        ('Write `<div class="center">` in the page.', 'Write `<div class="center">` in the page.'),
        ('```html\n<div class="center">x</div>\n```', '```html\n<div class="center">x</div>\n```'),
    ],
)
def test_raw_html_tags_and_template_statements_leave_the_prose_but_not_the_code(source: str, expected: str) -> None:
    # Layout markup is no vocabulary of the page: "center" in a class name made a team page
    # "cover" the question "How do I center a div in CSS?".
    assert clean_prose(source).strip() == expected
