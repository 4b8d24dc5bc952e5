"""The stable error codes of the Validation gate, one per rule.

Codes are part of the public contract: the graph, the CLI's JSON output and tests match
on them, so a code is never renamed or reused for a different rule.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Why a draft failed Validation; each member's value is the string in reports."""

    EMPTY_DRAFT = "empty_draft"
    """The draft is empty or whitespace only."""
    DRAFT_TOO_LONG = "draft_too_long"
    """The draft is longer than the limit; it is not parsed (parsing cost grows with it)."""
    UNPARSEABLE_MARKDOWN = "unparseable_markdown"
    """The validator itself failed on this input; the draft is rejected (fail closed)."""
    CONTROL_CHARACTER = "control_character"
    """A C0/C1 control character (other than tab and newline) or U+2028/U+2029."""
    UNCLOSED_FENCE = "unclosed_fence"
    """A code fence that no closing fence ends (CommonMark §4.5)."""
    AMBIGUOUS_CODE_BLOCK = "ambiguous_code_block"
    """mistletoe reads lines as fenced code that CommonMark renderers show as text."""
    AMBIGUOUS_CODE_SPAN = "ambiguous_code_span"
    """mistletoe's code spans differ from CommonMark's (e.g. after an escaped backtick)."""
    BROKEN_LINK_SYNTAX = "broken_link_syntax"
    """Link syntax that renders as literal brackets, e.g. ``[text](https://x`` unclosed."""
    EMPTY_LINK_DESTINATION = "empty_link_destination"
    """A link, image or reference definition with an empty destination."""
    UNKNOWN_CITATION_URL = "unknown_citation_url"
    """A live link URL that is not exactly a retrieved ``source_url``."""
    UNKNOWN_IMAGE_URL = "unknown_image_url"
    """An image URL that is not exactly a retrieved image URL."""
    DISALLOWED_SCHEME = "disallowed_scheme"
    """A URL whose scheme is not ``http`` or ``https`` (``javascript:``, ``mailto:``...)."""
    RELATIVE_URL = "relative_url"
    """A URL without a scheme: relative path, ``//host``, ``#fragment``, ``?query``."""
    URL_USERINFO = "url_userinfo"
    """A URL with user info in its authority, e.g. ``https://good@evil``."""
    MALFORMED_URL = "malformed_url"
    """Whitespace, control or format characters, a backslash, or no ``//host``."""
    RAW_HTML = "raw_html"
    """Raw HTML anywhere outside code: the UI must not render it."""
    UNCLOSED_MERMAID_BLOCK = "unclosed_mermaid_block"
    """A ```` ```mermaid ```` fence that no closing fence ends."""
    UNKNOWN_MERMAID_TYPE = "unknown_mermaid_type"
    """A Mermaid block whose first keyword is not an allowed diagram type."""
    MERMAID_CALLBACK = "mermaid_callback"
    """A Mermaid ``click ... call`` / ``callback`` directive (runs script, not a link)."""
    UNANCHORED_CITATION = "unanchored_citation"
    """A citation's quote is not verbatim in the retrieved text of its URL, or its anchor
    is neither a retrieved heading's nor a text fragment of its quote."""


ALL_CODES: tuple[str, ...] = tuple(code.value for code in Code)
"""Every code the gate can report, in declaration order."""
