"""A site's posts: the bundled sample site, a built index, or a source indexed on the fly.

``load_corpus(path)`` accepts:

- ``None``: the bundled sample site (Markdown posts with ``title`` and ``url``);
- a folder written by ``askai index`` (it holds ``askai-index.json``): loaded as built,
  without re-reading the source;
- a Markdown/MDX docs tree or a built HTML site: indexed in memory, with URLs derived
  from ``base_url`` where front matter gives none;
- a ``.jsonl`` file, one post per line.

A source indexed on the fly skips bad files (logged as warnings) instead of failing;
only a source with no usable page at all is an error.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, ValidationError

from askai_graph.evidence import ImageRef
from askai_graph.plaintext import clean_post

BUNDLED_SITE = "sample_site"
logger = logging.getLogger(__name__)


class CorpusError(ValueError):
    """The corpus cannot be loaded; the message names the file and the problem."""


class Post(BaseModel):
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


class Corpus(BaseModel):
    """All posts of a site plus a fingerprint that changes whenever any post does."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    posts: Annotated[Sequence[Post], SkipValidation]
    """The posts, in a stable order (read lazily from disk for a built index)."""
    fingerprint: str
    """SHA-256 over the posts' content; keys caches and indexes."""
    index: Annotated[Any, SkipValidation] = Field(default=None, exclude=True, repr=False)
    """The built index (``askai_graph.indexing.IndexReader``) the posts come from, if any."""


def load_corpus(path: Path | None = None, *, base_url: str | None = None, **limits: int) -> Corpus:
    """Load posts from ``path`` (see the module docstring), or the bundled sample site.

    Args:
        path: A built index, a docs tree, a built HTML site or a ``.jsonl`` file.
        base_url: Where the source is published, for URLs derived from file paths.
        **limits: ``max_file_bytes`` and ``max_front_matter_bytes`` for a source folder.

    Raises:
        CorpusError: the path is missing, or holds no usable post.
    """
    from askai_graph import indexing

    if path is None:
        site = Path(str(resources.files("askai_graph").joinpath(BUNDLED_SITE)))
        return _in_memory(indexing.scan_source(site, base_url=None), str(site))
    if path.is_dir() and indexing.is_built_index(path):
        reader = indexing.IndexReader(path)
        return Corpus(posts=reader.posts, fingerprint=reader.fingerprint, index=reader)
    if path.is_dir() or (path.is_file() and path.suffix == ".jsonl"):
        return _in_memory(indexing.scan_source(path, base_url=base_url, **limits), str(path))
    raise CorpusError(f"{path}: not a built index, a docs or HTML folder, or a .jsonl file")


def corpus_for(settings: Any) -> Corpus:
    """Load the corpus ``settings.corpus`` names (URLs derived under ``settings.site_url``)."""
    return load_corpus(
        settings.corpus,
        base_url=settings.site_url,
        max_file_bytes=settings.max_page_bytes,
        max_front_matter_bytes=settings.max_front_matter_bytes,
    )


def _in_memory(scan: Any, where: str) -> Corpus:
    posts = [item for item in scan.items if isinstance(item, Post)]
    for skip in scan.skips:
        logger.warning("%s: skipped %s: %s", where, skip.where, skip.reason)
    if not posts:
        reasons = "; ".join(f"{skip.where}: {skip.reason}" for skip in scan.skips[:3])
        raise CorpusError(f"{where}: no posts found" + (f" ({reasons})" if reasons else ""))
    return Corpus(posts=tuple(posts), fingerprint=fingerprint_of(post_digest(post) for post in posts))


def make_post(record: dict[str, Any], where: str = "post") -> Post:
    """Return the validated post for ``record`` (from ``where``), titles and alt text made plain text.

    Raises:
        CorpusError: a required field is missing or empty, a URL is not absolute
            http(s), or a field has the wrong type.
    """
    from askai_graph.indexing.urls import is_http_url

    record = clean_post(record, where)
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
        return Post.model_validate({**record, "images": record.get("images") or ()})
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise CorpusError(f"{field}: {problem['msg']}") from None


def post_digest(post: Post) -> str:
    """Return the SHA-256 of everything about ``post`` that answers depend on."""
    # A page no nav section names digests as it did before sections were read.
    return hashlib.sha256(post.model_dump_json(exclude={"section"} if not post.section else None).encode()).hexdigest()


def fingerprint_of(digests: Any) -> str:
    """Return the corpus fingerprint over post digests, in corpus order."""
    total = hashlib.sha256()
    for digest in digests:
        total.update(digest.encode())
    return total.hexdigest()
