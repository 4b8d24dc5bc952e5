"""Anchored citations: the passage a citing sentence rests on, its quote and its link.

A source card says "the answer used this page"; an anchored citation says where: the
section of the retrieved page the sentence rests on, a short verbatim quote of it, and
a link to that place (the heading's anchor, or a ``#:~:text=`` fragment of the quote when
the page has no anchor for it). ``retrieval.anchoring`` makes them; Validation
(``validation.citations``) checks them against the retrieved text; the Source Gate puts
the best one of each cited page on its card. Shapes and spellings both sides share live
here, so the maker and the checker cannot drift apart.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from urllib.parse import quote as percent_encode
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict

QUOTE_MAX_CHARS = 200
"""Longest quote on a card: a sentence or two, cut at a word."""
TEXT_FRAGMENT = "#:~:text="
"""What a text-fragment link adds to a page URL (the WICG Text Fragments syntax)."""
_FRAGMENT_WORDS = 8
# The heading and fence lines passages are cut at (``retrieval.passages`` reads them alike).
HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[*_`~]+")
# A heading's inline Markdown, as a browser would show it: code spans keep their text
# verbatim; links and images show their text; autolinks their URL; emphasis and
# strikethrough lose their markers (underscores inside a word are text: ``max_tokens``).
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_INLINE_LINK = re.compile(
    r"!?\[((?:[^\[\]\\]|\\.)*)\]"  # [text] or ![alt]
    r"(?:\((?:<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"  # (dest "title")
    r"|\[[^\[\]]*\])"  # or [reference]
)
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<>\s]*|[^<>\s@]+@[^<>\s@]+)>")
_EMPHASIS = re.compile(r"(?<![\w\\*~])(\*{1,3}|_{1,3}|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*~])")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
# An entity or numeric character reference not escaped by a backslash (CommonMark §2.5).
_ENTITY = re.compile(r"(?<!\\)&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


class Citation(BaseModel):
    """One citing sentence of an answer and the retrieved passage it rests on."""

    model_config = ConfigDict(frozen=True)

    url: str
    """The retrieved page the sentence cites."""
    sentence: str
    """The citing sentence, as the answer has it."""
    section: str = ""
    """The heading of the passage's section ('' for a page's opening text)."""
    passage: str = ""
    """The passage (the section's Markdown, as retrieved) the sentence rests on."""
    quote: str = ""
    """A verbatim excerpt of the passage, at most ``QUOTE_MAX_CHARS``."""
    anchor_url: str = ""
    """``url`` plus the section heading's anchor, or a text fragment of ``quote``."""
    support: float = 0.0
    """Share of the sentence's content terms the passage holds (its grounding, in [0, 1])."""


def best_citations(citations: Sequence[Citation]) -> dict[str, Citation]:
    """Return each cited URL's best-supported citation (the first on a tie): what its card shows."""
    best: dict[str, Citation] = {}
    for citation in citations:
        if citation.url not in best or citation.support > best[citation.url].support:
            best[citation.url] = citation
    return best


def normalise_space(text: str) -> str:
    """Return ``text`` with every run of whitespace one space, trimmed: how quotes are compared."""
    return " ".join(text.split())


def plain_quote(quote: str) -> str:
    """Return ``quote`` without Markdown markup (link targets, emphasis, code ticks): the text a browser shows."""
    return normalise_space(_MARKUP.sub(lambda m: m.group(1) or "", quote))


def plain_heading(heading: str) -> str:
    """Return a section heading as readers see it rendered: ``[AsyncIO](https://…)`` is ``AsyncIO``.

    Headings are cut from the page's Markdown as written; a card, the CLI and MCP show
    them as plain text, so their inline markup goes (code spans stay as their text).
    """
    return plain_inline(heading)


def plain_inline(markdown: str) -> str:
    """Return a line of inline Markdown as a browser shows it: links' text, code spans' text, no emphasis markers."""
    parts = _CODE_SPAN.split(markdown)
    # split() yields text, fence, code, fence, code, ...: every third item after the first is code.
    shown = []
    for i, part in enumerate(parts):
        if i % 3 == 2:
            shown.append(part.strip() if part.strip() else part)
        elif i % 3 == 0:
            shown.append(_plain_inline(part))
    return normalise_space("".join(shown))


def _plain_inline(text: str) -> str:
    for _ in range(3):  # links in emphasis, emphasis in link text: a few layers at most
        before = text
        text = _INLINE_LINK.sub(lambda m: m.group(1), text)
        text = _AUTOLINK.sub(lambda m: m.group(1), text)
        text = _EMPHASIS.sub(lambda m: m.group(2), text)
        if text == before:
            break
    text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)  # each once: "&amp;lt;" shows "&lt;"
    return _ESCAPED.sub(lambda m: m.group(1), text)


def heading_url(url: str, anchor: str) -> str:
    """Return the link to the heading ``anchor`` of page ``url``."""
    return f"{url}#{anchor}"


def fragment_url(url: str, quote: str) -> str:
    """Return a link to ``quote`` on page ``url`` (a text fragment of its first words, as shown)."""
    words = plain_quote(quote).split()[:_FRAGMENT_WORDS]
    return url + TEXT_FRAGMENT + percent_encode(" ".join(words), safe="")


def fragment_texts(anchor_url: str, url: str) -> list[str] | None:
    """Return the texts a text-fragment link to ``url`` looks for (its comma-separated parts), or None."""
    prefix = url + TEXT_FRAGMENT
    if not anchor_url.startswith(prefix):
        return None
    return [normalise_space(unquote(part)) for part in anchor_url[len(prefix) :].split(",")]


@lru_cache(maxsize=1024)
def headings_in(text: str) -> frozenset[str]:
    """Return the headings of ``text`` outside code fences, as its sections name them."""
    found: set[str] = set()
    fence: str | None = None
    for line in text.splitlines():
        opener = FENCE_LINE.match(line)
        if opener and (fence is None or opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)):
            fence = None if fence else opener.group(1)
        elif fence is None and (match := HEADING_LINE.match(line)):
            found.add(" ".join(match.group(2).split()))
    return frozenset(found)
