"""CommonMark block structure, reduced to the question "which lines are code?".

mistletoe is not a faithful CommonMark block parser: it closes a fence
on a line like ```` ```foo ```` and never reports an unclosed one. The reader's browser
renders with a CommonMark/GFM renderer, so the gate needs its own answer to "which lines
are code, and was every fence closed by a closing fence". This module ports the block
phase of the CommonMark spec's parsing strategy (as commonmark.js implements it): block
quotes, list items, lazy paragraph continuation, fenced (§4.5) and indented (§4.4) code,
ATX and setext headings, thematic breaks, including tab stops.

Deliberately not modelled: HTML blocks (any raw HTML fails validation on its own) and
link reference definitions inside setext headings (they only change heading text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from askai_graph.validation.cursor import CODE_INDENT, LineCursor
from askai_graph.validation.structure import BlockScan, Fence, TextBlock

_MAYBE_SPECIAL = re.compile(r"[#`~*+_=<>0-9-]")
_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t]+|$)")
# A backtick fence's info string may not contain a backtick (spec §4.5).
_OPENING_FENCE = re.compile(r"`{3,}(?!.*`)|~{3,}")
_CLOSING_FENCE = re.compile(r"(?:`{3,}|~{3,})(?=[ \t]*$)")
_SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")
_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$")

# Which block kinds may hold which children, and which take raw lines.
_CONTAINERS = frozenset({"document", "block_quote", "item"})
_ACCEPTS_LINES = frozenset({"paragraph", "fence", "indented"})


class _Block:
    """An open or closed block in the tree being built."""

    __slots__ = ("kind", "parent", "last_child", "open", "has_children", "data", "lines", "closer")

    def __init__(self, kind: str, parent: _Block | None) -> None:
        self.kind = kind
        self.parent = parent
        self.last_child: _Block | None = None
        self.open = True
        self.has_children = False
        # Lists and items: (type, bullet-or-delimiter, marker_offset, padding).
        # Fences: (char, length, indent, opener line, info).
        self.data: tuple[str | int, ...] = ()
        self.lines: list[tuple[int, str]] = []
        self.closer: int | None = None


_CONTAINER_OR_INDENT = re.compile(r"[ \t>]|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)")


def plain_indented_code(block: TextBlock, lines: Sequence[str]) -> bool:
    """Whether an indented code block is code to every renderer, not just to CommonMark.

    Renderers disagree about indented code inside containers and around tabs (markdown-it
    reads ``> a``, a tab and ``> b`` as one quote). They agree on the plain case: every
    line indented by four spaces at the top level (nothing else taken off the line),
    after a blank line that follows a top-level paragraph or heading line (or nothing).
    """
    if block.kind != "indented" or not block.lines:
        return False
    for index, text in block.lines:
        raw = lines[index]
        if raw.strip(" \t") and (not raw.startswith("    ") or raw[4:] != text):
            return False
    first = block.lines[0][0]
    if first == 0:
        return True
    if lines[first - 1].strip(" \t"):
        return False
    previous = next((lines[i] for i in range(first - 1, -1, -1) if lines[i].strip(" \t")), None)
    return previous is None or not _CONTAINER_OR_INDENT.match(previous)


def scan_blocks(lines: Sequence[str]) -> BlockScan:
    """Classify ``lines`` (no line terminators) the way a CommonMark renderer would."""
    return _Scanner().run(lines)


class _Scanner(LineCursor):
    """Line-at-a-time block parser; attribute names follow commonmark.js."""

    def __init__(self) -> None:
        super().__init__()
        self.doc = _Block("document", None)
        self.tip = self.doc
        self.oldtip = self.doc
        self.last_matched = self.doc
        self.all_closed = True
        self.finished: list[_Block] = []
        self.index = 0

    def run(self, lines: Sequence[str]) -> BlockScan:
        for index, line in enumerate(lines):
            self.index = index
            self.start_line(line)
            self._incorporate_line()
        while self.tip is not self.doc:
            self._finalize(self.tip)
        fences: list[Fence] = []
        code: set[int] = set()
        fenced: set[int] = set()
        fence_lines: set[int] = set()
        texts: list[TextBlock] = []
        for block in sorted(self.finished, key=lambda b: b.lines[0][0] if b.lines else -1):
            if block.kind in ("paragraph", "heading", "indented"):
                texts.append(TextBlock(block.kind, tuple(block.lines)))
            if block.kind == "indented":
                code.update(i for i, _ in block.lines)
            elif block.kind == "fence":
                char, length, _indent, opener, info = block.data
                content = block.lines[1:]
                fenced.update(i for i, _ in content)
                fence_lines.add(int(opener))
                if block.closer is not None:
                    fence_lines.add(block.closer)
                fences.append(
                    Fence(int(opener), str(char), int(length), str(info), block.closer, tuple(t for _, t in content))
                )
        code |= fenced
        return BlockScan(
            tuple(fences), frozenset(code), frozenset(fence_lines | fenced), tuple(texts)
        )

    # -- the tree --

    def _add_child(self, kind: str) -> _Block:
        while not (self.tip.kind in _CONTAINERS and kind != "item") and not (
            self.tip.kind == "list" and kind == "item"
        ):
            self._finalize(self.tip)
        block = _Block(kind, self.tip)
        self.tip.last_child = block
        self.tip.has_children = True
        self.tip = block
        return block

    def _finalize(self, block: _Block) -> None:
        block.open = False
        if block.kind == "indented":
            # Trailing blank lines are not part of an indented code block (spec §4.4).
            while block.lines and not block.lines[-1][1].strip(" \t"):
                block.lines.pop()
        self.finished.append(block)
        assert block.parent is not None  # the document is never finalized
        self.tip = block.parent

    def _close_unmatched(self) -> None:
        if not self.all_closed:
            while self.oldtip is not self.last_matched:
                parent = self.oldtip.parent
                self._finalize(self.oldtip)
                assert parent is not None
                self.oldtip = parent
            self.all_closed = True

    def _add_line(self) -> None:
        self.tip.lines.append((self.index, self.remainder()))

    # -- one line --

    def _incorporate_line(self) -> None:
        container = self.doc
        self.oldtip = self.tip
        while container.last_child is not None and container.last_child.open:
            container = container.last_child
            self.find_next_nonspace()
            result = self._continue(container)
            if result == 2:  # a closing fence: the whole line is consumed
                return
            if result == 1:
                assert container.parent is not None
                container = container.parent
                break
        self.all_closed = container is self.oldtip
        self.last_matched = container

        matched_leaf = container.kind != "paragraph" and container.kind in _ACCEPTS_LINES
        while not matched_leaf:
            self.find_next_nonspace()
            if not self.indented and not _MAYBE_SPECIAL.match(self.line, self.next_nonspace):
                self.advance_next_nonspace()
                break
            for start in (
                self._start_block_quote,
                self._start_atx_heading,
                self._start_fence,
                self._start_setext_heading,
                self._start_thematic_break,
                self._start_list_item,
                self._start_indented_code,
            ):
                result = start(container)
                if result:
                    container = self.tip
                    matched_leaf = result == 2
                    break
            else:
                self.advance_next_nonspace()
                break

        if not self.all_closed and not self.blank and self.tip.kind == "paragraph":
            self._add_line()  # lazy continuation line
            return
        self._close_unmatched()
        if container.kind in _ACCEPTS_LINES:
            self._add_line()
        elif self.offset < len(self.line) and not self.blank:
            self._add_child("paragraph")
            self.advance_next_nonspace()
            self._add_line()

    def _continue(self, block: _Block) -> int:
        """Return 0 if ``block`` continues on this line, 1 if not, 2 if the line closed it."""
        kind = block.kind
        if kind == "block_quote":
            if self.indented or not self.rest().startswith(">"):
                return 1
            self.consume_quote_marker()
            return 0
        if kind == "item":
            _type, _mark, marker_offset, padding = block.data
            if self.blank:
                if not block.has_children:
                    return 1  # a list item can begin with at most one blank line
                self.advance_next_nonspace()
            elif self.indent >= int(marker_offset) + int(padding):
                self.advance_offset(int(marker_offset) + int(padding), True)
            else:
                return 1
            return 0
        if kind == "fence":
            char, length, fence_indent = block.data[0], int(block.data[1]), int(block.data[2])
            match = None
            if self.indent <= 3 and self.rest().startswith(str(char)):
                match = _CLOSING_FENCE.match(self.line, self.next_nonspace)
            if match and len(match.group()) >= length:
                block.closer = self.index
                self._finalize(block)
                return 2
            while fence_indent > 0 and self.line[self.offset : self.offset + 1] in (" ", "\t"):
                self.advance_offset(1, True)
                fence_indent -= 1
            return 0
        if kind == "indented":
            if self.indent >= CODE_INDENT:
                self.advance_offset(CODE_INDENT, True)
            elif self.blank:
                self.advance_next_nonspace()
            else:
                return 1
            return 0
        if kind == "paragraph":
            return 1 if self.blank else 0
        if kind in ("heading", "thematic_break"):
            return 1
        return 0  # document and list

    # -- block starts: 0 = no match, 1 = container started, 2 = leaf started --

    def _start_block_quote(self, container: _Block) -> int:
        if self.indented or not self.rest().startswith(">"):
            return 0
        self.consume_quote_marker()
        self._close_unmatched()
        self._add_child("block_quote")
        return 1

    def _start_atx_heading(self, container: _Block) -> int:
        match = None if self.indented else _ATX_HEADING.match(self.line, self.next_nonspace)
        if match is None:
            return 0
        self._close_unmatched()
        self._add_child("heading").lines.append((self.index, self.line[match.end() :]))
        self.offset = len(self.line)
        return 2

    def _start_fence(self, container: _Block) -> int:
        match = None if self.indented else _OPENING_FENCE.match(self.line, self.next_nonspace)
        if match is None:
            return 0
        fence = match.group()
        self._close_unmatched()
        block = self._add_child("fence")
        info = self.line[match.end() :].strip(" \t")
        block.data = (fence[0], len(fence), self.indent, self.index, info)
        self.advance_next_nonspace()
        self.advance_offset(len(fence), False)
        return 2

    def _start_setext_heading(self, container: _Block) -> int:
        if self.indented or container.kind != "paragraph" or not _SETEXT_UNDERLINE.match(self.line, self.next_nonspace):
            return 0
        self._close_unmatched()
        container.kind = "heading"
        self.offset = len(self.line)
        return 2

    def _start_thematic_break(self, container: _Block) -> int:
        if self.indented or not _THEMATIC_BREAK.match(self.line, self.next_nonspace):
            return 0
        self._close_unmatched()
        self._add_child("thematic_break")
        self.offset = len(self.line)
        return 2

    def _start_list_item(self, container: _Block) -> int:
        data = None if self.indented else self.parse_list_marker(container.kind == "paragraph")
        if data is None:
            return 0
        self._close_unmatched()
        if self.tip.kind != "list" or self.tip.data[:2] != data[:2]:
            self._add_child("list").data = data
        self._add_child("item").data = data
        return 1

    def _start_indented_code(self, container: _Block) -> int:
        if not self.indented or self.tip.kind == "paragraph" or self.blank:
            return 0
        self.advance_offset(CODE_INDENT, True)
        self._close_unmatched()
        self._add_child("indented")
        return 2
