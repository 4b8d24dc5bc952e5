"""Index a site: Markdown/MDX docs trees, built HTML sites and JSONL files.

One module per step: ``files`` (walking a folder safely), ``frontmatter`` (safe YAML/
TOML with a size limit), ``urls`` (URLs the way site generators derive them),
``markdown`` / ``html`` / ``sources`` (one kind of source each), ``store`` (the on-disk
index), ``writer`` (one incremental write of it) and ``build`` (``askai index``: atomic).
"""

from askai_graph.indexing.build import IndexSummary, StrictIndexError, build_index
from askai_graph.indexing.files import Skip
from askai_graph.indexing.sources import Scan, open_source, scan_source
from askai_graph.indexing.store import IndexReader, is_built_index

__all__ = [
    "IndexReader",
    "IndexSummary",
    "Scan",
    "Skip",
    "StrictIndexError",
    "build_index",
    "is_built_index",
    "open_source",
    "scan_source",
]
