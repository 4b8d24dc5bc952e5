"""Plain text: titles, summaries and alt text stay text, wherever they travel.

A post's title, summary and image alt text come from the site's files and are shown to
readers as *text*: in ``sources`` events (a widget sets them with ``textContent``), in the
link text of an answer, in a prompt. Three jobs, each in one function:

- ``plain_text`` cleans one field when a post is loaded: Unicode NFC, control, bidi
  and zero-width characters removed (they hide or reorder what a reader sees: a
  right-to-left override makes ``gpj.exe`` read ``exe.jpg``), whitespace collapsed to
  single spaces, and tags of real HTML elements dropped (``<img src=x onerror=...>``,
  ``<script>``, ``<b>``): a title is not markup. Anything else stays exactly as written:
  ``List<Document>``, ``a < b && c``, ``<T>`` are text and remain so.
- ``escape_markdown`` makes text safe as Markdown *inline content* (link text, a
  list item): every ASCII punctuation character that Markdown or inline HTML could
  read as syntax is backslash-escaped, so ``List<Document>`` renders as written and
  never as raw HTML, ``[x](y)`` never becomes a link, a backtick never opens code.
- ``clean_page`` applies ``plain_text`` to a post record's title, summary and alt texts,
  removes invisible characters from its body, and truncates a body over
  ``MAX_POST_CHARS`` with a warning (one post must not cost every request seconds).
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from typing import Any

logger = logging.getLogger(__name__)

MAX_POST_CHARS_DEFAULT = 200_000
"""Longest post body kept (characters); ``ASKAI_MAX_POST_CHARS`` overrides it at load time."""

# C0/C1 controls (tab, newline and carriage return excepted), soft hyphen, bidi marks,
# embeddings, overrides and isolates, zero-width characters, invisible operators, the
# BOM, interlinear annotation marks and Unicode tag characters (which smuggle hidden
# ASCII text past a reader into a model).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)

# Real HTML element names only: ``<Document>`` or ``<T>`` in a title is text, not a tag.
_HTML_ELEMENTS = (
    "a|abbr|address|area|article|aside|audio|b|base|bdi|bdo|blockquote|body|br|button|canvas|caption|cite|code|"
    "col|colgroup|data|datalist|dd|del|details|dfn|dialog|div|dl|dt|em|embed|fieldset|figcaption|figure|font|"
    "footer|form|frame|frameset|h[1-6]|head|header|hr|html|i|iframe|img|input|ins|kbd|label|legend|li|link|main|"
    "map|mark|marquee|math|menu|meta|meter|nav|noscript|object|ol|optgroup|option|output|p|param|picture|pre|"
    "progress|q|rp|rt|ruby|s|samp|script|section|select|small|source|span|strong|style|sub|summary|sup|svg|"
    "table|tbody|td|template|textarea|tfoot|th|thead|time|title|tr|track|u|ul|var|video|wbr"
)
_HTML_TAG = re.compile(
    rf"<!--.*?-->|</?(?:{_HTML_ELEMENTS})(?=[\s/>])(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>", re.IGNORECASE | re.DOTALL
)
_SCRIPT_BODY = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
# CommonMark lets any ASCII punctuation be backslash-escaped (then it is literal). These
# are the ones that can start syntax inside a line: emphasis, code, links and images,
# raw HTML and entities, tables, strikethrough. Prose punctuation stays readable.
_SCRIPTS = str.maketrans(
    {sup: f"^{n}" for n, sup in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")} | {sub: f"_{n}" for n, sub in enumerate("₀₁₂₃₄₅₆₇₈₉")}
)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#!|~&])")


def strip_invisible(text: str) -> str:
    """Remove control, bidi and zero-width characters; tabs and line breaks stay."""
    return _INVISIBLE.sub("", text)


def clean_question(question: str) -> str:
    """Return ``question`` as the graph should read it: NFKC, no invisible characters, plain apostrophes.

    The graph researches this form (Condense starts every question with it) and the
    server's cache keys are built from it, so a question asked with a zero-width space,
    a bidi override or a typographic apostrophe earns the same verdict as the plain
    spelling it displays as. Superscripts and subscripts keep their meaning as ``^2``
    and ``_2``: NFKC alone would make ``x²`` the different question ``x2``.
    """
    text = strip_invisible(question).translate(_SCRIPTS)
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    return " ".join(text.split())


def printable(text: str) -> str:
    r"""Return ``text`` safe to print on one terminal line: every unprintable character escaped.

    File names and URLs can hold newlines, escape sequences or bidi overrides; printed
    raw they could forge report lines or drive the terminal. Shown as ``\n``,
    ``\x1b``, ``\u202e`` they stay visible and inert.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def strip_html_tags(text: str) -> str:
    """Remove the tags (and comments) of real HTML elements, keeping the text between them.

    ``<div class="user-list-center">`` is layout, not words a reader sees: left in, its
    attribute values read as the page's vocabulary.
    """
    return _HTML_TAG.sub("", text)


def plain_text(text: str) -> str:
    """Return ``text`` as one clean line of plain text (see module docstring)."""
    text = unicodedata.normalize("NFC", str(text))
    if "<" in text:  # both patterns start with one; most titles and summaries have none
        text = _SCRIPT_BODY.sub(" ", text)
        text = _HTML_TAG.sub(" ", text)
    text = strip_invisible(text)
    return " ".join(text.split())


def escape_markdown(text: str) -> str:
    """Backslash-escape every character Markdown could read as syntax in inline content."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def markdown_link(title: str, url: str) -> str:
    """Return a Markdown link whose text shows ``title`` exactly, as plain text."""
    return f"[{escape_markdown(plain_text(title))}]({url})"


def max_post_chars() -> int:
    """Return the body limit: ``ASKAI_MAX_POST_CHARS`` if set (a positive integer), else the default."""
    raw = os.environ.get("ASKAI_MAX_POST_CHARS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return MAX_POST_CHARS_DEFAULT


def clean_page(record: Any, where: str) -> Any:
    """Return a post record with plain title/summary/alt text and a bounded, visible body.

    Anything that is not a dict, and fields of the wrong type, are returned unchanged:
    the corpus loader reports those with its own messages.
    """
    if not isinstance(record, dict):
        return record
    cleaned = dict(record)
    for key in ("title", "summary"):
        if isinstance(cleaned.get(key), str):
            cleaned[key] = plain_text(cleaned[key])
    images = cleaned.get("images")
    if isinstance(images, list):
        cleaned["images"] = [
            {**image, "alt": plain_text(image["alt"])}
            if isinstance(image, dict) and isinstance(image.get("alt"), str)
            else image
            for image in images
        ]
    body = cleaned.get("body")
    if isinstance(body, str):
        body = strip_invisible(body)
        limit = max_post_chars()
        if len(body) > limit:
            logger.warning("%s: body is %d characters; truncated to %d (ASKAI_MAX_POST_CHARS)", where, len(body), limit)
            body = body[:limit]
        cleaned["body"] = body
    return cleaned
