"""Grounding per citing sentence: is a claim held by the one passage it rests on?

The lexical Critic's ``ungrounded_claims``. A sentence that cites pages is judged
against its anchored passage (``retrieval.anchoring``: the single section of its cited
pages sharing most of its terms, with the page's title and summary), not against
everything retrieved nor the union of its pages: a claim stitched from words scattered
over a page, or true of another page, is not what the card it produces will quote. A
sentence that cites nothing is judged against all the evidence, as before.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from askai_graph.evidence.results import SearchResult
from askai_graph.retrieval.anchoring import anchored_support


def claim_support(
    terms: set[str], cited: Collection[str], pages: Mapping[str, SearchResult], everything: set[str]
) -> float:
    """Return the share of a claim's ``terms`` its anchored passage holds (0 when it cites no retrieved page).

    ``cited`` are the URLs the claim's sentence or paragraph links; ``pages`` this
    request's retrieved pages by URL; ``everything`` the terms of all the evidence, for a
    sentence that cites nothing.
    """
    if not terms:
        return 1.0
    if not cited:
        return len(terms & everything) / len(terms)
    return anchored_support(terms, [pages[url] for url in cited if url in pages])
