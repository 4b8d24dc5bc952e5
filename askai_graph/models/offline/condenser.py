"""The lexical condenser: a deterministic follow-up rewrite that needs no model.

A follow-up *leans on earlier turns* when it has

- a **reference** to something said before: it, its, they, them, their, this, these,
  those, former, latter, "that" opening or closing the question or after a verb or
  preposition ("is that better?"), or "the second one";
- an **elliptical opening**: "and ...", "what about ...", "how about ...", "also ...",
  "or ...", "but ...", "same for ...";
- **no topical term**: every content word is generic follow-up vocabulary ("any
  examples?", "why?", "more details", "how do I tune the parameters?").

Such a follow-up is rewritten by appending the previous turn's key terms (the topical
words of the question it researched, at most ``MAX_CARRIED_TERMS``, in their order, the
ones the follow-up already has left out): "How do I tune its parameters?" after "What is
BM25?" becomes "How do I tune its parameters? (BM25)". The words are kept as written,
so a chain of follow-ups keeps its topic. A question with topical terms of its own and
no reference or ellipsis ("What is BM25?") is never rewritten.

On a thread with no earlier turn, a question that has a reference or an elliptical
opening and no topical term cannot be answered honestly: ``needs_context`` says so.
"""

from __future__ import annotations

import re

from askai_graph.models.condensing import CondenseRequest
from askai_graph.text.terms import STOP_WORDS, stem, words

MAX_CARRIED_TERMS = 8

_REFERENCES = frozenset("it its it's itself they them their theirs these those this former latter".split())
# "that" is also a conjunction and a relative pronoun ("posts that explain X"): it refers
# back only opening or closing the question, or right after a verb ("is that better?").
_THAT_REFERENCE = re.compile(
    r"^that\b|\bthat\W*$|\b(?:is|was|are|does|did|do|can|will|would|should|could|about|with|for|of) that\b"
)
_ORDINAL_ONE = re.compile(r"\b(?:first|second|third|fourth|fifth|last|other|next|previous|same)\s+ones?\b")
# "one" standing for the thing discussed ("Which one compares floats?", "How do I write one
# for a single field?"), not the number ("run just one test").
_ONE_REFERENCE = re.compile(
    r"\bwhich ones?\b|\bones? (?:that|which|for|with)\b|\b(?:make|write|create|define|build) one\b"
)
_ELLIPTICAL = re.compile(r"^(?:and|also|or|but|plus|so|then|what about|how about|same (?:for|with)|as for)\b")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+#-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
# Words a follow-up uses about whatever was discussed; they name no topic of their own.
_GENERIC = frozenset(
    stem(word)
    for word in """
    example examples detail details more else other others alternative alternatives pro pros con cons
    advantage advantages disadvantage disadvantages benefit benefits drawback drawbacks difference
    differences differ compare comparison versus vs work works working mean means meaning tune tuning
    configure configuration config parameter parameters setting settings step steps code snippet
    elaborate expand instead better worse best first second third last next previous option options
    case cases again why good bad part parts start begin default defaults limit limits idea ideas
    problem problems issue issues reason reasons instance sure okay ok thanks right wrong exactly true
    false correct
    """.split()
)


def _normalized(question: str) -> str:
    return " ".join(words(question))


def has_reference(question: str) -> bool:
    """Whether the question points back at something said before."""
    text = _normalized(question)
    return bool(
        _REFERENCES.intersection(text.split())
        or _THAT_REFERENCE.search(text)
        or _ORDINAL_ONE.search(text)
        or _ONE_REFERENCE.search(text)
    )


def is_elliptical(question: str) -> bool:
    """Whether the question opens as a continuation ("and ...", "what about ...")."""
    return bool(_ELLIPTICAL.match(_normalized(question)))


def topical_terms(text: str) -> list[str]:
    """Return the words of ``text`` that name a topic, as written, first occurrence of each stem."""
    seen: set[str] = set()
    found: list[str] = []
    for token in _TOKEN.findall(text):
        word = re.sub(r"['’]s$", "", token)
        lower = word.lower()
        if lower in STOP_WORDS or len(lower) < 2 or lower in _REFERENCES:
            continue
        key = stem(lower)
        if key in _GENERIC or key in seen:
            continue
        seen.add(key)
        found.append(word)
    return found


def leans_on_history(question: str) -> bool:
    """Whether a follow-up needs the earlier turns to be understood (see module docstring)."""
    return has_reference(question) or is_elliptical(question) or not topical_terms(question)


def needs_context(question: str) -> bool:
    """Whether a first question refers to earlier turns that do not exist."""
    return (has_reference(question) or is_elliptical(question)) and not topical_terms(question)


def rewrite(question: str, previous_question: str, previous_answer: str = "") -> str:
    """Return ``question`` with the previous turn's topic appended, if it leans on it.

    The topic is the previous question's key terms. With the answer that turn accepted
    (``previous_answer``), it is the terms that answer uses too, the site's words for
    the topic (a reader's "whole" or "exclude" there is no topic), and first the name of
    the entry the answer led with (```--watch```: ...), the thing a follow-up's "it" means.
    """
    if not leans_on_history(question):
        return question
    present = {stem(word.lower()) for word in topical_terms(question)}
    carried = [term for term in topical_terms(previous_question) if stem(term.lower()) not in present]
    if previous_answer:
        said = {stem(word) for word in words(previous_answer)}
        on_topic = [term for term in carried if {stem(word) for word in words(term)} <= said]
        carried = on_topic or carried
        entry = _LEAD_ENTRY.match(previous_answer)
        if entry and stem(entry.group(1).lower()) not in present | {stem(t.lower()) for t in carried}:
            carried = [entry.group(1), *carried]
    if not carried:
        return question
    return f"{question.strip()} ({' '.join(carried[:MAX_CARRIED_TERMS])})"


# An answer leading with a reference entry opens with its name: "`--watch`: ...", "`beforeEach(fn)`: ...".
_LEAD_ENTRY = re.compile(r"^`-{0,2}([A-Za-z_$][\w.$-]*)[^`\n]*`[^:\n]{0,60}:")


class LexicalCondenser:
    """Deterministic follow-up rewrite from the previous turn (see module docstring)."""

    def condense(self, request: CondenseRequest) -> str:
        """Return the standalone form of ``request.question``."""
        if not request.history:
            return request.question
        previous = request.history[-1]
        answered = previous.answer if previous.outcome in ("accepted", "accepted_early") else ""
        return rewrite(request.question, previous.standalone_question, answered)

    async def acondense(self, request: CondenseRequest) -> str:
        """Rewrite inline: it takes microseconds."""
        return self.condense(request)


__all__ = ["LexicalCondenser", "has_reference", "is_elliptical", "leans_on_history", "needs_context", "rewrite"]
