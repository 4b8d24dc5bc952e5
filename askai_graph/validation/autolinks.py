"""Bare URLs in prose: what a GFM renderer would turn into live links on its own.

CommonMark leaves ``https://...`` in text alone, and so does mistletoe, but GFM
renderers (cmark-gfm, remark-gfm, markdown-it's linkify) link ``http(s)://``, ``www.``
and e-mail addresses found in text. The extraction here follows the GFM spec's
"extended autolink" rules, leaning greedy where renderers differ, so that the string
checked is never shorter than the one a renderer would link.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from askai_graph.validation.urls import Destination

# Schemes anywhere (renderers disagree on what may precede them, so accept anything);
# "www." only where GFM allows it to start a link.
_URL_START = re.compile(r"(?i)https?://|(?<![A-Za-z0-9.\-])www\.")
# GFM: a link extends to the first whitespace or "<".
_URL_BODY = re.compile(r"[^\s<]*")
# E-mail addresses are found from their "@" (a regex over every start position would be
# quadratic on long words): the local part is read backwards, the domain forwards.
_EMAIL_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
_EMAIL_DOMAIN = re.compile(r"[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)+")
_TRAILING_PUNCTUATION = "?!.,:*_~"
_TRAILING_ENTITY = re.compile(r"&[A-Za-z0-9]+;$")

PLACEHOLDER = "\x00"
"""Stands for an inline construct (link, code span, HTML) inside flattened text.

It is neither whitespace nor ``<``, so a URL running straight into such a construct
keeps the placeholder and cannot be a member: the gate fails closed when it cannot tell
where a renderer would end the link.
"""


def bare_urls(text: str) -> Iterator[Destination]:
    """Yield every URL a GFM renderer would autolink in ``text`` (entity-decoded prose)."""
    spans: list[tuple[int, int]] = []
    for match in _URL_START.finditer(text):
        if spans and match.start() < spans[-1][1]:
            continue
        body = _URL_BODY.match(text, match.end())
        url = trim_url(text[match.start() : body.end() if body else match.end()])
        spans.append((match.start(), match.start() + len(url)))
        if url.lower() in ("http://", "https://", "www."):
            continue  # a scheme alone: GFM needs a domain, and there is nothing to reach
        if url[:4].lower() == "www.":
            url = "http://" + url  # the href GFM renderers produce
        yield Destination("link", url, "bare URL")
    start = 0
    while (at := text.find("@", start)) != -1:
        start = at + 1
        local = at
        while local > 0 and text[local - 1] in _EMAIL_LOCAL:
            local -= 1
        domain = _EMAIL_DOMAIN.match(text, at + 1)
        if local == at or domain is None or any(begin <= at < end for begin, end in spans):
            continue
        yield Destination("link", "mailto:" + text[local : domain.end()].rstrip("._-"), "bare e-mail address")


def trim_url(url: str) -> str:
    """Drop what GFM leaves out of an autolink: trailing punctuation, ``)`` and entities."""
    while True:
        before = url
        url = url.rstrip(_TRAILING_PUNCTUATION)
        if url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1]
        elif url.endswith(";") and (entity := _TRAILING_ENTITY.search(url)):
            url = url[: entity.start()]
        if url == before:
            return url
