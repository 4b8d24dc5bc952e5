"""Destination checks: the shape of a URL, and exact membership in the allowed set.

Membership is a plain string comparison against the retrieved URLs, on purpose: any
normalisation (case, trailing slash, default port, percent-decoding, IDNA) would let a
different string through, and a different string is a different URL to whoever serves
it. Callers pass the *decoded* destination, the string a renderer puts in ``href``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from askai_graph.validation.codes import Code
from askai_graph.validation.report import ValidationIssue

Kind = Literal["link", "image", "definition"]
"""What a URL is used as: a link, an embedded image, or a reference definition."""

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_ALLOWED_SCHEMES = frozenset({"http", "https"})
_ASCII_FORBIDDEN = re.compile(r"[\x00-\x20\x7f\\]")


@dataclass(frozen=True, slots=True)
class Destination:
    """One URL a renderer would make live, navigate to or load."""

    kind: Kind
    """How the URL is used; decides which allowed set it must belong to."""
    url: str
    """The decoded destination, exactly as it would end up in ``href``/``src``."""
    where: str
    """The construct it came from, for messages (``"inline link"``, ``"bare URL"``...)."""


@dataclass(frozen=True, slots=True)
class AllowedUrls:
    """The exact URLs this request may cite and embed."""

    links: frozenset[str]
    """Retrieved ``source_url`` values."""
    images: frozenset[str]
    """Retrieved image metadata URLs."""


def check_destination(dest: Destination, allowed: AllowedUrls) -> list[ValidationIssue]:
    """Return every problem with one destination (shape first, then membership)."""
    url = dest.url
    if not url.strip():
        noun = "image" if dest.kind == "image" else "link"
        message = f"Empty {noun} destination in {dest.where}"
        return [ValidationIssue(code=Code.EMPTY_LINK_DESTINATION.value, message=message, url=url)]
    issues = []
    shape = _shape_problem(url, dest.where)
    if shape is not None:
        issues.append(shape)
    if dest.kind == "image":
        if url not in allowed.images:
            issues.append(
                ValidationIssue(code=Code.UNKNOWN_IMAGE_URL.value, message=f"Unknown image URL: {url}", url=url)
            )
    elif url not in allowed.links and (dest.kind == "link" or url not in allowed.images):
        # A reference definition may serve an image; it must belong to one of the sets.
        issues.append(
            ValidationIssue(code=Code.UNKNOWN_CITATION_URL.value, message=f"Unknown citation URL: {url}", url=url)
        )
    return issues


def _shape_problem(url: str, where: str) -> ValidationIssue | None:
    """Return why ``url`` is not an absolute ``http(s)://host...`` URL, if it is not."""
    if _ASCII_FORBIDDEN.search(url) if url.isascii() else any(_is_forbidden_char(ch) for ch in url):
        # Browsers strip or reinterpret these (tabs and newlines vanish, "\" becomes "/"),
        # so the URL a reader reaches would not be the string that was checked.
        return _issue(Code.MALFORMED_URL, f"Malformed URL in {where} (whitespace, control or backslash): {url}", url)
    match = _SCHEME.match(url)
    if match is None:
        return _issue(Code.RELATIVE_URL, f"Relative URL in {where}; cite absolute http(s) URLs: {url}", url)
    scheme = match.group(1)
    if scheme.lower() not in _ALLOWED_SCHEMES:
        return _issue(Code.DISALLOWED_SCHEME, f"Disallowed URL scheme '{scheme}:' in {where}: {url}", url)
    rest = url[match.end() :]
    if not rest.startswith("//"):
        return _issue(Code.MALFORMED_URL, f"Malformed URL in {where} (no //host): {url}", url)
    authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0]
    if not authority:
        return _issue(Code.MALFORMED_URL, f"Malformed URL in {where} (empty host): {url}", url)
    if "@" in authority:
        return _issue(Code.URL_USERINFO, f"URL with user info in {where}: {url}", url)
    return None


def _is_forbidden_char(ch: str) -> bool:
    if ch == "\\" or ch.isspace():
        return True
    # Cc: control characters; Cf: format characters (zero-width, bidi overrides) that
    # make a URL display differently from where it goes.
    return unicodedata.category(ch) in ("Cc", "Cf")


def _issue(code: Code, message: str, url: str) -> ValidationIssue:
    return ValidationIssue(code=code.value, message=message, url=url)
