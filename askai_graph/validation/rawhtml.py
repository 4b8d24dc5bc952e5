"""URLs carried by raw HTML tags (``<a href>``, ``<img src>``, ``style="url(...)"``...).

Raw HTML is an error in itself (the UI must not render it); extracting its URLs only
makes the report say *which* URL the draft tried to smuggle, checked like any other.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from askai_graph.validation.codes import Code
from askai_graph.validation.report import ValidationIssue
from askai_graph.validation.urls import Destination, Kind

TAG = re.compile(r"<\s*/?\s*([A-Za-z][A-Za-z0-9:-]*)((?:[^<>\"']|\"[^\"]*\"|'[^']*')*)>")
"""An HTML start or end tag, attributes included (quoted values may contain ``>``)."""

_ATTRIBUTE = re.compile(r"""([^\s"'<>/=]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)""")
_CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]*)""", re.IGNORECASE)
_URL_ATTRIBUTES: dict[str, Kind] = {
    "href": "link",
    "xlink:href": "link",
    "action": "link",
    "formaction": "link",
    "cite": "link",
    "data": "link",
    "ping": "link",
    "longdesc": "link",
    "src": "image",
    "srcset": "image",
    "poster": "image",
    "background": "image",
    "lowsrc": "image",
}


def html_destinations(fragment: str) -> Iterator[Destination]:
    """Yield the URL-valued attributes of every tag in ``fragment``."""
    for tag in TAG.finditer(fragment):
        where = f"raw HTML <{tag.group(1).lower()}>"
        for attribute in _ATTRIBUTE.finditer(tag.group(2)):
            name, raw = attribute.group(1).lower(), attribute.group(2)
            if raw[:1] in "\"'":
                raw = raw[1:-1]
            value = html.unescape(raw)
            if name == "style":
                for url in _CSS_URL.findall(value):
                    yield Destination("image", url, where)
                continue
            kind = _URL_ATTRIBUTES.get(name)
            if kind is None:
                continue
            if name == "srcset":
                for candidate in value.split(","):
                    if candidate.strip():
                        yield Destination(kind, candidate.split()[0], where)
            else:
                yield Destination(kind, value.strip(), where)


def raw_html_issue(content: str) -> ValidationIssue:
    """The issue for one piece of raw HTML."""
    snippet = " ".join(content.split())[:80]
    return ValidationIssue(code=Code.RAW_HTML.value, message=f"Raw HTML is not allowed: {snippet}")
