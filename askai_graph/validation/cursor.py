"""A cursor over one Markdown line that measures indentation the CommonMark way.

Block structure depends on columns, not characters: a tab advances to the next
multiple of 4 and may be only partly consumed by a container's indentation (spec §2.2).
List markers (§5.2) are parsed here too, since their content column is the one
indentation rule that depends on what follows the marker.
"""

from __future__ import annotations

import re

CODE_INDENT = 4
"""Columns of indentation that make a line indented code (§4.4)."""

_BULLET_MARKER = re.compile(r"[*+-]")
_ORDERED_MARKER = re.compile(r"(\d{1,9})([.)])")
_NON_SPACE = re.compile(r"[^ \t]")

ListMarker = tuple[str, str, int, int]
"""``(kind, bullet-or-delimiter, marker offset, padding)`` of a list item."""


class LineCursor:
    """Offset and column within the current line; names follow commonmark.js."""

    def __init__(self) -> None:
        """Start before any line."""
        self.line = ""
        self.offset = self.column = self.next_nonspace = self.next_nonspace_column = self.indent = 0
        self.blank = self.indented = self.partial_tab = False

    def start_line(self, line: str) -> None:
        """Put the cursor at column 0 of ``line``."""
        self.line, self.offset, self.column = line, 0, 0
        self.blank = self.partial_tab = False

    def find_next_nonspace(self) -> None:
        """Measure the indentation ahead of the cursor without moving it."""
        line, i, cols = self.line, self.offset, self.column
        while i < len(line):
            c = line[i]
            if c == " ":
                cols += 1
            elif c == "\t":
                cols += 4 - cols % 4
            else:
                break
            i += 1
        self.blank = i >= len(line)
        self.next_nonspace, self.next_nonspace_column = i, cols
        self.indent = cols - self.column
        self.indented = self.indent >= CODE_INDENT

    def advance_next_nonspace(self) -> None:
        """Move the cursor past the indentation just measured."""
        self.offset, self.column, self.partial_tab = self.next_nonspace, self.next_nonspace_column, False

    def advance_offset(self, count: int, columns: bool) -> None:
        """Advance ``count`` columns (``columns=True``) or characters, splitting tabs."""
        line = self.line
        while count > 0 and self.offset < len(line):
            if line[self.offset] == "\t":
                to_tab = 4 - self.column % 4
                if columns:
                    self.partial_tab = to_tab > count
                    step = min(to_tab, count)
                    self.column += step
                    self.offset += 0 if self.partial_tab else 1
                    count -= step
                else:
                    self.partial_tab = False
                    self.column += to_tab
                    self.offset += 1
                    count -= 1
            else:
                self.partial_tab = False
                self.offset += 1
                self.column += 1
                count -= 1

    def rest(self) -> str:
        """The line from its next non-space character."""
        return self.line[self.next_nonspace :]

    def remainder(self) -> str:
        """The line from the cursor, a partly consumed tab counting as spaces."""
        if self.partial_tab:
            return " " * (4 - self.column % 4) + self.line[self.offset + 1 :]
        return self.line[self.offset :]

    def skip_optional_space(self) -> None:
        """Consume one space or tab column, if there is one."""
        if self.line[self.offset : self.offset + 1] in (" ", "\t"):
            self.advance_offset(1, True)

    def consume_quote_marker(self) -> None:
        """Consume a block quote's ``>`` and the one optional space after it (§5.1)."""
        self.advance_next_nonspace()
        self.advance_offset(1, False)
        self.skip_optional_space()

    def parse_list_marker(self, interrupts_paragraph: bool) -> ListMarker | None:
        """Consume a list marker and its spacing; return its data, or ``None``."""
        rest, marker_offset = self.rest(), self.indent
        if match := _BULLET_MARKER.match(rest):
            kind, mark = "bullet", match.group()
        elif (match := _ORDERED_MARKER.match(rest)) and (not interrupts_paragraph or match.group(1) == "1"):
            kind, mark = "ordered", match.group(2)
        else:
            return None
        width = len(match.group())
        if rest[width : width + 1] not in ("", " ", "\t"):
            return None
        if interrupts_paragraph and not _NON_SPACE.search(rest, width):
            return None  # an empty list item cannot interrupt a paragraph
        self.advance_next_nonspace()
        self.advance_offset(width, True)
        start_column, start_offset = self.column, self.offset
        while True:
            self.advance_offset(1, True)
            if not (self.column - start_column < 5 and self.line[self.offset : self.offset + 1] in (" ", "\t")):
                break
        spaces = self.column - start_column
        if spaces >= 5 or spaces < 1 or self.offset >= len(self.line):
            # Code indented after the marker, or an empty item: content starts one column in.
            padding = width + 1
            self.column, self.offset = start_column, start_offset
            self.skip_optional_space()
        else:
            padding = width + spaces
        return kind, mark, marker_offset, padding
