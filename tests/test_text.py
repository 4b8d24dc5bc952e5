"""The word tokenizer and content terms: the fast paths give what the plain definitions give."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from askai_graph.text.terms import SHORT_TEXT_CHARS, STOP_WORDS, content_terms, stem, words

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def reference_words(text: str) -> list[str]:
    """The definition: every token lower-cased, then the parts of a camelCase one."""
    found = []
    for token in _WORD.findall(text):
        found.append(token.lower())
        if _CAMEL.search(token):
            found.extend(part.lower() for part in _CAMEL_PART.findall(token))
    return found


# Letters of both cases, digits, apostrophes and separators: every way tokens can touch.
TEXT = st.text(alphabet=st.sampled_from("aAbBzZ09'’ -_.İK\n"), max_size=40)


def test_camel_case_identifiers_yield_their_parts() -> None:
    assert words("run --onlyChanged on HTTPException") == [
        "run", "onlychanged", "only", "changed", "on", "httpexception", "http", "exception",
    ]  # fmt: skip


@given(TEXT)
def test_words_equals_the_per_token_definition(text: str) -> None:
    assert words(text) == reference_words(text)


@given(TEXT)
def test_content_terms_of_a_short_text_equal_its_stemmed_words(text: str) -> None:
    assert content_terms(text) == [stem(w) for w in reference_words(text) if w not in STOP_WORDS and len(w) > 1]


def test_content_terms_of_a_long_text_equal_those_of_its_parts() -> None:
    part = "Caching embeddings speeds up semantic search. "
    long = part * (SHORT_TEXT_CHARS // len(part) + 1)
    assert len(long) > SHORT_TEXT_CHARS
    assert content_terms(long) == content_terms(part) * (SHORT_TEXT_CHARS // len(part) + 1)


def test_content_terms_returns_a_list_the_caller_may_change() -> None:
    terms = content_terms("semantic caching")
    terms.append("changed")
    assert content_terms("semantic caching") == ["semant", "cach"]
