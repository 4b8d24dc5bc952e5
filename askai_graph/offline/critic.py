"""The lexical Critic: reviews a draft by term overlap and replies with Critique JSON.

Signals, each in [0, 1]:

- **answer_relevance**: share of the question's content terms the draft covers.
- **grounding**: each draft sentence (links stripped) must have at least
  ``min_support`` of its content terms in the evidence of the posts it cites (all
  evidence when it cites none); sentences below that are ``ungrounded_claims``.
- **drift_detected**: more than half of the draft's sentences share no term with the
  question.
- **intent_alignment**: the draft has the form asked for: a linked list of posts for a
  catalog question, prose that engages the question otherwise. A message that gives the
  assistant orders ("ignore your instructions", "you are now...", "reply only with...")
  is not a question about the site: quoted posts cannot align with it, so intent fails
  and no source card lends the site's authority to an injection attempt.
- **confidence**: the mean of relevance and grounded share, times the square of the
  share of question terms the evidence mentions at all (gaps weigh heavily). For a
  catalog question it is fixed at 0.5: from a bounded evidence slice a lexical
  reviewer cannot tell whether a list of posts is complete.
- **gaps**: question words the evidence never mentions; they steer the next Research.

The reply goes through the same strict parser as a model's, so the offline path
exercises the real contract.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache

from askai_graph.catalog import is_catalog_question
from askai_graph.evidence import EvidencePassage
from askai_graph.reviewing import ReviewRequest
from askai_graph.text import STOP_WORDS, content_terms, sentences, stem, words

_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_LIST_LINK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[^\]]+\]\([^)]+\)", re.MULTILINE)
CATALOG_CONFIDENCE = 0.5
INSTRUCTION_INTENT = 0.0
# Orders addressed to the assistant (prompt-injection phrasings), not questions.
_INSTRUCTION = re.compile(
    # an imperative: at the start of a sentence or after "and", "also", "now", "please"
    r"(?:^|[.!?:;]\s+|\b(?:and|also|now|please|then)\s+)(?:ignore|disregard|forget|override|bypass)\b[^.?!]{0,40}?"
    r"\b(?:instructions?|rules?|prompts?|articles?|evidence|guidelines|context|above|previous)\b"
    r"|\byou are now\b"
    r"|^\s*(?:system|assistant|developer)\s*:"
    r"|\b(?:print|reveal|show|output|repeat|leak)\b[^.?!]{0,30}?\bsystem prompt\b"
    r"|\b(?:reply|respond|answer)\s+(?:only\s+)?with\b"
    r"|\boutput the text\b"
    r"|</?\s*(?:question|system|instructions?)\s*>",
    re.IGNORECASE | re.MULTILINE,
)


def gives_orders(question: str) -> bool:
    """Whether ``question`` carries instructions for the assistant (a prompt-injection phrasing)."""
    return bool(_INSTRUCTION.search(question))


@lru_cache(maxsize=4096)
def _post_terms(title: str, summary: str) -> frozenset[str]:
    return frozenset(content_terms(f"{title} {summary}"))


@lru_cache(maxsize=4096)
def _passage_terms(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


def _evidence_terms(passage: EvidencePassage) -> frozenset[str]:
    """Return the content terms of a passage and its post's title and summary.

    Cached: the same posts (and mostly the same passages) come back request after
    request; tokenising and stemming them again on every review is wasted work.
    """
    return _post_terms(passage.result.title, passage.result.summary) | _passage_terms(passage.text)


class LexicalCritic:
    """Deterministic lexical reviewer (see module docstring)."""

    def __init__(self, min_support: float = 0.6, min_list_items: int = 3) -> None:
        """Configure how strict grounding and catalog form checks are."""
        self.min_support = min_support
        self.min_list_items = min_list_items

    async def areview(self, request: ReviewRequest) -> str:
        """Review inline: the evidence is already a bounded slice and scoring it is cheaper than a thread hop."""
        return self.review(request)

    def review(self, request: ReviewRequest) -> str:
        """Return the Critique JSON text for ``request``."""
        question_terms = set(content_terms(request.question))
        evidence_by_url = {p.result.source_url: _evidence_terms(p) for p in request.evidence}
        all_evidence = set().union(*evidence_by_url.values()) if evidence_by_url else set()
        claims = self._claims(request.draft)
        ungrounded = [
            text
            for text, cited, terms in claims
            if len(terms) >= 3 and self._support(terms, cited, evidence_by_url, all_evidence) < self.min_support
        ]
        draft_terms = set().union(*(terms for _, _, terms in claims)) if claims else set()
        catalog = is_catalog_question(request.question)
        if catalog:
            items = len(_LIST_LINK.findall(request.draft))
            relevance = min(1.0, items / self.min_list_items)
            intent = 1.0 if items >= self.min_list_items else 0.2
            drift = False
            confidence = CATALOG_CONFIDENCE
        else:
            relevance = len(question_terms & draft_terms) / len(question_terms) if question_terms else 0.0
            on_topic = [terms & question_terms for _, _, terms in claims if terms]
            drift = bool(on_topic) and sum(1 for hit in on_topic if not hit) > len(on_topic) / 2
            intent = 1.0 if claims and relevance > 0 and not _LIST_LINK.search(request.draft) else 0.3
            if gives_orders(request.question):
                intent = INSTRUCTION_INTENT
            coverage = len(question_terms & all_evidence) / len(question_terms) if question_terms else 0.0
            grounded = 1 - len(ungrounded) / len(claims) if claims else 0.0
            # Coverage multiplies: a question term the evidence never mentions (a gap)
            # means the posts cannot answer that part, however well the rest reads.
            confidence = (0.5 * relevance + 0.5 * grounded) * coverage**2
        review = {
            "confidence": round(confidence, 3),
            "answer_relevance": round(relevance, 3),
            "intent_alignment": intent,
            "drift_detected": drift,
            "ungrounded_claims": ungrounded,
            "gaps": self._gaps(request.question, all_evidence),
        }
        return json.dumps(review)

    @staticmethod
    def _claims(draft: str) -> list[tuple[str, set[str], set[str]]]:
        """Split the draft into (sentence text, cited URLs, content terms)."""
        claims = []
        for paragraph in re.split(r"\n\s*\n", draft):
            cited = {url for _, url in _LINK.findall(paragraph)}
            for sentence in sentences(paragraph):
                text = _LINK.sub(r"\1", sentence).strip()
                link_titles = {t for t, _ in _LINK.findall(sentence)}
                # A bare citation like "(Title)" is not a claim of its own, nor is a
                # lead-in that only announces a list ("Here are the articles I found:").
                if text.strip("() ") in link_titles or (text.endswith(":") and not _LINK.search(sentence)):
                    continue
                terms = set(content_terms(_LINK.sub("", sentence)))
                claims.append((text, cited, terms))
        return claims

    @staticmethod
    def _support(terms: set[str], cited: set[str], by_url: Mapping[str, frozenset[str]], everything: set[str]) -> float:
        known = set().union(*(by_url[url] for url in cited if url in by_url)) if cited else everything
        return len(terms & known) / len(terms)

    @staticmethod
    def _gaps(question: str, evidence_terms: set[str]) -> list[str]:
        missing = []
        for word in words(question):
            if word in STOP_WORDS or len(word) < 2 or stem(word) in evidence_terms or word in missing:
                continue
            missing.append(word)
        return missing
