"""What form of answer a question asks for, and whether a text has that form.

"How do I enable HTTP/2?" is answered by ``http2=True``, not by a paragraph on why HTTP/2
is off by default; "What is the default port?" by a value; "Why ...?" by a reason. A
draft sharing the question's words without that form talks around the question. The
offline Writer reads the form to decide what to quote (code blocks for an instruction),
the offline Critic to judge whether the draft answers; both use these rules, so they
agree on what an answer is.

Forms:

- ``instruction``: how to do something, which option/setting/command to use, what to
  write. Needs a fenced code block, an inline code span, a command-line option, a
  command (or prose naming one: "the quaystone purge command"), a value the question
  does not already hold, or an imperative step that names a question term.
- ``value``: a default, a count, a value, what replaces something. Needs a code span,
  a number (in digits or words: "half a litre"), a quoted literal or a literal word
  (``true``, ``none``...).
- ``reason``: why. Needs a causal or conditional connective ("because", "so",
  "otherwise", "if", "without"...) or a negation ("are not on the same scale").
- ``explanation``: anything else (what is, when should I): no form required.

Spanish and Japanese questions ask for the same forms ("¿Por qué…?", "なぜ…", "¿Cuántos…?",
"…のデフォルト値は？"), and a text read in those languages (``terms.reading``) gives a
value or a reason in their words too ("porque", "ため", "10秒"). English markers count in
every language (a Spanish page quotes ``True`` and English code comments).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal, NamedTuple

from askai_graph.text.terms import (
    SHORT_TEXTS_CACHED,
    STOP_WORDS,
    content_terms,
    reading_language,
    stem,
)

AnswerForm = Literal["instruction", "value", "reason", "explanation"]

_REASON_Q = re.compile(r"^\W*why\b|\bwhy (?:do|does|is|are|would|should|can|can't|did)\b", re.IGNORECASE)
_VALUE_Q = re.compile(
    r"\b(?:how many|how much|how long|how often|default|which value|what value|which version|what version"
    r"|what (?:replaces|should i use instead)|what is the (?:limit|maximum|minimum|max|min)\b)",
    re.IGNORECASE,
)
_INSTRUCTION_Q = re.compile(
    r"\bhow (?:do|can|could|should|would|must) (?:i|we|you|one)\b|\bhow to\b"
    r"|\b(?:which|what) (?:option|setting|flag|command|parameter|argument|config(?:uration)?|field|method"
    r"|function|class|decorator|package|plugin|key|variable|matcher|hook)s?\b"
    r"|\bwhat (?:do|should) i (?:write|put|add|type|set|run|call|use|install|pass)\b"
    r"|\bwhere do i (?:put|set|add|configure|declare)\b"
    r"|\bshow me how\b"
    # Spanish "¿Cómo hago / puedo / debo ...?", "¿Cómo se ...?" and Japanese "〜には？" / "〜方法" ("how to").
    r"|¿?\bc[óo]mo (?:hago|puedo|podemos|debo|debemos|se|lo|la|los|las|me|nos)\b|¿?\bc[óo]mo [a-záéíóúñ]+o\b"
    r"|には[？?]\s*$|方法(?:は|を)?[？?]?\s*$"
    # "¿Qué paquete…?", "どのパッケージ…": which thing to use, as "which package" in English.
    r"|\bqu[ée] (?:opci[óo]n|ajuste|configuraci[óo]n|par[áa]metro|argumento|comando|paquete|clase|funci[óo]n"
    r"|m[ée]todo|decorador|variable|campo|plugin)(?:es|s)?\b"
    r"|どの(?:パッケージ|オプション|設定|コマンド|パラメータ|引数|クラス|関数|メソッド|デコレータ|変数|フィールド|プラグイン)",
    re.IGNORECASE,
)

# Spanish and Japanese questions of the same forms (issue #39). A Japanese value question
# asks what the value *is* ("上限は？"), not to do something to it ("最大長のチェックを追加するには？").
_REASON_Q_OTHER = re.compile(r"¿?\bpor\s+qu[ée]\b|なぜ|どうして|理由は", re.IGNORECASE)
_VALUE_Q_OTHER = re.compile(
    r"\bcu[áa]nt[oa]s?\b|\bpor (?:defecto|omisi[óo]n)\b|\bpredeterminad[oa]s?\b|\bqu[ée] (?:valor|versi[óo]n)\b"
    r"|\bcu[áa]l es el (?:l[íi]mite|m[áa]ximo|m[íi]nimo|valor)\b"
    r"|(?:デフォルト|既定|上限|下限|最大|最小)(?:値)?は|いくつ|何(?:個|秒|分|回|件|日|時間|バイト|文字)|どのバージョン",
    re.IGNORECASE,
)
# What gives a reason, or a value, in the language being read. Japanese writes digits
# against kana ("10秒"), where ``_NUMBER``'s word boundary never falls.
_REASON_IN = {
    "es": re.compile(
        r"\b(?:porque|ya que|puesto que|debido a|por eso|por lo que|as[íi] que|para (?:que|evitar|asegurar)"
        r"|de lo contrario|a menos que|si|cuando|sin|no|nunca|evita|provoca|causa|depende de)\b",
        re.IGNORECASE,
    ),
    "ja": re.compile(r"ため|から|ので|場合|ないと|なければ|せず|ません|ない|により|によって"),
}
_VALUE_IN = {
    "es": re.compile(
        r"\b(?:verdadero|falso|ninguno|nulo|activado|desactivado|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez"
        r"|cien|mil|mitad)\b",
        re.IGNORECASE,
    ),
    "ja": re.compile(r"\d+(?:\.\d+)?"),
}

_ASKED_VERB = re.compile(r"\bhow (?:do|can|could|should|would|must) (?:i|we|you) ([a-z]+)|\bhow to ([a-z]+)", re.I)
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})", re.MULTILINE)
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_OPTION = re.compile(r"(?<![\w-])--?[a-zA-Z][\w-]*")
# A command line in prose: a shell prompt ("$ make docs"), or a program, a subcommand and
# an argument shaped like a command line's: a path, a module:object, a file name with
# its extension, a pinned package ("tool serve app/main.py", "tool run main:app",
# "pip install lib==2.1"). No program is named: any site's tool qualifies the same way.
_COMMAND = re.compile(
    r"(?:^|\s)\$ \S"
    r"|\b[a-z][\w-]* [a-z][a-z-]+ (?:[A-Za-z_./~][\w.-]*[/:@=][\w./:@=-]*\w"
    r"|[\w-]+\.(?:py|js|ts|jsx|tsx|mjs|cjs|json|toml|ya?ml|cfg|ini|sh))\b"
)
# "The quaystone purge command ...", "the retries setting": prose naming the thing to use.
_NAMED = re.compile(
    r"\bthe [\w.-]+(?: [\w.-]+)? (?:command|subcommand|option|flag|setting|parameter|argument|function|method"
    r"|class|decorator|hook|matcher|plugin|package|field|variable)\b",
    re.IGNORECASE,
)
_IMPERATIVE = frozenset(
    """
    add apply call change configure create declare define disable enable export import include
    install mount open pass put register remove replace return run set specify start type update
    use wrap write mark inherit subclass annotate raise treat check parse store send wait close
    cancel strip extract keep avoid prefer measure track stop cap limit split cut reuse cache retry
    log test compare normalise normalize prepend append order show hide fetch validate escape
    sanitise sanitize handle give let try make consider choose pick build deploy load read save
    serve stream mock spy assert expect skip rerun watch debug inspect clear reset restore
    download copy move clone unpack unzip upgrade uninstall rename paste edit place pin
    """.split()
)
# A step may follow a connective: "..., so choose k to match", "then run the tests".
_CONNECTIVES = frozenset("so then and or just simply instead first next finally".split())
# "You can declare ...", "you need to set ...": the docs' way of giving a step.
_YOU_CAN = re.compile(r"\byou (?:can|could|should|need to|have to|must|may|will need to)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\b")
_QUOTED = re.compile(r"\"[^\"\n]{1,40}\"|'[^'\n]{1,40}'")
_LITERAL = re.compile(
    r"\b(?:true|false|none|null|enabled|disabled|half|quarter|once|twice|dozen|hundred|thousand|million"
    r"|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|fifty)\b",
    re.IGNORECASE,
)
_REASON = re.compile(
    r"\b(?:because|since|so|in order to|otherwise|unless|the reason|this is why|that is why|that's why|due to"
    r"|as a result|which means|this means|means|to avoid|to prevent|to make sure|to ensure|to keep|prevents?"
    r"|avoids?|causes?|leads? to|results? in|depends? on|if|when|without|not|never|cannot|can't|won't|isn't"
    r"|aren't|doesn't|don't)\b",
    re.IGNORECASE,
)

FRAMING_TERMS = frozenset(
    stem(word)
    for word in """
    work works working calculated calculate computed compute happen happens behave behaves differ
    differs difference compare relate relates interact interact fit decide decides determine determines
    matter matters mean means non good best ideal sensible reasonable suitable appropriate
    """.split()
)
"""Words that frame a question about a mechanism ("How does X *work*?", "How is nDCG
*calculated*?") rather than name its topic: the passage that answers explains the
mechanism without repeating them, so a reviewer does not count them as missing. The
same holds for the judgement a question asks for ("What is a *good* value for k1?"): the
page gives the value ("values between 1.2 and 2.0 are common"), rarely the adjective."""

GAPS: dict[AnswerForm, str] = {
    "instruction": "code example",
    "value": "default value",
    "reason": "reason",
    "explanation": "",
}
"""The search phrase a draft missing each form hands the next Research pass."""


QUESTIONS_CACHED = 1_024
"""Questions whose form and asked verb are kept: a run asks them for every sentence it weighs."""


@lru_cache(maxsize=QUESTIONS_CACHED)
def question_form(question: str) -> AnswerForm:
    """Return the form of answer ``question`` asks for (see the module docstring)."""
    if _REASON_Q.search(question) or _REASON_Q_OTHER.search(question):
        return "reason"
    if _VALUE_Q.search(question) or _VALUE_Q_OTHER.search(question):
        return "value"
    if _INSTRUCTION_Q.search(question):
        return "instruction"
    return "explanation"


_DEFINITION_Q = re.compile(
    r"^\W*(?:what(?:'s|\s+is|\s+are|\s+does)\b|define\b|explain\b|tell me about\b|qu[ée] (?:es|son)\b)", re.IGNORECASE
)


def is_definition_question(question: str) -> bool:
    """Whether ``question`` asks what something is ("What is semantic caching?"), not how to do or tune a part of it."""
    return question_form(question) == "explanation" and _DEFINITION_Q.search(question) is not None


@lru_cache(maxsize=QUESTIONS_CACHED)
def asked_verb(question: str) -> str | None:
    """Return the stem of the verb a how-to question asks about ("How do I *treat* water?"), if any."""
    match = _ASKED_VERB.search(question)
    verb = (match.group(1) or match.group(2)).lower() if match else None
    # "How do I get/make/use ..." names no particular action.
    return stem(verb) if verb and verb not in STOP_WORDS else None


_TOKEN = re.compile(r"[A-Za-z0-9_]+")


def topic_words(question: str) -> list[str]:
    """Return the stems of the words that name what ``question`` is about.

    Whole words (``TypeScript``, not its parts ``type`` and ``script``), without stop
    words, framing words ("work", "decide") or the verb a how-to asks about ("How do I
    *write* tests in TypeScript?": the answer is the instruction, not the verb).
    """
    verb = asked_verb(question)
    found = []
    for token in _TOKEN.findall(question):
        word = token.lower()
        if word in STOP_WORDS or len(word) < 2:
            continue
        term = stem(word)
        if term not in FRAMING_TERMS and term != verb and term not in found:
            found.append(term)
    return found


def has_instruction(text: str, question: str) -> bool:
    """Whether ``text`` gives an instruction: code, an option, a command, or an imperative step on the topic.

    An imperative step opens with a common instruction verb ("Set", "Run", "Use"...) or
    with the very verb the question asks about ("Treat water..." for "How do I treat
    water?"), and names a question term.
    """
    marks = _instruction_marks(text, reading_language()) if len(text) <= SENTENCE_CHARS else _marks(text)
    if marks.markup:
        return True
    # A setting's value is an instruction too ("values between 1.2 and 2.0"), unless
    # the number is the question's own ("HTTP/2" in "How do I enable HTTP/2?").
    if set(marks.numbers) - set(_NUMBER.findall(question)):
        return True
    terms = set(content_terms(question))
    verb = asked_verb(question)
    for sentence in marks.sentences:
        if terms.isdisjoint(sentence.terms):
            continue
        if sentence.you_can or sentence.imperative or verb in sentence.opening_stems:
            return True
    return False


class _Sentence(NamedTuple):
    """What a sentence offers an instruction, whatever the question: its terms and how it opens."""

    terms: tuple[str, ...]
    you_can: bool
    """It gives a step the docs' way: "you can declare ...", "you need to set ..."."""
    imperative: bool
    """It, or its clause after a comma, opens with a common instruction verb."""
    opening_stems: tuple[str, ...]
    """The stems of its opening words: a step with the verb the question asks about."""


class _Marks(NamedTuple):
    markup: bool
    """A code block or span, an option, a command line, or prose naming the thing to use."""
    numbers: tuple[str, ...]
    sentences: tuple[_Sentence, ...]


SENTENCE_CHARS = 400
"""Texts up to this length (a sentence) have what they offer an instruction cached.

Page sentences are read question after question, by the Writer and the Critic: what
they offer an instruction is worked out once per sentence, the question's part per call.
A whole draft is read once and not kept.
"""


@lru_cache(maxsize=SHORT_TEXTS_CACHED)
def _instruction_marks(text: str, language: str) -> _Marks:
    return _marks(text)


def _marks(text: str) -> _Marks:
    markup = bool(
        _FENCE.search(text)
        or _CODE_SPAN.search(text)
        or _OPTION.search(text)
        or _COMMAND.search(text)
        or _NAMED.search(text)
    )
    if markup:  # nothing else is asked of the text
        return _Marks(True, (), ())
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
        # An imperative opens the sentence, or follows a leading clause ("After
        # generation, parse every citation").
        openings = []
        for clause in (sentence, sentence.partition(",")[2]):
            first = clause.strip().split(maxsplit=2)
            word = first[0].strip("*_:").lower() if first else ""
            if word in _CONNECTIVES and len(first) > 1:  # "..., so choose k equal to ..."
                word = first[1].strip("*_:").lower()
            if word:
                openings.append(word)
        found.append(
            _Sentence(
                terms=tuple(dict.fromkeys(content_terms(sentence))),
                you_can=bool(_YOU_CAN.search(sentence)),
                imperative=any(word in _IMPERATIVE for word in openings),
                opening_stems=tuple(stem(word) for word in openings),
            )
        )
    return _Marks(False, tuple(dict.fromkeys(_NUMBER.findall(text))), tuple(found))


_STEP = re.compile(r"^ {0,3}\d{1,2}[.)]\s+\S.*$", re.MULTILINE)
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1", re.MULTILINE | re.DOTALL)


def instruction_elements(text: str, question: str) -> list[str]:
    """Return the instruction-shaped elements of ``text``, each named as a gap would name it.

    Stricter than ``has_instruction``: a code block or code span, a command-line option,
    a command line (or prose naming one: "the quaystone purge command"), a numbered step
    or a value the question does not hold. A sentence
    that only says "you can configure it" is no such element. The names ("the code
    example `npm install --save-dev jest`", "the option `--watch`") tell the next
    Research pass, and the reader of a gap, what the answer left out.
    """
    found: list[str] = []
    block = _FENCED.search(text)
    if block:
        first = next((line.strip() for line in block.group(2).splitlines() if line.strip()), "")
        found.append(f"the code example `{first[:60]}`" if first else "the code example")
    for span in _CODE_SPAN.findall(text)[:1]:
        found.append(f"the code {span}")
    option = _OPTION.search(_FENCED.sub("", text))
    if option:
        found.append(f"the option `{option.group(0)}`")
    command = _COMMAND.search(_FENCED.sub("", text))
    if command:
        found.append(f"the command `{command.group(0).strip()}`")
    named = _NAMED.search(_FENCED.sub("", text))
    if named:  # prose naming the thing to use: "the quaystone purge command"
        found.append(named.group(0).lower())
    step = _STEP.search(_FENCED.sub("", text))
    if step:
        found.append(f'the numbered step "{step.group(0).strip()[:60]}"')
    values = [n for n in _NUMBER.findall(_FENCED.sub("", text)) if n not in _NUMBER.findall(question)]
    if values:
        found.append(f"the value {values[0]}")
    return found


def has_value(text: str) -> bool:
    """Whether ``text`` states a value: a code span, a number, a quoted or literal value (in the language read)."""
    other = _VALUE_IN.get(reading_language())
    return bool(
        _FENCE.search(text)
        or _CODE_SPAN.search(text)
        or _NUMBER.search(text)
        or _QUOTED.search(text)
        or _LITERAL.search(text)
        or (other is not None and other.search(text))
    )


def has_reason(text: str) -> bool:
    """Whether ``text`` gives a reason (a causal connective, in English or the language read)."""
    other = _REASON_IN.get(reading_language())
    return bool(_REASON.search(text) or (other is not None and other.search(text)))


def has_form(form: AnswerForm, text: str, question: str) -> bool:
    """Whether ``text`` has the form ``form`` asks for (an explanation needs none)."""
    if form == "instruction":
        return has_instruction(text, question)
    if form == "value":
        return has_value(text)
    if form == "reason":
        return has_reason(text)
    return True
