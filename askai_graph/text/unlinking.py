"""An answer the Source Gate refused keeps its words, not its links.

"Every public surface keeps the gate": a degraded answer (the Critic never passed it) is
shown without source cards, and its text must not hand out the same retrieved pages as
links either. ``unlinked``
keeps each link's text and drops its destination, removes autolinks and reference
definitions, and then any retrieved URL still written out, so no surface (the graph's
output, HTTP, the CLI, MCP, the widget) shows a retrieved URL the gate did not pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# An inline link or image, ``[text](destination "title")``, destinations with one level of parentheses.
_INLINE_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*>")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[^\n]*\n?", re.MULTILINE)


def unlinked(answer: str, urls: Iterable[str]) -> str:
    """Return ``answer`` with its links as plain text and none of ``urls`` left in it.

    Code and other text stay as written; a link's text is kept, its destination dropped.
    """
    text = _REFERENCE_DEFINITION.sub("", answer)
    text = _INLINE_LINK.sub(lambda match: match.group(1), text)
    text = _AUTOLINK.sub("", text)
    for url in sorted({url for url in urls if url}, key=len, reverse=True):
        text = text.replace(url, "")
    return text
