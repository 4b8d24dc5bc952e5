"""Code blocks of a built page, read from its HTML and kept out of trafilatura's hands.

Highlighters turn a code block into hundreds of elements: Pygments (MkDocs'
``pymdownx.highlight``, Sphinx) wraps every token in a ``<span>``, and with
``line_spans``/``anchor_linenums`` (Material's recommended setup) every line in a
``<span>`` of its own with an empty ``<a>``. trafilatura, reading such a ``<pre>``,
drops its blank lines, and line spans made it run the whole block into the paragraph
around it. Those spans were also most of the elements its heuristics walk.

So each block is read here, from the tree parsed once: its text exactly as shown
(``text_content``: blank lines and indentation kept, line numbers of a
``highlighttable`` left out) and its language from the markup (``language-python``,
Sphinx's ``highlight-python``). In the tree the block becomes a one-word paragraph,
a placeholder; after extraction the placeholder's line becomes a fenced code block.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

_LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight(?:-source)?)-([\w+#.-]+)")
_BACKTICKS = re.compile(r"`+")
_LINE_NUMBERS = "linenos"
"""The class Pygments gives line numbers: inline spans (Sphinx's default), or a table's cell."""


@dataclass(frozen=True)
class CodeBlock:
    """One code block taken out of a page: the word standing in for it, its language, its text."""

    placeholder: str
    language: str
    code: str


def set_code_aside(root: Any) -> list[CodeBlock]:
    """Replace each ``<pre>`` block of ``root`` (an lxml tree) by a placeholder paragraph; return the blocks."""
    from lxml import etree

    nonce = secrets.token_hex(4)
    blocks: list[CodeBlock] = []
    for pre in list(root.iter("pre")):
        if pre.getparent() is None or _in_line_numbers(pre):
            continue  # a highlighttable's line numbers: removed with their table below
        code = _block_text(pre)
        if not code.strip():
            continue
        block = CodeBlock(f"askaicode{nonce}x{len(blocks)}", _language(pre), code)
        blocks.append(block)
        stand_in = etree.Element("p")
        stand_in.text = block.placeholder
        table = _table_around(pre)
        target = pre if table is None else table
        stand_in.tail = target.tail
        target.getparent().replace(target, stand_in)
    return blocks


def put_code_back(markdown: str, blocks: list[CodeBlock]) -> str:
    """Return ``markdown`` with each placeholder's line made into its block, fenced and labelled."""
    if not blocks:
        return markdown
    by_word = {block.placeholder: block for block in blocks}
    # One pattern for every placeholder, whole words: "...x1" must not match the start of "...x13".
    pattern = re.compile(re.escape(blocks[0].placeholder.rpartition("x")[0]) + r"x\d+\b")
    out: list[str] = []
    for line in markdown.split("\n"):
        match = pattern.search(line)
        if match is None or match.group(0) not in by_word:
            out.append(line)
            continue
        before, after = line[: match.start()], line[match.end() :]
        if before.strip():
            out += [before.rstrip(), ""]
        out.append(_fenced(by_word[match.group(0)]))
        if after.strip():
            out += ["", put_code_back(after.strip(), blocks)]
    return "\n".join(out)


def _fenced(block: CodeBlock) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(block.code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{block.language}\n{block.code}\n{fence}"


def _block_text(pre: Any) -> str:
    """The block's text as shown: blank lines, indentation and trailing spaces kept, the final newline dropped.

    A line's trailing spaces stay: in a Markdown sample two of them are a hard line break.
    Prism (Docusaurus) writes no newline characters: each line is an element of class
    ``token-line`` (a ``<div>`` in Docusaurus 3.10's build, a ``<span>`` in older ones)
    ending in a ``<br>``. Each such line is a line here.
    """
    for number in [node for node in pre.iter("span") if _LINE_NUMBERS in _classes(node)]:
        number.drop_tree()  # Sphinx's inline :linenos: numbers: no part of the code (readers cannot select them)
    lines = _shown_lines(pre)
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


def _classes(node: Any) -> frozenset[str]:
    return frozenset(str(node.get("class") or "").split())


def _shown_lines(pre: Any) -> list[str]:
    token_lines = [node for node in pre.iter("span", "div") if "token-line" in _classes(node)]
    if token_lines:
        return [line for node in token_lines for line in node.text_content().split("\n")]
    for br in pre.iter("br"):  # a line break written as markup, not as a character
        br.tail = "\n" + (br.tail or "")
    return str(pre.text_content()).split("\n")


def _language(pre: Any) -> str:
    classes = " ".join(
        str(node.get("class") or "") for node in (pre, *pre.iterchildren("code"), *pre.iterancestors())
    )
    match = _LANGUAGE_CLASS.search(classes)
    return match.group(1).lower() if match else ""


def _in_line_numbers(pre: Any) -> bool:
    return any(_LINE_NUMBERS in _classes(node) for node in pre.iterancestors("td", "div"))


def _table_around(pre: Any) -> Any:
    """The ``highlighttable`` holding ``pre`` with its line numbers, if any."""
    for node in pre.iterancestors("table"):
        if "highlighttable" in str(node.get("class") or "").split():
            return node
    return None
