"""What the CommonMark block phase decided about a draft: its fences, code and text.

Produced by ``blocks.scan_blocks`` and read by the fence, Mermaid and inline checks, so
that every check works from the same CommonMark view of the draft.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fence:
    """One fenced code block as a CommonMark renderer sees it."""

    opener: int
    """0-based line index of the opening fence."""
    char: str
    """The fence character, a backtick or a tilde."""
    length: int
    """Length of the opening fence."""
    info: str
    """Info string as written (not unescaped), stripped."""
    closer: int | None
    """Line index of the closing fence; ``None`` when the block ended without one."""
    content: tuple[str, ...]
    """Content lines, with container markers and fence indentation removed."""

    @property
    def closed(self) -> bool:
        """Whether a closing fence ended the block (not the document or a container)."""
        return self.closer is not None


@dataclass(frozen=True, slots=True)
class TextBlock:
    """A paragraph, heading or indented code block, with its lines."""

    kind: str
    """``"paragraph"``, ``"heading"`` (ATX or setext) or ``"indented"`` (indented code)."""
    lines: tuple[tuple[int, str], ...]
    """``(index, text)`` of each line, container markers and heading marker removed."""


@dataclass(frozen=True, slots=True)
class BlockScan:
    """What the CommonMark block phase decided, per line."""

    fences: tuple[Fence, ...]
    """Every fenced code block, in document order."""
    code_lines: frozenset[int]
    """Line indices that are code content (fenced or indented), excluding fence lines."""
    fence_lines: frozenset[int]
    """Line indices of fenced code blocks: openers, content and closers."""
    text_blocks: tuple[TextBlock, ...]
    """Paragraphs, headings and indented code blocks, in document order."""
