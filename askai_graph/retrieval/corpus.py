"""A site's pages as the engine sees them: the page model, the corpus and its fingerprint.

Loading a corpus (the bundled sample site, a built index, a source indexed on the fly)
is ``askai_graph.indexing.loader``'s job; this module only defines what is loaded.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Sequence
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, ValidationError

from askai_graph.evidence.results import HeadingAnchor, ImageRef
from askai_graph.text.plain import clean_page


class CorpusError(ValueError):
    """The corpus cannot be loaded; the message names the file and the problem."""


class Page(BaseModel):
    """One page of the site."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    title: str
    """Page title (plain text)."""
    url: str
    """Canonical page URL, cited exactly."""
    summary: str = ""
    """One-line description."""
    body: str = ""
    """Markdown body without front matter."""
    images: tuple[ImageRef, ...] = ()
    """Images the page declares or shows, with absolute URLs."""
    weight: float | None = None
    """The site's own position for the page (front matter weight/order/sidebar_position)."""
    date: str | None = None
    """Publication date as ISO text, when the page has one."""
    section: str = ""
    """The nav section the site lists the page under ('' when none), for the catalog."""
    anchors: tuple[HeadingAnchor, ...] = ()
    """Its headings' anchors on the real page, in page order (custom ids or the generator's slugs)."""
    version: str = ""
    """The docs version the page belongs to (``30.4``, ``next``); '' when the site keeps one version."""
    locale: str = ""
    """The language of the page (``en``, ``es``, ``pt-BR``); '' when the site keeps one language."""
    doc: str = ""
    """The page's path in its version's tree: the same page in another language has the same ``doc``
    ('' when the site keeps one version and one language)."""


Post = Page
"""The earlier name of ``Page`` (the public API keeps it)."""


class Corpus(BaseModel):
    """All posts of a site plus a fingerprint that changes whenever any post does."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    posts: Annotated[Sequence[Page], SkipValidation]
    """The posts, in a stable order (read lazily from disk for a built index)."""
    fingerprint: str
    """SHA-256 over the posts' content; keys caches and indexes."""
    index: Annotated[Any, SkipValidation] = Field(default=None, exclude=True, repr=False)
    """The built index (``askai_graph.indexing.IndexReader``) the posts come from, if any."""
    variants: dict[str, Any] | None = None
    """A source read in memory: its versions and languages, and their defaults (a built index's are in its manifest)."""


def missing_pages(corpus: Corpus) -> Callable[[Sequence[str]], list[str]]:
    """Return a check of which URLs are no page of ``corpus`` (blocking for a built index: it reads it)."""
    index = corpus.index
    if index is not None:
        check: Callable[[Sequence[str]], list[str]] = index.missing_urls
        return check
    urls = frozenset(post.url for post in corpus.posts)
    return lambda wanted: [url for url in wanted if url not in urls]


def site_order_key(weight: float | None, date: str | None, title: str, url: str) -> tuple[object, ...]:
    """Return the sort key that puts a site's pages in the site's own order.

    Pages with an explicit position (front matter ``weight``/``order``/
    ``sidebar_position``) come first, lowest first; then dated pages, newest first; then
    the rest by title. The URL breaks ties, so the order is total and stable.
    """
    if weight is not None:
        return (0, weight, 0.0, title.casefold(), url)
    stamp = _timestamp(date)
    if stamp is not None:
        return (1, 0.0, -stamp, title.casefold(), url)
    return (2, 0.0, 0.0, title.casefold(), url)


def _timestamp(date: str | None) -> float | None:
    if not date:
        return None
    try:
        parsed = dt.datetime.fromisoformat(date.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


def make_page(record: dict[str, Any], where: str = "post") -> Page:
    """Return the validated post for ``record`` (from ``where``), titles and alt text made plain text.

    Raises:
        CorpusError: a required field is missing or empty, a URL is not absolute
            http(s), or a field has the wrong type.
    """
    record = clean_page(record, where)
    for key in ("title", "url"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise CorpusError(f"missing or empty '{key}'")
    # Citations are matched exactly against these URLs, and Validation accepts only
    # absolute http(s) links: a relative URL here could never be cited.
    images = [i["url"] for i in record.get("images") or () if isinstance(i, dict) and i.get("url") is not None]
    for url in [record["url"], *images]:
        if not is_http_url(str(url)):
            raise CorpusError(f"url {url!r} is not an absolute http(s) URL")
    try:
        return Page.model_validate({**record, "images": record.get("images") or ()})
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise CorpusError(f"{field}: {problem['msg']}") from None


def is_http_url(url: str) -> bool:
    """Return whether ``url`` is an absolute http(s) URL with a host and no stray spaces."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and url == url.strip() and " " not in url


def page_digest(post: Page) -> str:
    """Return the SHA-256 of everything about ``post`` that answers depend on."""
    # A page no nav section (or anchor, version, language) names digests as it did before those were read.
    unset = {name for name in ("section", "anchors", "version", "locale", "doc") if not getattr(post, name)}
    return hashlib.sha256(post.model_dump_json(exclude=unset or None).encode()).hexdigest()


def fingerprint_of(digests: Any) -> str:
    """Return the corpus fingerprint over post digests, in corpus order."""
    total = hashlib.sha256()
    for digest in digests:
        total.update(digest.encode())
    return total.hexdigest()
