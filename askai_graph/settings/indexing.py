"""What is indexed and how: the indexing settings group."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class IndexingSettings(BaseModel):
    """What is indexed and how: the corpus source, its site URL, file limits, the index cache."""

    model_config = ConfigDict(frozen=True)

    corpus: Path | None = Field(
        None,
        description="A built index (`askai index ... --out DIR`), a Markdown/MDX docs tree, a built HTML site or a "
        "JSONL file; the bundled sample site when unset.",
    )
    site_url: str | None = Field(
        None,
        description="Where the `corpus` source folder is published, for page URLs derived from file paths "
        "(`askai index --base-url` for a built index). Not `base_url`, which is the model endpoint.",
    )
    max_page_bytes: int = Field(10_000_000, ge=1024, description="Larger source files are skipped when indexing.")
    max_front_matter_bytes: int = Field(
        65_536, ge=256, le=10_000_000, description="Longer front matter is skipped unparsed (YAML aliases can explode)."
    )
    index_cache_dir: Path | None = Field(
        None,
        description="Where BM25 indexes (and passage embeddings) of a corpus loaded in memory are cached by corpus "
        "fingerprint; a user cache folder when unset.",
    )
