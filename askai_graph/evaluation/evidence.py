"""What the eval measures of the cards' evidence (pure functions of one run's citations).

- **citation support**: a citing sentence is supported when its anchored passage holds
  at least ``SUPPORTED`` of its content terms and every number it states (``10``,
  ``1.2``): the card quotes a passage that says what the sentence says.
- **anchor accuracy**: on a labelled question whose shown answer contains every
  ``must_mention`` term, whether a card's anchored passage holds them all: the card
  points at the section where the answer's key fact is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from askai_graph.evidence.citations import Citation, best_citations

SUPPORTED = 0.6
"""Share of a sentence's content terms its passage must hold (the offline Critic's ``min_support``)."""
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")


def numbers(text: str) -> set[str]:
    """Return the numbers ``text`` states, as written."""
    return set(_NUMBER.findall(text))


def is_supported(citation: Citation) -> bool:
    """Whether the citation's passage holds its sentence's key terms and numbers."""
    return citation.support >= SUPPORTED and numbers(citation.sentence) <= numbers(citation.passage)


def sentence_support(citations: Sequence[Citation]) -> tuple[bool, ...]:
    """Return, per citing sentence (a card anchored without one is left out), whether it is supported."""
    return tuple(is_supported(citation) for citation in citations if citation.sentence)


def anchor_holds(citations: Sequence[Citation], cards: Sequence[str], must_mention: Sequence[str]) -> bool:
    """Whether a card's anchored passage (its best-supported citation, as the card shows) holds every term."""
    best = best_citations(citations)
    passages = [best[url].passage.lower() for url in cards if url in best]
    return any(all(term.lower() in passage for term in must_mention) for passage in passages)
