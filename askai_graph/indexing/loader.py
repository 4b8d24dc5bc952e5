"""A site's posts: the bundled sample site, a built index, or a source indexed on the fly.

``load_corpus(path)`` accepts:

- ``None``: the bundled sample site (Markdown posts with ``title`` and ``url``), read
  as parsed pages from ``sample_site.jsonl`` (``scripts/bundled_pages.py`` writes it
  from the Markdown; a test checks it is current), so answering a question on it parses
  no Markdown or front matter;
- a folder written by ``askai index`` (it holds ``askai-index.json``): loaded as built,
  without re-reading the source;
- a Markdown/MDX docs tree or a built HTML site: indexed in memory, with URLs derived
  from ``base_url`` where front matter gives none;
- a ``.jsonl`` file, one post per line.

A source indexed on the fly skips bad files (logged as warnings) instead of failing;
only a source with no usable page at all is an error.
"""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path
from typing import Any

from askai_graph.indexing.store import IndexReader, is_built_index
from askai_graph.retrieval.corpus import Corpus, CorpusError, Page, fingerprint_of, page_digest
from askai_graph.text.plain import printable

BUNDLED_SITE = "sample_site"
BUNDLED_PAGES = "sample_site.jsonl"
"""The bundled site's pages as parsed from ``BUNDLED_SITE``, one ``Page`` (JSON) a line."""
logger = logging.getLogger(__name__)


def load_corpus(path: Path | None = None, *, base_url: str | None = None, **limits: int) -> Corpus:
    """Load posts from ``path`` (see the module docstring), or the bundled sample site.

    Args:
        path: A built index, a docs tree, a built HTML site or a ``.jsonl`` file.
        base_url: Where the source is published, for URLs derived from file paths.
        **limits: ``max_file_bytes`` and ``max_front_matter_bytes`` for a source folder.

    Raises:
        CorpusError: the path is missing, or holds no usable post.
    """
    if path is None:
        return bundled_corpus()
    if path.is_dir() and is_built_index(path):
        reader = IndexReader(path)
        return Corpus(posts=reader.posts, fingerprint=reader.fingerprint, index=reader)
    if path.is_dir() or (path.is_file() and path.suffix == ".jsonl"):
        # Only a source parsed here needs the parsers (YAML, Markdown, HTML): not a built index.
        from askai_graph.indexing.sources import scan_source

        return _in_memory(scan_source(path, base_url=base_url, **limits), str(path))
    raise CorpusError(f"{path}: not a built index, a docs or HTML folder, or a .jsonl file")


def bundled_site() -> Path:
    """Return the folder of the bundled sample site's Markdown posts."""
    return Path(str(resources.files("askai_graph").joinpath(BUNDLED_SITE)))


def bundled_corpus() -> Corpus:
    """Return the bundled sample site, from its parsed pages (``BUNDLED_PAGES``)."""
    lines = resources.files("askai_graph").joinpath(BUNDLED_PAGES).read_text("utf-8").splitlines()
    posts = tuple(Page.model_validate_json(line) for line in lines if line)
    return Corpus(posts=posts, fingerprint=fingerprint_of(page_digest(post) for post in posts))


def corpus_for(settings: Any) -> Corpus:
    """Load the corpus ``settings.corpus`` names (URLs derived under ``settings.site_url``)."""
    return load_corpus(
        settings.corpus,
        base_url=settings.site_url,
        max_file_bytes=settings.max_page_bytes,
        max_front_matter_bytes=settings.max_front_matter_bytes,
    )


def _in_memory(scan: Any, where: str) -> Corpus:
    posts = [item for item in scan.items if isinstance(item, Page)]
    # File names are shown escaped, as ``askai index`` shows them: a name can hold a newline or an escape sequence.
    for skip in scan.skips:
        logger.warning("%s: skipped %s: %s", printable(where), printable(skip.where), printable(skip.reason))
    if not posts:
        reasons = "; ".join(f"{printable(skip.where)}: {printable(skip.reason)}" for skip in scan.skips[:3])
        raise CorpusError(f"{printable(where)}: no posts found" + (f" ({reasons})" if reasons else ""))
    variants = getattr(scan, "variants", None)
    fingerprint = fingerprint_of(page_digest(post) for post in posts)
    return Corpus(posts=tuple(posts), fingerprint=fingerprint, variants=variants)
