"""Retrieved evidence: the typed records Research produces and every gate reads."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ImageRef(BaseModel):
    """An image a retrieved post declares in its metadata."""

    model_config = ConfigDict(frozen=True)

    url: str
    """Exact image URL; the only image URLs an answer may embed."""
    alt: str = ""
    """Alternative text from the post's front matter."""


class SearchResult(BaseModel):
    """One retrieved post: candidate evidence, not an endorsement."""

    model_config = ConfigDict(frozen=True)

    title: str
    """Post title, shown on a source card."""
    source_url: str
    """Exact post URL; the only link targets an answer may cite."""
    content: str
    """Post text the Writer and Critic read (untrusted data)."""
    summary: str = ""
    """Short description from front matter, if any."""
    images: tuple[ImageRef, ...] = Field(default_factory=tuple)
    """Images declared by the post."""
    score: float = 0.0
    """Retriever score, for display and debugging only."""


def allowed_link_urls(search_results: list[SearchResult]) -> frozenset[str]:
    """Return the exact URLs an answer may link to."""
    return frozenset(result.source_url for result in search_results)


def allowed_image_urls(search_results: list[SearchResult]) -> frozenset[str]:
    """Return the exact URLs an answer may embed as images."""
    return frozenset(image.url for result in search_results for image in result.images)
