"""Index a site: Markdown/MDX docs trees, built HTML sites, JSONL files and live sites (crawled).

One module per step: ``files`` (walking a folder safely), ``frontmatter`` (safe YAML/
TOML with a size limit), ``urls`` (URLs the way site generators derive them),
``markdown`` / ``html`` / ``sources`` (one kind of source each), ``store`` (the on-disk
index), ``writer`` (one incremental write of it) and ``build`` (``askai index``: atomic).
A live site: ``crawl`` (``askai index https://site/``), ``crawler`` (discovery and
fetching), ``fetch`` (the safe HTTP client), ``pacing``, ``robots``, ``sitemap``,
``scope``, ``links``, ``crawlstate`` and ``crawl_options`` (the flags).
Names are imported on first use (PEP 562): ``askai --help`` registers the flags without
loading numpy or the HTTP client.
"""

from typing import TYPE_CHECKING

from askai_graph.lazy import lazy_exports

if TYPE_CHECKING:
    from askai_graph.indexing.build import IndexSummary, StrictIndexError, build_index
    from askai_graph.indexing.crawl import crawl_index
    from askai_graph.indexing.files import Skip
    from askai_graph.indexing.sources import Scan, open_source, scan_source
    from askai_graph.indexing.store import IndexReader, is_built_index

_EXPORTS = {
    "IndexReader": "askai_graph.indexing.store",
    "IndexSummary": "askai_graph.indexing.build",
    "Scan": "askai_graph.indexing.sources",
    "Skip": "askai_graph.indexing.files",
    "StrictIndexError": "askai_graph.indexing.build",
    "build_index": "askai_graph.indexing.build",
    "crawl_index": "askai_graph.indexing.crawl",
    "is_built_index": "askai_graph.indexing.store",
    "open_source": "askai_graph.indexing.sources",
    "scan_source": "askai_graph.indexing.sources",
}

__all__ = [
    "IndexReader",
    "IndexSummary",
    "Scan",
    "Skip",
    "StrictIndexError",
    "build_index",
    "crawl_index",
    "is_built_index",
    "open_source",
    "scan_source",
]

__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
