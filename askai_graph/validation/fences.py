"""Code rules: every fence closed, and mistletoe's code agreeing with CommonMark's.

The block scanner (``blocks``) and the inline scanner (``inline``) say which text a
CommonMark renderer shows as code; mistletoe, which finds the links, has its own idea.
Where mistletoe treats text as code that a renderer would show as Markdown (after a
```` ```foo ```` "closing" line, or an escaped backtick before a run), the links there
would go unchecked, so the draft is rejected instead.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from askai_graph.validation.codes import Code
from askai_graph.validation.links import Walk
from askai_graph.validation.mermaid import is_mermaid
from askai_graph.validation.report import ValidationIssue
from askai_graph.validation.structure import BlockScan

_NOT_TEXT = re.compile(r"[ \t>]*")
_FENCE_LIKE = re.compile(r" {0,3}```")
# Text that makes nothing live wherever it lands: no ":/@<>[]()!&\\*_~'\"` and no "www.".
_INERT = re.compile(r"[A-Za-z0-9 |\-+=,;#%^$?.]*")


def unclosed_fences(scan: BlockScan) -> list[ValidationIssue]:
    """Report every non-Mermaid fence that no closing fence ends."""
    issues = []
    for fence in scan.fences:
        if not fence.closed and not is_mermaid(fence.info):
            # CommonMark would end it at the end of the document or of its container,
            # but a model that forgot the closer meant something else: and renderers
            # that stream or repair Markdown disagree about what follows.
            message = f"Code fence opened on line {fence.opener + 1} ({fence.char * fence.length}) is never closed"
            issues.append(ValidationIssue(code=Code.UNCLOSED_FENCE.value, message=message))
    return issues


def hidden_text(scan: BlockScan, walk: Walk, lines: Sequence[str]) -> list[ValidationIssue]:
    """Report runs of lines mistletoe read as code that renderers show as text.

    Lines mistletoe skipped (fence openers, content and closers) must be fenced code to
    CommonMark too; lines it read as indented code must be code of either kind.
    """
    closers = {
        line for line, fence in walk.fence_closers if line < len(lines) and lines[line].lstrip(" \t>").startswith(fence)
    }
    hidden = ((walk.skipped_lines | closers) - scan.fence_lines) | (walk.indented_lines - scan.code_lines)
    hidden_lines = sorted(i for i in hidden if i < len(lines) and not _blank(lines[i]))
    issues = []
    for position, index in enumerate(hidden_lines):
        if position and hidden_lines[position - 1] == index - 1:
            continue  # one issue per run of lines
        message = (
            f"Line {index + 1} is code to the validator's parser but text to CommonMark renderers; "
            "close each code fence with a line of only backticks or tildes"
        )
        issues.append(ValidationIssue(code=Code.AMBIGUOUS_CODE_BLOCK.value, message=message))
    return issues


def fence_like_continuations(scan: BlockScan) -> list[ValidationIssue]:
    """Report a paragraph line, after its first, that opens like a backtick fence but is none.

    ```` ``` y` ```` (a backtick in the info string) is no fence to CommonMark, so it
    continues the paragraph above, lazily in a list item; marked ends the list item
    there all the same, and the code span that line closed is then left open: text the
    gate read as code (a URL in it) goes live. Such a line is refused, wherever it is.
    """
    for block in scan.text_blocks:
        if block.kind == "indented":
            continue
        for index, text in block.lines[1:]:
            if _FENCE_LIKE.match(text):
                message = (
                    f"Line {index + 1} opens like a code fence but is none (a backtick after the fence); "
                    "renderers disagree about where the text above it ends"
                )
                return [ValidationIssue(code=Code.AMBIGUOUS_CODE_BLOCK.value, message=message)]
    return []


def hidden_code_spans(
    commonmark: Sequence[str], parser: Sequence[str], lines: Sequence[str] = ()
) -> list[ValidationIssue]:
    """Report when the parser's code spans differ from CommonMark's (text may be hidden)."""
    # GFM unescapes "\|" in table cells before parsing them; compare without that escape.
    ours, theirs = [span.replace("\\|", "|") for span in commonmark], [span.replace("\\|", "|") for span in parser]
    if ours == theirs or _split_by_a_table(Counter(ours) - Counter(theirs), Counter(theirs) - Counter(ours), lines):
        return []
    message = (
        "Code spans are read differently by the validator's parser and by CommonMark renderers; "
        "use plain matching backticks"
    )
    return [ValidationIssue(code=Code.AMBIGUOUS_CODE_SPAN.value, message=message)]


def _split_by_a_table(commonmark_only: Counter[str], parser_only: Counter[str], lines: Sequence[str]) -> bool:
    """Whether the code spans differ harmlessly, as where a GFM table row splits a span at ``|``.

    GFM renderers (and mistletoe) split a row into cells before finding code spans, so
    ```` `a|b` ```` is code to CommonMark and two cells of text to GFM, and the backticks
    after it pair differently. Either reading is safe when every span in dispute holds
    inert text (letters, digits, spaces and punctuation that starts no link, image,
    autolink, entity, emphasis or quote pairing: nothing live to hide or show) and each
    span only CommonMark has stands alone, between spaces, pipes or line ends, so no bare
    URL can run into its backticks where GFM shows them literally.
    """
    if not all(_INERT.fullmatch(span) and "www." not in span.lower() for span in commonmark_only + parser_only):
        return False
    return all(_stands_alone(span, lines) for span in commonmark_only)


def _stands_alone(span: str, lines: Sequence[str]) -> bool:
    """Whether every backtick-delimited occurrence of ``span`` is bounded by a space, a pipe or a line end."""
    anywhere = re.compile(r"(`+)" + re.escape(span) + r"\1")
    alone = re.compile(r"(?:^|(?<=[\s|]))(`+)" + re.escape(span) + r"\1(?=$|[\s|])")
    found = sum(len(anywhere.findall(line)) for line in lines)
    return found > 0 and found == sum(len(alone.findall(line)) for line in lines)


def _blank(line: str) -> bool:
    """Whether a line holds nothing but indentation and block quote markers."""
    return _NOT_TEXT.fullmatch(line) is not None
