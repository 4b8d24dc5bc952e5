"""When two questions are the same question: the cache's exact key and its contrast check.

A cached answer may only be served to the question it was written for. Two tests decide
what "the same question" means, from strict to cautious:

``exact_key``
    A canonical spelling of the question. Only changes that cannot alter what is asked
    are undone: Unicode NFKC (full-width letters, ligatures; superscripts stay ``^2``),
    case (except where capitals make another word: ``IT`` is not ``it``, in Title Case
    too, and ``Teams`` inside a sentence is a name, not ``teams``), invisible characters,
    typographic apostrophes, whitespace, sentence punctuation (``?``, ``!``, ``,``, ``:``...;
    symbols that carry meaning stay: ``C++``, ``C#``, ``.NET``, ``-1``, ``--verbose``, ``5%``, ``<``), the
    contractions of auxiliaries (``what's`` = ``what is``, ``don't`` = ``do not``), a
    leading or trailing ``please``, and the topic-first form ``X: what is it?`` = ``what
    is X?``. Equal keys are the same question, in any script.

``contrast``
    Used only for a *similar* (nearest-neighbour) candidate whose key differs. It
    refuses the match, naming why, on any difference a bag of words cannot see:
    non-Latin script in either question (we cannot vouch for what differs there),
    negations (``not``, ``without``, ``avoid``...), modal verbs (``can``/``must``),
    quantifiers (``all``/``some``), numbers, comparatives, question words, pronouns,
    prepositions and particles (``on``/``off``, ``up``/``down``), tense, any word from a
    list of antonym pairs (``enable``/``disable``...), or word order: the words that
    remain must appear in the same order (``does A beat B`` vs ``does B beat A``). What
    it lets through is inflection (``cache``/``caching``/``caches``), articles and
    ``is``/``are`` agreement.

Both are pure functions of the text; the labelled pairs in ``tests/data/cache_pairs.jsonl``
measure them (0 false hits on the contrast pairs is a test).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from askai_graph.text.plain import clean_question as clean_question  # the form its keys are built from
from askai_graph.text.terms import STOP_WORDS

# A token: a word (any script) with inner ``.``, ``-``, ``'``, ``/`` joints and trailing
# ``+``/``#`` (``node.js``, ``gpt-4``, ``3.5``, ``c++``, ``c#``, ``i/o``); a leading ``.``
# (``.net``), ``-`` or ``--`` (``-1``, ``-verbose``, ``--verbose``: an option's dashes say
# which option it is); or any single symbol that is not sentence punctuation (``<``,
# ``=``, ``%``, ``$``, ``&``).
_TOKEN = re.compile(r"(?:(?<![\w-])(?:--|[.\-])(?=\w))?\w+(?:[.\-'/]\w+)*[+#]*|[^\w\s]")
_SPACED_MINUS = re.compile(r"(?<![\w)\]])-\s+(?=\d)")
_SENTENCE_PUNCTUATION = frozenset("?!.,;:\"'()[]{}…–—-¿¡")

_CONTRACTIONS = {
    "can't": "can not", "cannot": "can not", "won't": "will not", "shan't": "shall not", "let's": "let us",
    "i'm": "i am", "what's": "what is", "who's": "who is", "where's": "where is", "when's": "when is",
    "how's": "how is", "why's": "why is", "it's": "it is", "that's": "that is", "there's": "there is",
    "here's": "here is",
}  # fmt: skip
_SUFFIXES = {"n't": "not", "'re": "are", "'ve": "have", "'ll": "will"}
_POLITE = frozenset({"please", "pls", "plz"})
# "X: what is it" / "X - how does it work": the topic moved to the front.
_TOPIC_FIRST = re.compile(
    r"^(?P<topic>.+?)\s*[:\u2013\u2014-]+\s*(?P<ask>what|how|why)\s+(?P<aux>is|are|does|do)\s+(?:it|they|that|this)"
    r"(?P<rest>\s+\w+)?\s*[?.!]*$",
    re.IGNORECASE,
)


def tokens(question: str) -> list[str]:
    """Return the canonical tokens of ``question`` (see ``exact_key``)."""
    return list(_tokens(question))


TOKENS_CACHED = 256
"""Questions whose tokens are kept (least recently used dropped).

A lookup asks for a question's tokens three or four times (its keys, then the contrast
with the cached questions): each is tokenized once. Those asks come within one request,
so 256 covers them even with dozens of requests interleaved (a bound of 64 kept all but
2 points of the hit rate, one request at a time: ``bench/caches.py --curves``). A larger
bound only keeps readers' one-off questions: at 4,096 they took 3 MB and grew the soak's
RSS for ten minutes (issue #37).
"""


@lru_cache(maxsize=TOKENS_CACHED)
def _tokens(question: str) -> tuple[str, ...]:
    # A minus or list marker set off by a space is still a sign: "- 2" is "-2", not "2".
    text = _SPACED_MINUS.sub("-", clean_question(question))
    informative = _case_informative(text)
    mixed = any(ch.islower() for ch in text) and any(ch.isupper() for ch in text)
    found = _TOKEN.findall(_topic_first(text.strip()))
    out: list[str] = []
    starts_sentence = True
    for raw in found:
        named = _names_something(raw, starts_sentence) if informative else mixed and _capitals_on_a_word(raw)
        token = raw if named else raw.casefold()
        starts_sentence = raw in ".?!:"
        if token in _SENTENCE_PUNCTUATION:
            continue
        if token in _CONTRACTIONS:
            out += _CONTRACTIONS[token].split()
            continue
        for suffix, word in _SUFFIXES.items():
            if token.endswith(suffix) and len(token) > len(suffix):
                out += [token[: -len(suffix)], word]
                break
        else:
            out.append(token)
    while out and out[0] in _POLITE:
        out.pop(0)
    while out and out[-1] in _POLITE:
        out.pop()
    return tuple(out)


def _case_informative(text: str) -> bool:
    """Say whether the question's capitals tell names from words.

    Not when it is all lower case or all capitals (``how does bm25 rank``, ``WHAT IS
    IT``), nor in Title Case, where every content word is capitalised anyway.
    """
    if not any(ch.islower() for ch in text) or not any(ch.isupper() for ch in text):
        return False
    words = [w for w in re.findall(r"[^\W\d_]+", text)[1:] if w.casefold() not in _COMMON_WORDS]
    return not (len(words) >= 2 and all(w[0].isupper() for w in words))


def _names_something(token: str, starts_sentence: bool) -> bool:
    """Say whether ``token``'s capitals make it another word than its lower case.

    ``IT`` is not ``it`` and ``US`` is not ``us`` (capitals on a common word), and
    ``Teams``, ``Windows`` or ``Canvas`` inside a sentence are names, not ``teams``,
    ``windows`` or ``canvas``. ``BM25``/``bm25`` or ``NDCG``/``nDCG`` are one name in any
    case: no lower-case word competes with them.
    """
    letters = [ch for ch in token if ch.isalpha()]
    if len(letters) < 2 or token.casefold() == token:
        return False
    if all(ch.isupper() for ch in letters):
        return token.casefold() in _COMMON_WORDS
    return not starts_sentence and token[0].isupper() and token[1:] == token[1:].casefold()


def _capitals_on_a_word(token: str) -> bool:
    """Say whether ``token`` is a common word written in capitals (``IT``, ``US``): another word, even in Title Case.

    Title Case capitalises every word's first letter, so ``Teams`` says nothing there;
    but it never writes a whole word in capitals: ``How Do IT Teams`` asks about IT.
    """
    letters = [ch for ch in token if ch.isalpha()]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters) and token.casefold() in _COMMON_WORDS


def _topic_first(text: str) -> str:
    match = _TOPIC_FIRST.match(text)
    if not match:
        return text
    rest = (match["rest"] or "").strip()
    topic, first = match["topic"], match["topic"].split()[0]
    if first[:1].isupper() and not first.isupper():
        topic = topic[0].lower() + topic[1:]  # it opened the sentence; now it is inside one
    return " ".join(part for part in (match["ask"].lower(), match["aux"].lower(), topic, rest) if part)


def exact_key(question: str) -> str:
    """Return the canonical form of ``question``: equal keys are the same question."""
    return " ".join(tokens(question))


# --- the contrast check -------------------------------------------------------------------

NEGATIONS = frozenset(
    "no not nor never none neither nothing nobody nowhere without avoid avoiding prevent preventing stop stopping "
    "except excluding exclude instead lack lacking missing fail failing unless refuse ban forbid disallow".split()
)
MODALS = frozenset("can could may might must shall should will would need needs ought have has had got".split())
QUANTIFIERS = frozenset(
    "all any some every each both either most many much few several only just more less fewer least enough half "
    "whole entire always sometimes often usually rarely seldom ever once twice".split()
)
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion "
    "trillion first second third fourth fifth sixth seventh eighth ninth tenth last single double triple dozen".split()
)
QUESTION_WORDS = frozenset("what which who whom whose when where why how whether if".split())
PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself we us our ours he him his she her hers they them their theirs it "
    "its this that these those there here".split()
)
PARTICLES = frozenset(
    "on off up down in out into onto from to for with by at of over under above below before after between "
    "through during within across against toward towards via per about around behind beyond inside outside upon "
    "vs versus than as like unlike since until".split()
)
COMPARATIVES = frozenset(
    "better best worse worst faster fastest slower slowest bigger biggest smaller smallest larger largest higher "
    "highest lower lowest greater greatest older oldest newer newest earlier earliest later latest cheaper "
    "cheapest safer safest stronger weaker longer shorter easier harder simpler".split()
)
TENSE = {"is": "is", "are": "is", "am": "is", "was": "was", "were": "was", "do": "do", "does": "do", "did": "did"}
ANTONYM_PAIRS = [
    pair.split("/")
    for pair in (
        "enable/disable enabled/disabled on/off up/down increase/decrease increase/reduce add/remove add/delete "
        "start/stop start/end open/close allow/deny allow/block accept/reject include/exclude import/export "
        "push/pull upload/download encrypt/decrypt compress/decompress encode/decode serialize/deserialize "
        "sync/async synchronous/asynchronous true/false yes/no min/max minimum/maximum input/output read/write "
        "get/set client/server local/remote public/private static/dynamic strong/weak hot/cold lazy/eager "
        "positive/negative success/failure valid/invalid safe/unsafe secure/insecure sparse/dense online/offline "
        "internal/external frontend/backend inner/outer left/right high/low fast/slow long/short big/small "
        "large/small old/new cheap/expensive easy/hard simple/complex lock/unlock install/uninstall "
        "connect/disconnect subscribe/unsubscribe merge/split send/receive win/lose beat/lose pass/fail "
        "like/dislike agree/disagree correct/incorrect known/unknown visible/hidden show/hide before/after "
        "first/last upper/lower uppercase/lowercase ascending/descending import/export request/response "
        "buy/sell lend/borrow give/take teach/learn parent/child master/slave primary/secondary "
        "supervised/unsupervised structured/unstructured mutable/immutable deterministic/nondeterministic"
    ).split()
]
ANTONYMS = frozenset(word for pair in ANTONYM_PAIRS for word in pair)
_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-", "de", "anti", "anti-", "mis")
_IGNORABLE = frozenset({"a", "an", "the"})
CRITICAL = NEGATIONS | MODALS | QUANTIFIERS | NUMBER_WORDS | QUESTION_WORDS | PRONOUNS | PARTICLES | COMPARATIVES
CRITICAL |= ANTONYMS | frozenset(TENSE)
_COMMON_WORDS = STOP_WORDS | CRITICAL  # words a capitalised spelling can be told apart from
# Words that carry no topic of their own. An antonym is CRITICAL (``async`` must never meet
# ``sync``) but it is a topic word all the same: "How do I make async requests?" has content.
_FUNCTION_WORDS = STOP_WORDS | (CRITICAL - ANTONYMS)


def _latin_only(token: str) -> bool:
    return all(not ch.isalpha() or ("LATIN" in unicodedata.name(ch, "")) for ch in token)


def fold(token: str) -> str:
    """Fold plural and ``-ing`` forms: ``caches``/``caching``/``cache`` meet.

    Only plural ``-s``/``-es`` and ``-ing``, then a final ``e``, never down to fewer than
    four letters (``news`` is not ``new``, ``string`` is not ``str``). ``-ed`` is kept:
    ``what changed`` and ``what changes`` ask about different times. Never folded: a
    name or acronym that kept its capitals (``Windows``, ``Teams``), an identifier or
    symbol, words whose final ``s`` is not a plural's (``canvas``, ``pandas``, ``alias``,
    ``redis``, ``status``: a plural such as ``ideas`` loses a cache hit, which costs
    only an answer, while a false hit serves the wrong one), and ``-ing`` nouns with a
    meaning of their own (``meaning`` is not ``mean``).
    """
    if token in TENSE:
        return TENSE[token]
    if token in CRITICAL or not token.isalpha() or token != token.casefold():
        return token
    word = token
    if not word.endswith(_NOT_PLURAL):
        for suffix in ("es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
    if word.endswith("ing") and len(word) >= 7 and word not in _ING_NOUNS:
        word = word[:-3]
    if word.endswith("e") and len(word) >= 5:
        word = word[:-1]
    return word


# Endings whose final "s" is not a plural's: ss (class), as (canvas), is (analysis), us (status).
_NOT_PLURAL = ("ss", "as", "is", "us")
# -ing words that name something else than their verb's action.
_ING_NOUNS = frozenset(
    "meaning meanings building buildings setting settings string strings thing things morning evening "
    "wedding ceiling warning warnings feeling feelings painting drawing drawings listing listings heading "
    "headings opening ending endings finding findings holding holdings saving savings earning earnings "
    "booking bookings offering offerings posting postings spring springs ring rings king sibling siblings".split()
)


def meaningful(question: str) -> list[str]:
    """Return the tokens that decide what ``question`` asks (articles dropped, inflection folded)."""
    return [fold(token) for token in tokens(question) if token not in _IGNORABLE]


def loose_key(question: str) -> str:
    """Return the key a cached answer is stored under; ``""`` for a question without content.

    A question made only of function words ("What is it?", "Why not?") means something
    only in a conversation: it is never cached.
    """
    folded = meaningful(question)
    if not any(token not in _FUNCTION_WORDS for token in folded):
        return ""
    return " ".join(folded)


def contrast(question: str, candidate: str, *, allow_synonyms: bool = False) -> str | None:
    """Return why ``candidate`` is *not* the same question as ``question``, or ``None``.

    ``None`` when the two have the same ``exact_key``; otherwise, for Latin-script text,
    when they differ at most in inflection, articles and ``is``/``are``, ``do``/``does``
    agreement. With ``allow_synonyms`` (a neural embedding judged them similar), content
    words may also differ, but nothing ``CRITICAL``, no number, no antonym and no order.
    """
    if exact_key(question) == exact_key(candidate):
        return None
    a, b = tokens(question), tokens(candidate)
    if not all(_latin_only(token) for token in a + b):
        return "non-Latin script"
    left, right = meaningful(question), meaningful(candidate)
    if left == right:
        return None
    for name, words in (
        ("negation", NEGATIONS), ("modal verb", MODALS), ("quantifier", QUANTIFIERS), ("question word", QUESTION_WORDS),
        ("pronoun", PRONOUNS), ("preposition or particle", PARTICLES), ("comparative", COMPARATIVES),
        ("antonym", ANTONYMS),
    ):  # fmt: skip
        if [t for t in left if t in words] != [t for t in right if t in words]:
            return name
    if [t for t in left if _is_number(t)] != [t for t in right if _is_number(t)]:
        return "number"
    if [t for t in left if t in TENSE.values()] != [t for t in right if t in TENSE.values()]:
        return "tense"
    for x in set(left) ^ set(right):
        for y in set(left) | set(right):
            if x != y and any(x == p + y or y == p + x for p in _NEGATING_PREFIXES):
                return "antonym"
    shared = set(left) & set(right)
    if [t for t in left if t in shared] != [t for t in right if t in shared]:
        return "word order"
    if len(left) != len(right) or not allow_synonyms:
        return "different words"
    differing = set(left) ^ set(right)
    if any(not token.isalpha() for token in differing):
        return "symbol"  # C++ and C, $5 and €5, .NET and NET: not synonyms, whatever a model says
    if any(x + "ed" == y or x + "d" == y for x in differing for y in differing):
        return "tense"
    if any(_other_form(x, y) for x in set(left) - set(right) for y in set(right) - set(left)):
        # Kept apart on purpose by ``tokens``/``fold`` (a name and a word, canvas and canva,
        # meaning and mean): an embedding that finds them close is not told otherwise.
        return "name or word form"
    return None


def _other_form(x: str, y: str) -> bool:
    """Say whether ``x`` and ``y`` are one word's spellings: case, or a short ending apart."""
    a, b = sorted((x.casefold(), y.casefold()), key=len)
    return a == b or (len(a) >= 3 and b.startswith(a) and len(b) - len(a) <= 3)


def _is_number(token: str) -> bool:
    return token in NUMBER_WORDS or any(ch.isdigit() for ch in token)
