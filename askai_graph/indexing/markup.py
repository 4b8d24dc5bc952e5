"""Generator syntax in Markdown pages, turned into the Markdown (and text) readers see.

Site generators extend Markdown, and a page read as plain CommonMark shows their
syntax as text: MkDocs Material's ``{ #anchor }`` attribute lists, admonitions
(``!!! note``, ``??? tip``, ``/// warning … ///``) and content tabs (``=== "Python"``),
whose bodies are indented four spaces (which CommonMark reads as an indented code
block); Docusaurus MDX ``import``/``export`` lines and JSX tags (``<Tabs>``,
``<TabItem value="npm">``). The functions here rewrite them as a generator renders
them: the block's title becomes a bold line, its body is un-indented, a JSX tag goes
and the text inside it stays. Every function is fence-aware (CommonMark §4.5): lines
inside a fenced code block are code and are never touched, so code blocks stay code
blocks, their info string (language) kept.

``plain_line`` turns a Markdown snippet into one line of plain text for titles and
summaries: links become their text, code spans their code, emphasis markers go.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import repeat

from askai_graph.text.plain import plain_text, strip_html_tags

_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})(.*)$")
_ATTR = r"(?:[#.][\w:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]+))"
_ATTR_LIST = re.compile(rf"\s*\{{\s*:?\s*{_ATTR}(?:\s+{_ATTR})*\s*\}}")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*$")
_CLOSING_HASHES = re.compile(r"\s+#+$")
# MkDocs (Python-Markdown) admonitions and pymdownx details: ``!!! type "Title"``, ``???+ type``.
# The title runs to the last quote: ``!!! note "on the "jsonable" nature"`` is one title.
_ADMONITION = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?)\s*([\w-]+)(?:\s+[\w-]+)*\s*(?:\"(.*)\"|'(.*)')?\s*$")
# pymdownx.tabbed: ``=== "Tab title"``.
_TAB = re.compile(r"^(\s*)===\+?\s+\"([^\"]*)\"\s*$")
# pymdownx.blocks: ``/// type | Title`` opens, a bare ``///`` closes; the body is not indented.
_BLOCK_OPEN = re.compile(r"^\s*/{3,}\s*([\w-]+)(?:\s*\|\s*(.*?))?\s*$")
_BLOCK_CLOSE = re.compile(r"^\s*/{3,}\s*$")
_BLOCK_OPTION = re.compile(r"^\s*(?:attrs|open|type):\s.*$")
# What a line ``unwrap_mkdocs`` changes holds (a page without any is only collapsed).
_MKDOCS_MARKS = ("!!!", "???", "===", "///", "attrs:", "open:", "type:")
_MDX_ESM = re.compile(r"^(?:import|export)\s")
# Docusaurus admonitions: ``:::note``, ``:::info Title``, ``:::tip[Title]``, closed by ``:::``.
_DIRECTIVE_OPEN = re.compile(r"^\s*:{3,}([a-z][\w-]*)(?:\[(.*)\]|\s+(.*?))?\s*(?:\{.*\})?\s*$")
_DIRECTIVE_CLOSE = re.compile(r"^\s*:{3,}\s*$")
# A JSX element: a capitalised name (``<Tabs>``, ``<TabItem value="x">``, ``</Tabs>``,
# ``<Admonition />``) or a lower-case tag carrying JSX braces. HTML tags stay (plain text
# handling drops them from titles and summaries).
_JSX_TAG = re.compile(r"</?[A-Z][\w.]*(?:\s+(?:[^<>{}]|\{[^{}]*\})*)?/?>")
_JSX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
# A Docusaurus tab: ``<TabItem value="npm" label="npm">``. Its label names the code below
# it (the package manager, the language), as a MkDocs tab's title does.
_TAB_ITEM = re.compile(r"^\s*<TabItem\b([^<>]*)>\s*$")
_TAB_LABEL = re.compile(r"\blabel=(?:\"([^\"]*)\"|'([^']*)')|\bvalue=(?:\"([^\"]*)\"|'([^']*)')")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+[\"'][^\"'\n]*[\"'])?\)")
_REF_LINK = re.compile(r"!?\[([^\]\n]+)\]\[[^\]\n]*\]")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_BARE_URL = re.compile(r"\(?\b(?:https?|ftp)://\S+|\bwww\.\S+")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# ``_`` emphasis only at word edges: ``model_validate_json`` is a name, not emphasis.
_EMPHASIS = re.compile(r"(\*\*|\*|~~|(?<!\w)__|(?<!\w)_)(?=\S)(.+?)(?<=\S)\1(?!\w)")
# Template expressions (mkdocs-macros, Jinja, Hugo shortcodes) are filled in at build time.
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
# Every pattern ``plain_line`` applies needs one of these characters.
_INLINE_MARKS = re.compile(r"[{<\[`*_~\\]")
# Two blank lines in a row (``str.strip`` and ``\s`` agree on what is white space).
_TWO_BLANK_LINES = re.compile(r"\n\s*\n\s*\n")
_ESCAPE = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")


def fenced_lines(text: str) -> Iterator[tuple[str, bool]]:
    """Yield ``(line, is_code)`` for each line; fence lines and their contents are code.

    A fence closes on a line of the same character, at least as long, with nothing but
    spaces after it (CommonMark §4.5); a backtick fence's info string may not hold a
    backtick. Unlike plain CommonMark, a fence indented four spaces or more is still a
    fence: generators nest fenced code in list items, admonitions and content tabs.
    """
    lines = text.split("\n")
    if "```" not in text and "~~~" not in text:
        # No fence can open: most pages' prose, walked in C rather than one generator step a line.
        return zip(lines, repeat(False))
    return _fenced(lines)


def _fenced(lines: list[str]) -> Iterator[tuple[str, bool]]:
    fence: str | None = None
    for line in lines:
        stripped = line.strip()
        if fence is None:
            match = _FENCE_OPEN.match(stripped) if stripped[:1] in ("`", "~") else None
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = match.group(1)
                yield line, True
            else:
                yield line, False
            continue
        if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            fence = None
        yield line, True


def strip_attribute_lists(text: str) -> str:
    """Remove ``{ #id .class key=value }`` attribute lists (Python-Markdown ``attr_list``)."""
    return _ATTR_LIST.sub("", text)


def first_h1(body: str) -> str:
    """Return the text of the first ATX level-1 heading outside code fences, or ''."""
    for line, code in fenced_lines(body):
        if code:
            continue
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 1 and match.group(2):
            return plain_line(_CLOSING_HASHES.sub("", match.group(2)))
    return ""


def unwrap_mkdocs(body: str) -> str:
    """Rewrite admonitions, details, content tabs and blocks as plain Markdown (see module docstring)."""
    if not any(mark in body for mark in _MKDOCS_MARKS):
        return collapse_blank_lines(body)  # nothing below can match a line: most pages of most sites
    out: list[str] = []
    dedent: list[int] = []  # indentation of each open indented block's body
    was_code = False
    for line, code in fenced_lines(body):
        indent = len(line) - len(line.lstrip(" "))
        # Inside a fence indentation means nothing; a fence's opening line still counts.
        while dedent and line.strip() and indent < dedent[-1] and not (code and was_code):
            dedent.pop()
        was_code = code
        shift = dedent[-1] if dedent else 0
        if code:
            out.append(line[min(shift, indent):])
            continue
        if match := _ADMONITION.match(line) or _TAB.match(line):
            title = _title_of(match)
            if title:
                out.append(" " * max(0, len(match.group(1)) - shift) + f"**{title}**")
                out.append("")
            dedent.append(len(match.group(1)) + 4)
            continue
        if _BLOCK_CLOSE.match(line):
            continue
        if match := _BLOCK_OPEN.match(line):
            title = (match.group(2) or "").strip()
            if title:
                out.extend([f"**{title}**", ""])
            continue
        if _BLOCK_OPTION.match(line) and out and out[-1] == "":
            continue
        out.append(line[min(shift, indent):])
    return collapse_blank_lines("\n".join(out))


def collapse_blank_lines(text: str) -> str:
    """Keep one blank line where removed markers left several (code keeps its own)."""
    if not _TWO_BLANK_LINES.search(f"\n{text}\n"):
        return text  # no two blank lines in a row: nothing to collapse
    out: list[str] = []
    blank = False
    for line, code in fenced_lines(text):
        if not code and not line.strip():
            if blank:
                continue
            blank = True
        else:
            blank = False
        out.append(line)
    return "\n".join(out)


def _title_of(match: re.Match[str]) -> str:
    groups = match.groups()
    if len(groups) == 2:  # a content tab: its title is the tab label
        return groups[1].strip()
    explicit = groups[2] if groups[2] is not None else groups[3]
    if explicit is not None:
        return explicit.strip()  # ``!!! note ""`` asks for no title at all
    return groups[1].replace("-", " ").capitalize()


def strip_mdx(body: str) -> str:
    """Drop MDX ``import``/``export`` lines and JSX tags outside code, keeping the text inside tags.

    Docusaurus admonitions (``:::tip Title`` … ``:::``) become a bold title line over their
    body, and a ``<TabItem>`` its label as a bold line (as MkDocs content tabs do), so the
    code of each tab stays labelled with the tab's name.
    """
    out: list[str] = []
    for line, code in fenced_lines(_JSX_COMMENT.sub("", body)):
        if code:
            out.append(line)
        elif _MDX_ESM.match(line) or _DIRECTIVE_CLOSE.match(line):
            continue
        elif match := _DIRECTIVE_OPEN.match(line):
            title = (match.group(2) or match.group(3) or match.group(1).replace("-", " ").capitalize()).strip()
            out.extend([f"**{title}**", ""])
        elif (tab := _TAB_ITEM.match(line)) and (label := tab_label(tab.group(1))):
            out.extend(["", f"**{label}**", ""])
        else:
            # Inline code keeps its tags: ``jest.Mocked<Source>`` is a type, not an element.
            stripped = outside_code_spans(line, lambda text: _JSX_TAG.sub("", text))
            # A line that only held tags becomes blank (it separated blocks anyway).
            out.append("" if not stripped.strip() and line.strip() else stripped)
    return collapse_blank_lines("\n".join(out))


def tab_label(attributes: str) -> str:
    """Return a ``<TabItem>``'s label (its ``value`` when it has none), or ''."""
    found: dict[str, str] = {}
    for match in _TAB_LABEL.finditer(attributes):
        label, value = match.group(1) or match.group(2), match.group(3) or match.group(4)
        found.setdefault("label" if label is not None else "value", label if label is not None else value)
    return plain_line(found.get("label") or found.get("value") or "")


def outside_code_spans(line: str, change: Callable[[str], str]) -> str:
    """Apply ``change`` to the parts of ``line`` outside inline code spans; spans stay as written."""
    out, start = [], 0
    for span in _CODE_SPAN.finditer(line):
        out += [change(line[start : span.start()]), span.group(0)]
        start = span.end()
    return "".join([*out, change(line[start:])])


def clean_prose(body: str) -> str:
    """Remove what a reader never sees as text, outside code: attribute lists, raw HTML tags, template tags.

    Attribute lists ride on headings, links and images; raw HTML layout (``<div
    class="user-list-center">``) and template statements (``{% for user in people %}``)
    are markup whose words are no part of the page's prose. Inline code keeps them:
    ```<div>``` in a code span is what the page teaches.
    """
    out = []
    for line, code in fenced_lines(body):
        if code:
            out.append(line)
            continue
        if "{" not in line and "<" not in line:
            out.append(line)  # no attribute list, tag or template statement can be in it
            continue
        cleaned = outside_code_spans(strip_attribute_lists(line), lambda text: _TEMPLATE.sub("", strip_html_tags(text)))
        # A line that only held tags becomes blank (it separated blocks anyway).
        out.append("" if line.strip() and not cleaned.strip() else cleaned)
    return collapse_blank_lines("\n".join(out))


def summary_line(markdown: str) -> str:
    """Return a summary as plain text with no URL left in it.

    A bare URL in a catalog line is a live link to any GFM renderer, and Validation
    rightly rejects a link to a page nobody retrieved: a summary names, it never links.
    """
    return plain_text(_BARE_URL.sub(" ", plain_line(markdown)))


def plain_line(markdown: str) -> str:
    """Return a Markdown snippet as one line of plain text (links become their text)."""
    if not _INLINE_MARKS.search(markdown):
        return plain_text(markdown)  # none of the patterns below can match: most headings and titles
    text = _TEMPLATE.sub(" ", strip_attribute_lists(markdown))
    text = _AUTOLINK.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _CODE_SPAN.sub(lambda m: m.group(2).strip(), text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\2", text)  # nested: ``**a _b_**``
    text = _ESCAPE.sub(r"\1", text)
    # Tags of real HTML elements go; ``List<Document>`` is text and stays.
    return plain_text(text)
