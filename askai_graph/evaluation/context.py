"""Context recall: where the section that answers a question ranks among a model Writer's sections.

A model Writer reads the retrieved pages' sections in the order ``section_slice`` fills its
context (``retrieval.sections.context_sections``: BM25 over the sections, no API-name
weight, weighed by the retriever's passage order). The **answering section** is the first
one on an expected page that holds every ``must_mention`` term (heading or text,
case-insensitive). ``askai eval`` reports the share of labelled answer questions whose
answering section is among the first ``CONTEXT_K``;
``bench/section_rank.py`` buckets the same rank (and the extractive Writer's).
"""

from __future__ import annotations

from collections.abc import Sequence

from askai_graph.evidence.results import SearchResult
from askai_graph.retrieval.sections import Section, context_sections

CONTEXT_K = 5
"""The first sections a model Writer receives that the context-recall figure counts."""


def holds_answer(
    section: Section, results: Sequence[SearchResult], expected: set[str], mentions: Sequence[str]
) -> bool:
    """Whether ``section`` is on an expected page (``expected``: URLs without a trailing slash) and holds every term."""
    text = f"{section.heading}\n{section.text}".lower()
    return results[section.post].source_url.rstrip("/") in expected and all(m.lower() in text for m in mentions)


def answering_rank(
    ranked: Sequence[tuple[Section, float]],
    results: Sequence[SearchResult],
    expected_urls: Sequence[str],
    must_mention: Sequence[str],
) -> int | None:
    """Return the rank (from 0) of the first answering section in ``ranked``, or ``None`` when none is one."""
    expected = {url.rstrip("/") for url in expected_urls}
    return next((i for i, (s, _) in enumerate(ranked) if holds_answer(s, results, expected, must_mention)), None)


def context_ranking(question: str, results: list[SearchResult]) -> list[tuple[Section, float]]:
    """Return the sections of ``results`` in the order a model Writer's context is filled."""
    return context_sections(question, results)


def context_rank(
    question: str, results: list[SearchResult], expected_urls: Sequence[str], must_mention: Sequence[str]
) -> int | None:
    """Return where the answering section ranks in a model Writer's context (``None``: no section holds it)."""
    return answering_rank(context_ranking(question, results), results, expected_urls, must_mention)
