"""The evidence rule: every anchored citation quotes and links what was retrieved.

A card's quote and link are shown as the page's own words and place, so they are held to
the rule links are: nothing reaches the reader that this request did not retrieve. Each
citation's ``quote`` must be a verbatim part of the retrieved text of its URL (after
whitespace normalisation), at most ``QUOTE_MAX_CHARS``; its ``anchor_url`` must be that
retrieved URL plus the anchor of a heading the retrieved text holds, or a text fragment
whose words are the quote's. Anything else is ``unanchored_citation``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from askai_graph.evidence.citations import (
    QUOTE_MAX_CHARS,
    Citation,
    fragment_texts,
    heading_url,
    headings_in,
    normalise_space,
    plain_quote,
)
from askai_graph.evidence.results import SearchResult
from askai_graph.validation.codes import Code
from askai_graph.validation.report import ValidationIssue


def check_citations(citations: Sequence[Citation], search_results: Sequence[SearchResult]) -> list[ValidationIssue]:
    """Return a failure for each citation whose quote or anchor is not this request's retrieved text."""
    by_url: dict[str, SearchResult] = {}
    for result in search_results:
        by_url.setdefault(result.source_url, result)
    issues = []
    for citation in citations:
        problem = _problem(citation, by_url.get(citation.url))
        if problem:
            issues.append(ValidationIssue(code=Code.UNANCHORED_CITATION.value, message=problem, url=citation.url))
    return issues


def _problem(citation: Citation, result: SearchResult | None) -> str | None:
    if result is None:
        return f"Citation of a page not retrieved: {citation.url}"
    quote = normalise_space(citation.quote)
    if not quote or len(quote) > QUOTE_MAX_CHARS:
        return f"Quote of {citation.url} is empty or longer than {QUOTE_MAX_CHARS} characters"
    if quote not in _normalised(result.content):
        return f"Quote is not verbatim in the retrieved text of {citation.url}"
    if not _anchored(citation, result):
        return f"Anchor {citation.anchor_url} is neither a retrieved heading of {citation.url} nor its quote"
    return None


@lru_cache(maxsize=1024)
def _normalised(content: str) -> str:
    """The retrieved text with whitespace normalised (cached: a page is cited by several sentences)."""
    return normalise_space(content)


def _anchored(citation: Citation, result: SearchResult) -> bool:
    """Whether the anchor is a retrieved heading's, or a text fragment of the quote's words."""
    parts = fragment_texts(citation.anchor_url, result.source_url)
    if parts is not None:
        shown = plain_quote(citation.quote)
        return all(part and part in shown for part in parts)
    headings = headings_in(result.content)
    return any(
        citation.anchor_url == heading_url(result.source_url, anchor.id)
        for anchor in result.anchors
        if anchor.heading in headings
    )
