"""The names a how-to question asks for: identifiers spelled from the question's own words.

Docs answer "How do I run some setup before each test?" with ``beforeEach``, "How do I
run only the tests related to the files I changed?" with ``--onlyChanged`` and "How do
I accept an uploaded file?" with ``UploadFile``: the API is named after what it does,
so its parts are the reader's words. A section naming such an identifier (in its
heading or a code span) is far likelier to hold the instruction than one that merely
shares the words in prose. The offline Writer ranks sections with it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from askai_graph.text.terms import STOP_WORDS, stem

_SPAN = re.compile(r"`([^`\n]+)`")
# The name a code span gives: its first identifier ("beforeEach(fn, timeout)" names
# beforeEach, "--maxWorkers=<num>" names maxWorkers, "jest.spyOn(object, name)" jest.spyOn).
_NAME = re.compile(r"[A-Za-z_@$][\w.$@/-]*")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# Words that frame any question ("How do I...", "What is...") and parts no name is made of.
_FRAMING = frozenset("how do does did i we you what which is are can could should would the a an my our".split())
MIN_PART = 2


@lru_cache(maxsize=16_384)
def name_parts(name: str) -> tuple[str, ...]:
    """Return the stemmed word parts of an identifier: ``toHaveBeenCalledWith`` → to, have, been, call, with."""
    parts = [part.lower() for chunk in re.split(r"[^A-Za-z]+", name) for part in _PART.findall(chunk)]
    return tuple(stem(part) for part in parts if len(part) >= MIN_PART)


def span_names(text: str) -> list[str]:
    """Return the name each inline code span of ``text`` gives, in order."""
    found = []
    for span in _SPAN.findall(text):
        match = _NAME.search(span.lstrip("-"))
        if match:
            found.append(match.group(0).rstrip(".-/"))
    return found


def question_stems(question: str) -> frozenset[str]:
    """Return the stems of the question's words, stop words included ("before", "each", "only" name APIs)."""
    words = re.findall(r"[A-Za-z]+", question)
    return frozenset(stem(word.lower()) for word in words if word.lower() not in _FRAMING)


def name_match(stems: frozenset[str], name: str) -> float:
    """Return how well ``name`` is spelled from the question's words, in [0, 1].

    The share of its parts that are question words, halved for a name matched by one
    word alone (``test`` on a test runner's docs is no evidence): ``beforeEach`` for
    "setup before each test" is 1.0, ``setupFiles`` 0.25, ``--watch`` 0. A name matched
    only through some stop words ("with" in ``toHaveBeenCalledWith``) is no match.
    """
    parts = name_parts(name)
    if not parts:
        return 0.0
    matched = [part for part in parts if part in stems]
    if len(matched) < len(parts) and not any(part not in _STOP_STEMS for part in matched):
        return 0.0
    return len(matched) / len(parts) * min(1.0, len(matched) / 2)


def best_name_match(stems: frozenset[str], text: str) -> float:
    """Return the best ``name_match`` of ``text``'s code-span names (0 for none) against ``question_stems``."""
    return max((name_match(stems, name) for name in span_names(text)), default=0.0)


_STOP_STEMS = frozenset(stem(word) for word in STOP_WORDS)
