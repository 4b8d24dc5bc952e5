"""The fence scanner agrees with CommonMark implementations on which fences close and which text is code.

Two oracles: markdown-it-py (CommonMark, test-only dependency) on the spec's fenced-code
examples and on generated documents; and commonmark.js (the reference implementation)
through a vendored corpus of its answers, which also covers the documents where
markdown-it-py 4.3 departs from the reference (lines indented 4+ columns that fall short
of a container's content column, e.g. ``"  2. two\\n    ~~~"``: lazy paragraph text to
commonmark.js, a fence to markdown-it). The hypothesis strategy stays out of that class.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from askai_graph.validation.blocks import scan_blocks

DATA = Path(__file__).parent / "data"
SPEC = json.loads((DATA / "commonmark_fences.json").read_text(encoding="utf-8"))["examples"]
REFERENCE = json.loads((DATA / "commonmark_js_blocks.json").read_text(encoding="utf-8"))["documents"]
MARKDOWN_IT = MarkdownIt("commonmark")

Verdict = tuple[list[tuple[int, bool]], list[int]]


def text_lines(markdown: str) -> list[str]:
    lines = markdown.split("\n")
    if markdown.endswith("\n"):
        lines.pop()
    return lines


def holds_text(markdown: str, indices: set[int]) -> list[int]:
    """Code lines that hold more than indentation and quote markers (blank code lines carry no links)."""
    lines = text_lines(markdown)
    return sorted(i for i in indices if re.sub(r"[ \t>]", "", lines[i]))


def scanner_verdict(markdown: str) -> Verdict:
    scan = scan_blocks(text_lines(markdown))
    return sorted((f.opener, f.closed) for f in scan.fences), holds_text(markdown, set(scan.code_lines))


def markdown_it_verdict(markdown: str) -> Verdict:
    fences: list[tuple[int, bool]] = []
    code: set[int] = set()
    for token in MARKDOWN_IT.parse(markdown):
        if token.map is None:
            continue
        start, end = token.map
        if token.type == "fence":
            content = token.content.count("\n") + (1 if token.content and not token.content.endswith("\n") else 0)
            fences.append((start, end - start - 1 - content == 1))  # one line left over: the closing fence
            code.update(range(start + 1, start + 1 + content))
        elif token.type == "code_block":
            code.update(range(start, end))
    return sorted(fences), holds_text(markdown, code)


@pytest.mark.parametrize("example", SPEC, ids=[e["id"] for e in SPEC])
def test_spec_fenced_code_examples_agree_with_markdown_it(example: dict[str, str]) -> None:
    assert scanner_verdict(example["markdown"]) == markdown_it_verdict(example["markdown"])


@pytest.mark.parametrize("document", REFERENCE, ids=[f"doc{i}" for i in range(len(REFERENCE))])
def test_scanner_matches_the_commonmark_js_reference(document: dict[str, Any]) -> None:
    expected = ([tuple(f) for f in document["fences"]], document["code_lines"])
    assert scanner_verdict(document["markdown"]) == expected


# Container prefixes stay under 4 columns of indentation (see the module docstring).
PREFIXES = ["", "", "", "> ", ">", ">> ", "- ", "* ", "1. ", "2) ", " ", "  ", "   ", "> - ", "- > ", "  - ", "1. > "]
BODIES = [
    "```", "````", "~~~", "~~~~", "```py", "```mermaid", "``` a`b", "~~~ a`b", "```foo", "``` ```", "~~~ ~~",
    "```\t", "```  ", "`````", "foo", "[x](https://e.example/)", "", "", "    code", "\tx", "---", "===", "# h",
    "- item", "***", "`x`", "1. one", "2. two", "-", "> q", "``", "~~", "- ```", "> ```",
]  # fmt: skip
LINES = st.tuples(st.sampled_from(PREFIXES), st.sampled_from(BODIES)).map("".join)
DOCUMENTS = st.tuples(st.lists(LINES, min_size=1, max_size=12), st.booleans()).map(
    lambda parts: "\n".join(parts[0]) + ("\n" if parts[1] else "")
)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS)
def test_generated_documents_agree_with_markdown_it(markdown: str) -> None:
    assert scanner_verdict(markdown) == markdown_it_verdict(markdown)


def test_fence_content_strips_container_markers_and_fence_indentation() -> None:
    scan = scan_blocks(text_lines("> - ```mermaid\n>   graph TD\n>     A-->B\n>   ```\n"))
    assert [(f.info, f.content, f.closed) for f in scan.fences] == [("mermaid", ("graph TD", "  A-->B"), True)]
