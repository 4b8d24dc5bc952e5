"""An answer never changes a code span or a code block: every one is the page's own text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.indexing.markup import strip_mdx
from askai_graph.models.offline.writer import plain_text
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.sections import code_blocks
from askai_graph.state import STATE_KEYS
from askai_graph.text.terms import sentences

SAMPLE_SITE = Path(__file__).parent.parent / "askai_graph" / "sample_site"
QUESTIONS = Path(__file__).parent.parent / "evals" / "sample_site.jsonl"
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1\s*$", re.MULTILINE | re.DOTALL)
ELISION = "..."
"""The line a block cut at the Writer's line budget ends with: the lines above it are the page's."""


@pytest.mark.parametrize(
    "span",
    [
        '`httpx.get("<url>", params=params)`',
        "`--trailing-comma <all|es5|none>`",
        "`(field, <file>)`",
        "`jest.Mocked<Source>`",
        "`curl https://example.com/api`",
        "``a ` b``",
    ],
)
def test_a_quoted_sentence_keeps_its_code_spans_as_written(span: str) -> None:
    assert plain_text(f"Call {span} to do it.") == f"Call {span} to do it."


def test_outside_code_spans_link_targets_tags_and_bare_urls_still_go() -> None:
    quoted = plain_text("See [`list`](https://x.example/l) and <b>this</b> at https://evil.example/p with `<T>`.")
    assert quoted == "See `list` and this at with `<T>`."


def test_a_full_stop_inside_a_code_span_ends_no_sentence() -> None:
    assert sentences('Log with `print("Done. Next one")` at the end. Then stop.') == [
        'Log with `print("Done. Next one")` at the end.',
        "Then stop.",
    ]


def test_mdx_tags_inside_a_code_span_are_code_not_elements() -> None:
    stripped = strip_mdx("The `jest.Mocked<Source>` type, <Tabs>shown</Tabs>.\n")
    assert stripped == "The `jest.Mocked<Source>` type, shown.\n"


CLIENT = """---
title: Making requests
url: https://client.example/docs/requests/
---
# Making requests

## Sending a GET request

To send a GET request to a server, call `httpx.get("<url>", params=params)` with the address of the
page and the query parameters you want to send. The response object holds the status code and body.

## Trailing commas

The printer adds trailing commas where the target allows them. To choose where commas are
printed, pass `--trailing-comma <all|es5|none>` on the command line when you format files.
"""


@pytest.fixture
def client_site(tmp_path: Path, index_cache: Path) -> BM25Retriever:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "requests.md").write_text(CLIENT)
    return BM25Retriever(corpus=load_corpus(tmp_path / "docs"), cache_dir=index_cache)


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("How do I send a GET request with query parameters?", '`httpx.get("<url>", params=params)`'),
        ("How do I choose where trailing commas are printed?", "`--trailing-comma <all|es5|none>`"),
    ],
)
def test_an_answer_quotes_a_placeholder_in_inline_code_as_the_page_writes_it(
    client_site: BM25Retriever, settings: Settings, question: str, span: str
) -> None:
    final = build_graph(retriever=client_site, settings=settings).invoke({"question": question}, output_keys=STATE_KEYS)
    assert final["outcome"] == "accepted"
    assert span in final["answer"]


def _code_of(answer: str) -> list[str]:
    """Return the answer's code: each fenced block's lines (an elision line dropped) and each code span's text."""
    found = []
    for block in code_blocks(answer):
        lines = block.code.splitlines()
        found.append("\n".join(lines[:-1] if lines and lines[-1] == ELISION else lines))
    prose = _FENCED.sub("", answer)
    found.extend(" ".join(span.group(2).split()) for span in _SPAN.finditer(prose))
    return [code for code in found if code.strip()]


def test_every_code_span_and_block_of_an_accepted_bundled_answer_is_its_pages_source(settings: Settings) -> None:
    pages = {}
    for path in SAMPLE_SITE.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        found = re.search(r"^url: (\S+)$", text, re.MULTILINE)
        assert found is not None
        pages[found.group(1)] = text
    graph = build_graph(settings=settings)
    checked = 0
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        final = graph.invoke({"question": json.loads(line)["question"]}, output_keys=STATE_KEYS)
        if final["outcome"] not in ("accepted", "accepted_early"):
            continue
        cited = [pages[source.url] for source in final["sources"]]
        for code in _code_of(final["answer"]):
            # A span may wrap across source lines: its text is compared with whitespace as one space.
            assert any(code in page or code in " ".join(page.split()) for page in cited), code
            checked += 1
    assert checked >= 3  # some bundled answers quote code (few of its pages have any): the check is not vacuous


PAGE_WITH_HTML_IN_CODE = """---
title: Chat
url: https://chat.example/docs/chat/
---
# Chat

<style>
.chat { color: red; }
</style>

Serve the chat page from a string of HTML, script included:

```python
html = \"\"\"
<html>
    <script>
        var ws = new WebSocket("ws://localhost:8000/ws");
    </script>
</html>
\"\"\"
```
"""


def test_a_script_inside_a_code_block_is_indexed_as_code(tmp_path: Path) -> None:
    (tmp_path / "chat.md").write_text(PAGE_WITH_HTML_IN_CODE)
    text = "\n".join(page.body for page in load_corpus(tmp_path).posts)
    assert 'var ws = new WebSocket("ws://localhost:8000/ws");' in text
    assert ".chat { color: red; }" not in text  # the page's own style is no text
