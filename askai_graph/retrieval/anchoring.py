"""Anchor each citing sentence of a draft to the retrieved passage it rests on.

A citing sentence is a prose sentence that links a retrieved page, or sits in a
paragraph that does (a citation at a paragraph's end covers the paragraph). Its passage
is the section of its cited pages (``retrieval.sections``: the retrieved text cut at
headings) sharing most of its content terms, with the page's title and summary; its
support is the share of its terms that passage holds. The card quotes the passage's
sentence closest to the claim, verbatim and cut at a word within ``QUOTE_MAX_CHARS``,
and links to the section heading's anchor on the real page when the site reader knew
it, else to a text fragment of the quote.

The Critic judges grounding the same way (``anchored_support``), so "this sentence is
grounded" and "this card quotes its ground" are one decision. With an embedding model
(the retriever's, ``ASKAI_EMBEDDINGS``), sections that tie on shared terms are told apart
by meaning: the one closest to the sentence wins. Only ties: the passage's support, and
so the Critic's verdict, stays the lexical one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
from langchain_core.embeddings import Embeddings

from askai_graph.evidence.citations import (
    FENCE_LINE,
    QUOTE_MAX_CHARS,
    Citation,
    fragment_url,
    heading_url,
    normalise_space,
)
from askai_graph.evidence.results import SearchResult
from askai_graph.retrieval.section_vectors import shared
from askai_graph.retrieval.sections import Section, page_sections
from askai_graph.text.terms import content_terms, reading_language, sentence_terms, sentences

logger = logging.getLogger(__name__)
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_LINK_TEXT = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")



class Meaning:
    """Cosines between a sentence and sections, from an embedding model; section vectors cached."""

    def __init__(self, embeddings: Embeddings) -> None:
        """Use ``embeddings`` (the retriever's model) for every anchoring of this graph."""
        self.embeddings = embeddings
        self._vectors = shared(embeddings)  # the Writer's too, warmed by a server

    def closest(self, sentence: str, sections: Sequence[Section]) -> Section:
        """Return the section whose text is closest in meaning to ``sentence`` (the first on a tie).

        A model that fails (a provider error) leaves the tie to the first section: the
        anchoring is then lexical, never a failed run.
        """
        try:
            return sections[int(np.argmax(self._cosines(sentence, sections)))]
        except Exception:  # noqa: BLE001 - any provider error: anchor lexically
            logger.warning("the embedding model failed; anchoring by shared terms alone", exc_info=True)
            return sections[0]

    def _cosines(self, sentence: str, sections: Sequence[Section]) -> np.ndarray:
        matrix = self._vectors.matrix(sections)
        query = np.asarray(self.embeddings.embed_query(sentence), dtype=float)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        return (matrix @ query) / np.where(norms == 0, 1.0, norms)  # type: ignore[no-any-return]


def anchor_citations(draft: str, results: Sequence[SearchResult], meaning: Meaning | None = None) -> list[Citation]:
    """Return one ``Citation`` per (citing sentence, cited page) of ``draft``, in draft order.

    A cited page no sentence of which could be anchored (a bare list of links) still
    gets one citation, anchored to its opening section, so every card has its evidence.
    ``meaning`` breaks ties between sections sharing as many of a sentence's terms.
    """
    by_url = {result.source_url: result for result in results}
    pages = _pages_by_url(results)
    passages = {url: [p for page in found for p in _passages(by_url[url], page)] for url, found in pages.items()}
    citations: list[Citation] = []
    for sentence, urls, terms in citing_sentences(draft, frozenset(by_url)):
        for url in urls:
            citations.append(_anchor(sentence, terms, by_url[url], passages[url], meaning))
    anchored = {citation.url for citation in citations}
    for url in _linked(draft, frozenset(by_url)):
        if url not in anchored and passages[url]:
            citations.append(_anchor("", set(), by_url[url], passages[url]))
    return citations


def anchored_support(terms: set[str], results: Sequence[SearchResult]) -> float:
    """Return the share of ``terms`` held by the single best passage of ``results`` (0 for none)."""
    if not terms:
        return 1.0
    pages = _pages_by_url(results)
    passages = (found for result in results for page in pages[result.source_url] for found in _passages(result, page))
    return max((len(terms & held) for _, held in passages), default=0) / len(terms)


def citing_sentences(draft: str, urls: frozenset[str]) -> list[tuple[str, tuple[str, ...], set[str]]]:
    """Return each prose sentence of ``draft`` that cites retrieved pages, with those pages in order and its terms.

    A sentence cites the pages it links, else those its paragraph links. A sentence that
    is only its links' text (a bare "(Title)") or has no content term of its own is no claim.
    """
    found = []
    for paragraph in _prose_paragraphs(draft):
        around = _linked(paragraph, urls)
        for sentence in sentences(paragraph):
            cited = _linked(sentence, urls) or around
            terms = claim_terms(sentence) if cited else set()
            if terms:
                found.append((sentence, cited, terms))
    return found


def claim_terms(sentence: str) -> set[str]:
    """Return the content terms of a sentence's own words (links' titles and URLs left out)."""
    return set(content_terms(_URL.sub(" ", _LINK_TEXT.sub(" ", sentence))))


def _anchor(
    sentence: str,
    terms: set[str],
    result: SearchResult,
    passages: list[tuple[Section, frozenset[str]]],
    meaning: Meaning | None = None,
) -> Citation:
    best, held = max(passages, key=lambda passage: len(terms & passage[1]))
    tied = [section for section, found in passages if len(terms & found) == len(terms & held)]
    if meaning is not None and sentence and len(tied) > 1:
        best = meaning.closest(sentence, tied)
    quote = best_quote(best, terms)
    anchor = next((a.id for a in result.anchors if a.heading == best.heading), None) if best.heading else None
    return Citation(
        url=result.source_url,
        sentence=sentence,
        section=best.heading,
        passage=best.text,
        quote=quote,
        anchor_url=heading_url(result.source_url, anchor) if anchor else fragment_url(result.source_url, quote),
        support=round(len(terms & held) / len(terms), 3) if terms else 0.0,
    )


def best_quote(section: Section, terms: set[str]) -> str:
    """Return the section's sentence sharing most of ``terms`` (first on a tie), cut at a word.

    A section with no prose quotes its first line of code, else its heading: every quote
    is verbatim retrieved text.
    """
    candidates = sentence_terms(section.text)  # cached per section text, as the Critic's are
    if candidates:
        quote = max(candidates, key=lambda candidate: len(terms & candidate[1]))[0]
    else:
        lines = [line.strip() for line in section.text.splitlines() if line.strip() and not FENCE_LINE.match(line)]
        quote = next((line for line in lines if not line.startswith("#")), section.heading or (lines or [""])[0])
    return cut(normalise_space(quote))


def cut(text: str, limit: int = QUOTE_MAX_CHARS) -> str:
    """Return ``text`` if it fits in ``limit``, else its longest prefix ending at a word within it."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1].rsplit(" ", 1)[0]
    return head if head and len(head) <= limit else text[:limit]


def _linked(text: str, urls: frozenset[str]) -> tuple[str, ...]:
    """Return the retrieved URLs ``text`` names, distinct, in order."""
    return tuple(dict.fromkeys(url for url in (m.rstrip(".,;:!?") for m in _URL.findall(text)) if url in urls))


def _pages_by_url(results: Sequence[SearchResult]) -> dict[str, list[SearchResult]]:
    """Return the retrieved pages by URL, in retrieval order (a URL retrieved twice has both)."""
    grouped: dict[str, list[SearchResult]] = {result.source_url: [] for result in results}
    for result in results:
        grouped[result.source_url].append(result)
    return grouped


def _passages(owner: SearchResult, page: SearchResult) -> tuple[tuple[Section, frozenset[str]], ...]:
    """Return ``page``'s sections, each with its passage's terms: its own and ``owner``'s title and summary.

    The owner is the result a citation's URL names: the page itself, unless the URL was retrieved twice.
    """
    return _cached_passages(page.title, page.content, owner.title, owner.summary, reading_language())


# The same pages come back question after question, and the Critic asks for each
# claim's passages again: cutting a page into sections and collecting each one's terms
# is done once per page, not once per claim.
@lru_cache(maxsize=4096)
def _cached_passages(
    title: str, content: str, owner_title: str, owner_summary: str, language: str
) -> tuple[tuple[Section, frozenset[str]], ...]:
    # ``language`` is the one being read (``terms.reading``): the page's sections are read in it too.
    page_terms = frozenset(content_terms(f"{owner_title} {owner_summary}", language or "en"))
    page = SearchResult(title=title, source_url="", content=content)
    return tuple((section, section.term_set | page_terms) for section in page_sections([page]))


def _prose_paragraphs(draft: str) -> Iterable[str]:
    """Yield the draft's paragraphs outside fenced code (code is no claim)."""
    paragraph: list[str] = []
    fence: str | None = None
    for line in draft.splitlines():
        opener = FENCE_LINE.match(line)
        if fence is None and opener:
            fence = opener.group(1)
        elif fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = None
            continue
        elif line.strip():
            paragraph.append(line)
            continue
        if paragraph:
            yield "\n".join(paragraph)
        paragraph = []
    if paragraph:
        yield "\n".join(paragraph)
