"""The extractive Writer: answers with the retrieved sentences that best match the question.

For an ordinary question it scores every sentence of every retrieved post by the
IDF-weighted question terms it contains, picks sentences greedily so that each adds
question terms not yet covered (then by score), and groups them by post, each group
followed by a citation of that post's exact ``source_url``. For a catalog question it
lists the retrieved posts with their links and summaries. It never writes a URL that
was not retrieved, and says so plainly when nothing matches.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from functools import lru_cache

from askai_graph import plaintext
from askai_graph.catalog import catalog_answer
from askai_graph.evidence import SearchResult, analysed_inline
from askai_graph.text import content_terms, sentence_terms
from askai_graph.writing import DraftRequest

# Quote only whole sentences (a capital first, a full stop last), never list fragments,
# and stop adding sentences once they match far worse than the best one.
_QUOTABLE = re.compile(r"^[A-Z0-9\"'(`*].*[.!?][\"')`*]?$")
MIN_WORDS = 6
MIN_RELATIVE_SCORE = 0.35
RANK_DECAY = 0.15
NOTHING_FOUND = "The site's articles don't seem to cover this question."
# Few content words on purpose: the intro must not claim a word ("articles") the site may never use.
CATALOG_INTRO = "Here is what the site has:"


def markdown_link(result: SearchResult) -> str:
    """Return ``[title](url)``; the title is plain text, escaped so it renders as written."""
    return plaintext.markdown_link(result.title, result.source_url)


@lru_cache(maxsize=4096)
def quotable_sentences(content: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Return the sentences of a post that may be quoted, with their terms (cached per post text)."""
    return tuple(
        (sentence, terms)
        for sentence, terms in sentence_terms(content)
        if _QUOTABLE.match(sentence) and len(sentence.split()) >= MIN_WORDS
    )


class ExtractiveWriter:
    """Deterministic extractive answer writer (see module docstring)."""

    def __init__(self, max_sentences: int = 5, max_per_post: int = 2) -> None:
        """Configure how much of the evidence an answer quotes."""
        self.max_sentences = max_sentences
        self.max_per_post = max_per_post

    def write(self, request: DraftRequest) -> str:
        """Return a Markdown draft for ``request``."""
        if request.catalog:
            return self._catalog(request.search_results)
        return self._answer(request.question, request.search_results)

    async def awrite(self, request: DraftRequest) -> str:
        """Write inline when the retrieved text is small (see ``evidence.INLINE_CHARS``), else in a worker thread."""
        if analysed_inline(request.search_results):
            return self.write(request)
        return await asyncio.to_thread(self.write, request)

    @staticmethod
    def _catalog(results: list[SearchResult]) -> str:
        # The site's table of contents: by nav section, "and N more" (askai_graph.catalog).
        return catalog_answer(results) if results else NOTHING_FOUND

    def _answer(self, question: str, results: list[SearchResult]) -> str:
        wanted = set(content_terms(question))
        # With three or more question terms, a sentence sharing only one of them is
        # usually about something else ("Decide deliberately..." for "decide a hit").
        min_shared = 2 if len(wanted) >= 3 else 1
        quotable = [
            (post, sentence, terms)
            for post, result in enumerate(results)
            for sentence, terms in quotable_sentences(result.content)
            if terms & wanted
        ]
        # Except for the question's most specific term: the one strictly fewest sentences
        # mention ("heartbeats" in "Why do Server-Sent Events need heartbeats?"). A
        # sentence with only that term is on the point; one with only a common term is not.
        mentions = Counter(term for _, _, terms in quotable for term in terms & wanted)
        ranked = sorted(mentions.items(), key=lambda item: item[1])
        specific = ranked[0][0] if len(ranked) > 1 and ranked[0][1] < ranked[1][1] else None
        candidates = [
            (post, sentence, terms)
            for post, sentence, terms in quotable
            if len(terms & wanted) >= min_shared or (specific is not None and specific in terms)
        ]
        document_frequency = Counter(term for _, _, terms in candidates for term in terms & wanted)
        idf = {t: math.log(1 + len(candidates) / document_frequency[t]) for t in document_frequency}

        def score(i: int, covered: set[str]) -> tuple[float, float]:
            post, _, terms = candidates[i]
            fresh = sum(idf.get(t, 0.0) for t in (terms & wanted) - covered)
            total = sum(idf.get(t, 0.0) for t in terms & wanted) / math.sqrt(len(terms) or 1)
            # Prefer the retriever's best posts a little when sentences match equally.
            return fresh, total / (1 + RANK_DECAY * post)

        chosen: list[int] = []
        covered: set[str] = set()
        per_post: Counter[int] = Counter()
        top_score = 0.0

        def allowed(i: int) -> bool:
            post = candidates[i][0]
            if i in chosen or per_post[post] >= self.max_per_post:
                return False
            # Another post is quoted only for question terms the answer does not cover
            # yet: a sentence elsewhere that repeats covered terms is usually a passing
            # mention (a cross-reference, an aside), and citing it dilutes the answer.
            return not chosen or post in per_post or score(i, covered)[0] > 0

        while len(chosen) < self.max_sentences:
            open_slots = (i for i in range(len(candidates)) if allowed(i))
            best = max(
                open_slots,
                key=lambda i: score(i, covered),
                default=None,
            )
            if best is None or score(best, covered)[1] <= 0:
                break
            if chosen and score(best, set())[1] < MIN_RELATIVE_SCORE * top_score:
                break
            top_score = max(top_score, score(best, set())[1])
            chosen.append(best)
            covered |= candidates[best][2] & wanted
            per_post[candidates[best][0]] += 1
        if not chosen:
            return NOTHING_FOUND
        # Posts appear in retrieval rank order; within a post, sentences keep document
        # order (candidates are in document order) so each paragraph reads naturally.
        posts = sorted({candidates[i][0] for i in chosen})
        paragraphs = []
        for post in posts:
            picked = [candidates[i][1] for i in sorted(chosen) if candidates[i][0] == post]
            text = " ".join(plain_text(s) for s in with_antecedents(picked, results[post].content))
            paragraphs.append(f"{text} ({markdown_link(results[post])})")
        return "\n\n".join(paragraphs)


# A sentence opening with one of these leans on the one before it.
_DANGLING = frozenset("it this these that those they such instead however but so and also then otherwise".split())


def with_antecedents(picked: list[str], content: str) -> list[str]:
    """Return ``picked`` with the preceding sentence added before any that dangles."""
    document = [sentence for sentence, _ in sentence_terms(content)]
    kept: list[str] = []
    for sentence in picked:
        first = sentence.split(maxsplit=1)[0].strip(",;:").lower() if sentence.split() else ""
        position = document.index(sentence) if sentence in document else -1
        if first in _DANGLING and position > 0 and document[position - 1] not in kept:
            kept.append(document[position - 1])
        if sentence not in kept:
            kept.append(sentence)
    return kept


_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_ANGLE = re.compile(r"<[^>\s]*>|<[a-zA-Z/][^>]*>")
_BARE_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


def plain_text(sentence: str) -> str:
    """Drop link targets, images, raw HTML and bare URLs from a quoted sentence.

    Retrieved text is untrusted: quoting its URLs would put unreviewed links in a draft.
    """
    sentence = _IMAGE.sub("", sentence)
    sentence = _LINK.sub(r"\1", sentence)
    sentence = _ANGLE.sub("", sentence)
    return " ".join(_BARE_URL.sub("", sentence).split())
