"""Lexical text analysis shared by retrieval, the offline models and the cache.

Deterministic and dependency-light: a word tokenizer (camelCase identifiers also yield
their parts), lower-casing, an English stop-word list and the Snowball stemmer
(PyStemmer), so "caching", "cached" and "caches" meet.

Other languages (``content_terms(text, locale)``): words of any script, the Snowball
stemmer of that language (PyStemmer ships Spanish, French, German, Portuguese and two
dozen more) and bm25s' stop-word list for it; a language without either keeps its words
as they are. Chinese, Japanese and Korean text has no spaces between words: a run of
their characters is read as its overlapping character pairs (bigrams), in any language,
so a Japanese question meets a Japanese page without a dictionary.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
# An identifier written in camelCase or PascalCase ("onlyChanged", "HTTPException")
# names words a reader types apart: its parts are terms too.
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_ASCII_OR_CJK = re.compile(f"[A-Za-z0-9]+(?:['’][A-Za-z]+)?|[{_CJK}]+")
# Words of any script; a CJK run is a token of its own even where it touches Latin letters ("APIを").
_ANY_WORD = re.compile(f"[{_CJK}]+|(?:(?![{_CJK}])[^\\W_])+(?:['’](?:(?![{_CJK}])[^\\W_])+)?")
# A sentence ends at ". " before a capital, or at a Chinese or Japanese full stop,
# exclamation or question mark (no space follows them).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(`])|(?<=[。！？])\s*(?=\S)")

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't
    do does doesn't doing don't down during each either else ever every few for from
    further get gets getting give given go goes had hadn't has hasn't have haven't having he
    her here hers herself him himself his how however i i'd i'll i'm i've if in into is
    isn't it it's its itself just let's like make makes many may me might more most much
    must mustn't my myself need needs no nor not now of off often on once one only or other
    ought our ours ourselves out over own per please same shall shan't she should shouldn't
    so some such than that that's the their theirs them themselves then there there's these
    they they'd they'll they're they've this those through to too under until up upon us
    use used uses using very via was wasn't we we'd we'll we're we've were weren't what
    what's when when's where where's whether which while who who's whom why why's will with
    within without won't would wouldn't yes yet you you'd you'll you're you've your yours
    yourself yourselves tell explain describe show know want way ways thing things really
    got gotten going gone went made making gave giving told telling explained explaining
    described describing showed shown showing knew known knowing wanted wanting needed needing
    """.split()
)

# PyStemmer's own cache (10,000 words by default) would keep a second copy of what
# ``stem``'s cache keeps: off.
_stemmer = Stemmer.Stemmer("english", 0)


def words(text: str) -> list[str]:
    """Return the lower-cased word tokens of ``text``, stop words included.

    A camelCase identifier yields itself and then its parts ("onlyChanged": "onlychanged",
    "only", "changed"), so "tests related to files I changed" meets ``--onlyChanged``.
    """
    return _tokens(text, _ASCII_OR_CJK if _CJK_RUN.search(text) else _WORD)


def _tokens(text: str, pattern: re.Pattern[str]) -> list[str]:
    if pattern is _WORD and not _CAMEL.search(text):
        # Most text has no camelCase. Two adjacent letters always fall in one token, so
        # no match in the whole text means no token has parts: one scan, not one a token.
        return [token.lower() for token in _WORD.findall(text)]
    found = []
    for token in pattern.findall(text):
        if _CJK_RUN.fullmatch(token):
            found.extend([token] if len(token) == 1 else [token[i : i + 2] for i in range(len(token) - 1)])
            continue
        found.append(token.lower())
        if _CAMEL.search(token):
            found.extend(part.lower() for part in _CAMEL_PART.findall(token))
    return found


def any_words(text: str) -> list[str]:
    """Return the lower-cased word tokens of ``text`` in any script (CJK runs as character bigrams)."""
    return _tokens(text, _ANY_WORD)


# A language's Snowball stemmer (PyStemmer) and bm25s' stop words, by primary language subtag.
_STEMMERS = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek", "es": "spanish",
    "eu": "basque", "fa": "persian", "fi": "finnish", "fr": "french", "hi": "hindi", "hu": "hungarian",
    "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian", "nb": "norwegian", "ne": "nepali",
    "nl": "dutch", "no": "norwegian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "sv": "swedish", "ta": "tamil", "tr": "turkish",
}
_STOP_LISTS = {
    "da": "DANISH", "de": "GERMAN", "es": "SPANISH", "fr": "FRENCH", "it": "ITALIAN", "ko": "KOREAN", "nb": "NORWEGIAN",
    "nl": "DUTCH", "no": "NORWEGIAN", "pt": "PORTUGUESE", "ru": "RUSSIAN", "sv": "SWEDISH", "tr": "TURKISH",
    "zh": "CHINESE",
}


def language_of(locale: str | None) -> str:
    """Return the primary subtag of ``locale`` ('' for English or none: the default analysis)."""
    primary = (locale or "").strip().lower().replace("_", "-").split("-")[0]
    return "" if primary == "en" else primary


class Analyzer:
    """How one language's text becomes terms: its words, stop words and stems."""

    def __init__(self, language: str) -> None:
        """Analyse ``language`` (a primary subtag other than English)."""
        self.language = language
        name = _STEMMERS.get(language)
        self._stemmer = Stemmer.Stemmer(name) if name else None
        listed = _STOP_LISTS.get(language)
        if listed:
            from bm25s import stopwords  # lazily: only a site in that language pays for the import

            self.stop_words = frozenset(word.lower() for word in getattr(stopwords, f"STOPWORDS_{listed}"))
        else:
            self.stop_words = frozenset()

    def stem(self, word: str) -> str:
        """Return the stem of one lower-case word (itself without a stemmer)."""
        return str(self._stemmer.stemWord(word)) if self._stemmer is not None else word

    def terms(self, text: str) -> list[str]:
        """Return the stemmed content terms of ``text``, in order."""
        return [self.stem(w) for w in any_words(text) if w not in self.stop_words and len(w) > 1]


@lru_cache(maxsize=64)
def analyzer(language: str) -> Analyzer:
    """Return the analyzer of ``language`` (a primary subtag, ``language_of``)."""
    return Analyzer(language)


STEMS_CACHED = 4_096
"""Words whose stems are kept (least recently used dropped).

Page words recur; a reader's one-off words (names, ids, typos) do not, and at 65,536 they
grew a server's memory for hours (a 600 s soak still filled 8,192). 4,096 keeps the
whole 98.9% hit rate serving the sample site (2,048: 98.6%; ``bench/caches.py
--curves``), and 98% of the lookups stemming all of Pydantic's docs (4,181 distinct
content words); a miss costs 0.8 µs against 0.3 µs for a hit.
"""


@lru_cache(maxsize=STEMS_CACHED)
def stem(word: str) -> str:
    """Return the Snowball stem of one lower-case word."""
    return str(_stemmer.stemWord(word))


SHORT_TEXT_CHARS = 2_000
"""Texts up to this length (questions, sentences, titles) have their terms cached."""


_READING: ContextVar[str] = ContextVar("askai_reading_language", default="")


@contextmanager
def reading(locale: str | None) -> Iterator[None]:
    """Analyse text as ``locale``'s language within the block, where no locale is passed.

    The offline Writer and Critic read one run's pages in the reader's language; the
    helpers they share (sections, evidence, answer forms) then need no locale argument
    each. A context variable: a worker thread (``asyncio.to_thread``) inherits it.
    """
    token = _READING.set(language_of(locale))
    try:
        yield
    finally:
        _READING.reset(token)


def reading_language() -> str:
    """Return the language text is being read in ('' for English: ``reading``)."""
    return _READING.get()


def content_terms(text: str, locale: str | None = None) -> list[str]:
    """Return stemmed content terms (stop words and 1-letter tokens removed), in order.

    ``locale`` other than English analyses the text as that language (``Analyzer``);
    without one, the language being read (``reading``), English by default.
    """
    language = language_of(locale) if locale is not None else _READING.get()
    if language:
        if len(text) <= SHORT_TEXT_CHARS:
            return list(_short_language_terms(text, language))
        return analyzer(language).terms(text)
    if len(text) <= SHORT_TEXT_CHARS:
        return list(_short_text_terms(text))
    return _content_terms(text)


SHORT_TEXTS_CACHED = 2_048
"""Short texts whose terms are kept (least recently used dropped).

A draft's sentences are read by anchoring, Validation and the Critic, and an extractive
draft quotes the same page sentences question after question: each is tokenized and
stemmed once. Questions and drafts pass through too, and those of one request are never
seen again: at 16,384 entries (about 600 bytes each) they grew a server's memory for
hours. 2,048 kept the whole hit rate on the sample site (94.4%; 1,024 kept 93.7%:
``bench/caches.py --curves``), and a miss costs a sentence's tokenizing, some µs.
"""


@lru_cache(maxsize=SHORT_TEXTS_CACHED)
def _short_language_terms(text: str, language: str) -> tuple[str, ...]:
    return tuple(analyzer(language).terms(text))


@lru_cache(maxsize=SHORT_TEXTS_CACHED)
def _short_text_terms(text: str) -> tuple[str, ...]:
    return tuple(_content_terms(text))


def _content_terms(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOP_WORDS and len(w) > 1]


def sentences(text: str) -> list[str]:
    """Split prose into sentences; headings, list markers and code fences are dropped."""
    # A draft's paragraphs are split by anchoring and three of the Critic's rules, and an
    # extractive draft's are page paragraphs that recur: short ones are split once.
    return list(_short_sentences(text)) if len(text) <= SHORT_TEXT_CHARS else _sentences(text)


@lru_cache(maxsize=SHORT_TEXTS_CACHED)
def _short_sentences(text: str) -> tuple[str, ...]:
    return tuple(_sentences(text))


def _sentences(text: str) -> list[str]:
    prose: list[str] = []
    in_fence = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or not stripped or stripped.startswith(("#", "|", ">")):
            prose.append("\n")
            continue
        item = re.sub(r"^([-*+]|\d+[.)])\s+", "", stripped)
        # A list item is a sentence of its own even without a final period.
        prose.extend(["\n", item, "\n"] if item != stripped else [stripped])
    paragraphs = " ".join(prose).split("\n")
    found: list[str] = []
    for paragraph in paragraphs:
        open_span = ""
        for piece in _SENTENCE_END.split(paragraph.strip()):
            # A full stop inside a code span (``print("Done. Next")``) ends no sentence:
            # a quoted half would leave the span open and change the code.
            sentence = " ".join(f"{open_span} {piece}".split())
            open_span = sentence if _open_code_span(sentence) else ""
            if sentence and not open_span:
                found.append(sentence)
        if open_span:
            found.append(open_span)
    return found


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")


def _open_code_span(text: str) -> bool:
    """Whether ``text`` opens a code span it does not close (a backtick left once its spans are taken out)."""
    return "`" in text and "`" in _CODE_SPAN.sub("", text)


def sentence_terms(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Return each sentence of ``text`` with its content terms, in the language being read (cached per post text).

    The same retrieved posts are analysed by the Writer and the Critic on every request;
    caching by text makes that work once per post rather than once per draft.
    """
    return _sentence_terms(text, _READING.get())


@lru_cache(maxsize=4096)
def _sentence_terms(text: str, language: str) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((sentence, frozenset(content_terms(sentence, language or "en"))) for sentence in sentences(text))


def close_forms(term: str) -> tuple[str, ...]:
    """Return the stems of ``term``'s comparative, superlative and base forms, nearest first.

    Snowball leaves degrees apart: "tall", "taller" and "tallest" are three stems, so
    "How tall is ...?" shares no term with a page on "the tallest volcano". Each form
    is a spelling rule, not a guess: add ``er``/``est`` (``tall``, ``easi`` from "easy",
    ``larg`` from "large"), double a final consonant (``big`` → ``bigger``), or take
    them off (``tallest`` → ``tall``, ``biggest`` → ``big``).
    """
    forms = [term + "er", term + "est"]
    if len(term) >= 3 and term[-1] not in "aeiouwxy" and term[-2] in "aeiou" and term[-3] not in "aeiou":
        forms += [term + term[-1] + "er", term + term[-1] + "est"]
    for suffix in ("est", "er"):
        base = term[: -len(suffix)]
        if term.endswith(suffix) and len(base) >= 3:
            forms.append(base)
            if base[-1] == base[-2] and base[-1] not in "aeiouls":
                forms.append(base[:-1])
    return tuple(dict.fromkeys(form for form in forms if form != term))


def known_form(term: str, known: Container[str]) -> str:
    """Return ``term`` when ``known`` holds it, else its first close form ``known`` holds, else ``term``."""
    if term in known:
        return term
    return next((form for form in close_forms(term) if form in known), term)
