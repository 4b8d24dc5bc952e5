"""One mistletoe parse per draft, serialised: mistletoe keeps parser state in globals.

mistletoe stores the document being parsed (for reference definitions) and per-class
scratch state (e.g. ``CodeFence._open_info``) in module globals, so two threads parsing
at once corrupt each other's trees. Every parse in this package goes through
``parse_markdown`` and its module-level lock.

Raw HTML is left as text here (no ``HtmlRenderer`` context, so no global token lists to
swap): the gate finds raw HTML with its own CommonMark scan (``inline``), and HTML left
as text only means more of the draft is checked as Markdown.

mistletoe is imported lazily, on the first parse, with the shipped punctuation table in
place of its Unicode scan (``punctuation``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from typing import Any

from askai_graph.validation.punctuation import install

_PARSE_LOCK = threading.Lock()


def load_parser() -> None:
    """Import mistletoe now (a server does it at start-up, not on a reader's first question)."""
    _document()


@cache
def _document() -> Any:
    """Return mistletoe's ``Document`` class, imported on first use with the punctuation table installed."""
    install()
    from mistletoe.block_token import Document

    return Document


def parse_markdown(lines: Sequence[str]) -> Any:
    """Parse ``lines`` (no terminators) into a mistletoe ``Document``."""
    # Imported on first use: `askai --help` and a process that never validates pay nothing.
    document = _document()
    # Lines, not a string: mistletoe would split on \x0b, \x1c or \u2028 (as
    # str.splitlines does) where CommonMark sees no line break.
    with _PARSE_LOCK:
        return document([line + "\n" for line in lines])
