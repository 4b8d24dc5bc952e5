"""Retrieved evidence: the typed records Research produces, and bounded slices of it."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from askai_graph.text.terms import content_terms, sentence_terms


class ImageRef(BaseModel):
    """An image a retrieved post declares in its metadata."""

    model_config = ConfigDict(frozen=True)

    url: str
    """Exact image URL; the only image URLs an answer may embed."""
    alt: str = ""
    """Alternative text from the post's front matter."""


class HeadingAnchor(BaseModel):
    """A heading of a page and the id its generator gives it on the real page."""

    model_config = ConfigDict(frozen=True)

    heading: str
    """The heading's Markdown text, as a section of the page names it."""
    id: str
    """Its anchor on the page (``first-steps``): a custom ``{#id}`` or the generator's slug."""


class SearchResult(BaseModel):
    """One retrieved post: candidate evidence, not an endorsement."""

    model_config = ConfigDict(frozen=True)

    title: str
    """Page title, shown on a source card."""
    source_url: str
    """Exact post URL; the only link targets an answer may cite."""
    content: str
    """Page text the Writer and Critic read (untrusted data)."""
    summary: str = ""
    """Short description from front matter, if any."""
    images: tuple[ImageRef, ...] = Field(default_factory=tuple)
    """Images declared by the post."""
    score: float = 0.0
    """Retriever score, for display and debugging only."""
    section: str = ""
    """The nav section the site lists the post under ('' when none); a catalog groups by it."""
    site_pages: int = 0
    """On a post listed from the site's catalog: how many pages the catalog holds (0 otherwise)."""
    anchors: tuple[HeadingAnchor, ...] = Field(default_factory=tuple)
    """The page's headings and their anchors, when its site reader knew them (empty otherwise)."""
    fallback_locale: str = ""
    """The page's language when it stands in for a page not translated into the reader's yet ('' otherwise)."""
    passage_order: tuple[tuple[int, int], ...] = ()
    """For a page handed as several passages: each passage's start in ``content`` and its rank
    among the page's passages in the retriever's order (0: the best); empty when the page is
    handed whole or the retriever gave no order."""


INLINE_CHARS = 100_000
"""Retrieved text an async run analyses on the event loop. Posts of a few kilobytes are
analysed in about a millisecond (less than a hop to a worker thread) and cached; a
retrieved text larger than this (a pathological page) goes to a worker thread, so it
never stalls the other streams."""


def analysed_inline(search_results: Sequence[SearchResult]) -> bool:
    """Whether the offline models may analyse ``search_results`` on the event loop."""
    return sum(len(result.content) for result in search_results) <= INLINE_CHARS


def allowed_link_urls(search_results: Sequence[SearchResult]) -> frozenset[str]:
    """Return the exact URLs an answer may link to."""
    return frozenset(result.source_url for result in search_results)


def allowed_image_urls(search_results: Sequence[SearchResult]) -> frozenset[str]:
    """Return the exact URLs an answer may embed as images."""
    return frozenset(image.url for result in search_results for image in result.images)


class EvidencePassage(BaseModel):
    """The part of one retrieved post the Critic gets to read."""

    model_config = ConfigDict(frozen=True)

    result: SearchResult
    """The post the passage comes from."""
    text: str
    """Its most relevant sentences, in document order, within the budget."""


def evidence_slice(question: str, draft: str, results: list[SearchResult], budget_chars: int) -> list[EvidencePassage]:
    """Pick, per post, the sentences most related to the question and draft, within budget.

    Posts the draft cites come first and share two thirds of the budget (the rest share
    what is left), so a long corpus never floods a model's context while the cited
    passages stay in view.
    The Writer's slice is taken with an empty draft (question relevance only).
    """
    if not results:
        return []
    # Cited by URL; so equal results are cited alike, and a flag spares comparing models field by field.
    cites = [result.source_url in draft for result in results]
    cited = [result for result, cites_it in zip(results, cites, strict=True) if cites_it]
    ordered = cited + [result for result, cites_it in zip(results, cites, strict=True) if not cites_it]
    per_post = max(120, budget_chars // len(ordered))
    # The passages a draft quotes are what it is judged against: the cited posts share
    # two thirds of the budget, so a quoted sentence deep in a long section is in view.
    cited_share = max(per_post, (2 * budget_chars // 3) // len(cited)) if cited else per_post
    rest_share = max(120, (budget_chars - cited_share * len(cited)) // max(1, len(ordered) - len(cited)))
    focus = set(content_terms(question)) | set(content_terms(draft))
    quoted = " ".join(draft.split())  # as ``sentences`` normalises the page's whitespace
    passages: list[EvidencePassage] = []
    spent = 0
    for position, result in enumerate(ordered):
        if spent >= budget_chars:
            break
        allowance = min(cited_share if position < len(cited) else rest_share, budget_chars - spent)
        analysed = sentence_terms(result.content) or ((result.content, frozenset()),)
        candidates = [sentence for sentence, _ in analysed]
        # What the draft quotes comes first: a long page's sentences sharing more words
        # with the question would otherwise crowd out the very ones it is judged on.
        ranked = sorted(
            range(len(analysed)),
            key=lambda i: (candidates[i] not in quoted, -len(focus.intersection(analysed[i][1]))),
        )
        chosen: list[int] = []
        used = 0
        for i in ranked:
            if used + len(candidates[i]) > allowance:
                continue
            chosen.append(i)
            used += len(candidates[i]) + 1
        text = " ".join(candidates[i] for i in sorted(chosen)) or candidates[0][:allowance]
        passages.append(EvidencePassage(result=result, text=text))
        spent += len(text)
    return passages
