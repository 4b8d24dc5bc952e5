"""Derive a page's public URL from its source path, the way static site generators do.

``guide/install.md`` under ``https://docs.example/`` becomes
``https://docs.example/guide/install/`` (MkDocs' ``use_directory_urls``, Docusaurus and
Hugo "pretty URLs"); ``index.md``, ``_index.md`` and ``README.md`` stand for their folder.
Docusaurus number prefixes (``01-intro.md``) and Jekyll date prefixes
(``2024-05-01-hello.md``) are not part of the URL. Front matter wins: an absolute
``url``/``permalink`` is used as it is, a path one is taken relative to the base URL,
and ``slug`` replaces the last segment (or the whole path when it starts with ``/``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from askai_graph.retrieval.corpus import CorpusError, is_http_url

_INDEX_NAMES = frozenset({"index", "_index", "readme"})
_NUMBER_PREFIX = re.compile(r"^\d+[-_.\s]+(?=\S)")
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})-(?=\S)")
NO_BASE_URL = "no 'url' in front matter and no base URL to derive one (askai index --base-url, or ASKAI_SITE_URL)"


def check_base_url(base_url: str | None) -> str | None:
    """Return the base URL ending in ``/``, or raise ``CorpusError`` if it is not http(s)."""
    if base_url is None:
        return None
    if not is_http_url(base_url):
        raise CorpusError(f"base URL {base_url!r} is not an absolute http(s) URL")
    return base_url if base_url.endswith("/") else base_url + "/"


def file_date(rel: str) -> str | None:
    """Return the ``YYYY-MM-DD`` a Jekyll-style file name starts with, if any."""
    match = _DATE_PREFIX.match(rel.rsplit("/", 1)[-1])
    return match.group(1) if match else None


def page_url(
    rel: str,
    meta: dict[str, Any],
    base_url: str | None,
    *,
    trailing_slash: bool = True,
    html_urls: bool = False,
    doc_id: str | None = None,
) -> str:
    """Return the URL of the page at ``rel`` (relative source path) with front matter ``meta``.

    ``trailing_slash`` false gives ``guide/install`` (Docusaurus ``trailingSlash: false``,
    or unset); ``html_urls`` gives ``guide/install.html`` (MkDocs ``use_directory_urls:
    false``); ``doc_id`` replaces the file name (a Docusaurus front matter ``id``).

    Raises:
        CorpusError: no URL can be derived (no base URL), or the result is not http(s).
    """
    for key in ("url", "permalink"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            value = value.strip()
            if is_http_url(value):
                return value
            if urlsplit(value).scheme or value.startswith("//"):
                raise CorpusError(f"url {value!r} is not an absolute http(s) URL")
            return _join(base_url, value)
    segments = [_clean(segment) for segment in rel.split("/")]
    stem = segments[-1].rsplit(".", 1)[0]
    folder = [s for s in segments[:-1] if s]
    index = stem.lower() in _INDEX_NAMES
    leaf = [] if index else [doc_id or stem]
    slug = meta.get("slug")
    if isinstance(slug, str) and slug.strip():
        slug = slug.strip()
        if slug.startswith("/"):
            return _join(base_url, _ending(slug.strip("/"), trailing_slash, html_urls, index=False))
        leaf, index = [slug.strip("/")], False
    path = "/".join(folder + leaf)
    return _join(base_url, _ending(path, trailing_slash, html_urls, index=index))


def _ending(path: str, trailing_slash: bool, html_urls: bool, *, index: bool) -> str:
    if not path:
        return ""  # the home page is the base URL itself, whatever the style
    if html_urls:
        return path + ("/index.html" if index else ".html")
    return path + "/" if trailing_slash else path


def folder_url(rel: str, base_url: str | None) -> str | None:
    """Return the URL of the folder holding ``rel``, against which relative links resolve."""
    if base_url is None:
        return None
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    return base_url + (quote(folder) + "/" if folder else "")


def resolve(url: str, against: str | None) -> str | None:
    """Return ``url`` made absolute against ``against``; ``None`` when that is impossible."""
    if is_http_url(url):
        return url
    if against is None or url.startswith(("data:", "javascript:", "mailto:")):
        return None
    joined = urljoin(against, url)
    return joined if is_http_url(joined) else None


def _join(base_url: str | None, path: str) -> str:
    # A path in front matter ("/install/", Docusaurus' slug, Hugo's url) is relative to
    # where the source is published, which is what the base URL names.
    if base_url is None:
        raise CorpusError(NO_BASE_URL)
    url = base_url + quote(path.lstrip("/"), safe="/-._~%!$&'()*+,;=:@")
    if not is_http_url(url):
        raise CorpusError(f"url {url!r} is not an absolute http(s) URL")
    return url


def _clean(segment: str) -> str:
    segment = _DATE_PREFIX.sub("", segment)
    return _NUMBER_PREFIX.sub("", segment)
