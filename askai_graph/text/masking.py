"""Mask what readers paste into questions before anything reads it: contacts, card numbers, secrets.

Readers paste e-mail addresses, phone numbers, API keys and bearer tokens into an
"Ask AI" box. The graph masks the question at its first stage (``nodes.condense``),
before anything derives terms from it: Research, the Writer and the Critic work on
``searchable(text)`` (masked, and with no label left to search for), so neither a
Research query nor a Critic's gap can hold part of a secret (``sk abc…``, one group
of a phone number), and no model provider ever receives one. Every store masks what
it keeps with the same ``mask`` (the run log, feedback comments, the thread history,
the answer cache's key and entry, hence the report), each finding replaced by a label
such as ``[email]``. Masking is idempotent (a label matches no pattern) and cheap (well
under a millisecond per question, ``bench/masking.py``).

One module, not a detector package: the regex-based PII packages on PyPI are either
unmaintained (commonregex, last release 2014), line-oriented scanners of source files
with a plugin registry to configure (detect-secrets), or built on spaCy models that
cannot be downloaded here (Presidio). The shapes below are few and each is tested on
its own, positive and negative (``tests/test_masking.py``).

What is masked, in this order (earlier shapes win where two overlap):

- a URL's text fragment (``#:~:text=…``, as search engines' click URLs carry): the directive;
- URLs with credentials (``https://user:pass@host``, ``https://token@host``): the ``user:pass@`` part;
- JWTs (base64url parts, the first a JSON header; unsigned, and with ``=`` padding too);
- credentials in an ``Authorization:`` header, ``Bearer`` tokens (``Bearer:`` too), ``Basic``
  credentials (base64 of ``user:password``);
- ``sk-…`` (OpenAI, Anthropic), ``sk_live_``/``rk_test_``… (Stripe), ``ghp_…``/``gho_``/``ghs_``/
  ``ghu_``/``ghr_`` and ``github_pat_…`` (GitHub), ``AKIA…``/``ASIA…`` (AWS access key ids);
- e-mail addresses, internationalised ones (``jürgen@münchen.de``) included;
- card numbers: 13 to 19 digits, spaced, dashed or dotted in groups, that pass the Luhn check;
- IPv4 and IPv6 addresses, but loopback and "any" (``127.0.0.1``, ``0.0.0.0``, ``::1``);
- phone numbers: an international ``+`` number, a grouped number of 9+ digits, or 9 to 15
  digits after a word such as "phone" or "call";
- long tokens: 32+ hex digits (at least one a digit), or 40+ base64/base64url characters
  mixing letters and digits (and both cases, when the run holds a ``/`` as paths do).

What is not: names, street addresses, free-text secrets ("my password is hunter2"), and
what only resembles a shape in a docs question ("Bearer authentication", a version, a path).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_Check = Callable[[str], bool]


def luhn_ok(digits: str) -> bool:
    """Whether the digit string ``digits`` passes the Luhn checksum."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(found: str) -> bool:
    digits = re.sub(r"[ .-]", "", found)
    return 13 <= len(digits) <= 19 and luhn_ok(digits)


def _address(found: str) -> bool:
    """An IP address that could name a machine: not loopback or "any" (``127.0.0.1``, ``0.0.0.0``, ``::1``).

    Those two are configuration values a docs question names ("bind to 0.0.0.0"), never
    a reader's: masking them would make two different questions one cache key.
    """
    try:
        address = ipaddress.ip_address(found)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified)


def _phone(found: str) -> bool:
    """At least 9 digits (or a ``+``), at most E.164's 15: a date or a version number is shorter."""
    digits = len(re.sub(r"\D", "", found))
    return (digits >= 9 or found.startswith("+")) and digits <= 15


def _has_digit(found: str) -> bool:
    return any(char.isdigit() for char in found)


def _mixed(found: str) -> bool:
    """A long run of base64 characters is a token only if it mixes letters and digits (not a long word).

    A run holding a ``/`` may be a path (``usr/lib/python3/site-packages``): it needs both
    cases too, as random base64 of that length all but always has.
    """
    if not (re.search(r"\d", found) and re.search(r"[A-Za-z]", found)):
        return False
    return "/" not in found or bool(re.search(r"[a-z]", found) and re.search(r"[A-Z]", found))


def _tokenish(found: str) -> bool:
    """A word after "Bearer" in prose is a token only if it looks like one ("Bearer authentication" is no token)."""
    return (
        len(found) >= 20
        or any(char.isdigit() or char in "._~+/=-" for char in found)
        or (any(char.islower() for char in found) and any(char.isupper() for char in found[1:]))
    )


def _basic(found: str) -> bool:
    """Basic credentials are the base64 of ``user:password``."""
    try:
        decoded = base64.b64decode(found, validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


@dataclass(frozen=True)
class Shape:
    """One kind of thing that is masked."""

    label: str
    """What replaces it, in brackets: ``[email]``."""
    pattern: re.Pattern[str]
    """Where it may be; group ``mask``, when present, is the part replaced."""
    check: _Check | None = None
    """A test of the match beyond its shape (Luhn for cards); ``None``: the shape is enough."""


_B64 = r"[A-Za-z0-9+/_-]"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1?\d?\d)"
_JWT_PART = r"[A-Za-z0-9_+/-]+={0,2}"
_TOKEN = r"[A-Za-z0-9._~+/=-]{8,}"
SHAPES: tuple[Shape, ...] = (
    Shape("fragment", re.compile(r"#(?P<mask>:~:\S*)")),
    Shape("credentials", re.compile(r"\b[a-z][a-z0-9+.-]*://(?P<mask>[^\s/?#@]+@)", re.IGNORECASE)),
    Shape("jwt", re.compile(rf"\beyJ[A-Za-z0-9_+/-]{{5,}}={{0,2}}\.{_JWT_PART}\.(?:{_JWT_PART})?")),
    Shape(
        "secret",
        re.compile(
            rf"\b(?:proxy-)?authorization\s*[:=]\s*(?:(?:bearer|basic|token)\b\s*[:=]?\s*)?(?P<mask>{_TOKEN})",
            re.IGNORECASE,
        ),
    ),
    Shape("secret", re.compile(rf"\bBearer\s*[:=]\s*(?P<mask>{_TOKEN})", re.IGNORECASE)),
    Shape("secret", re.compile(rf"\bBearer\s+(?P<mask>{_TOKEN})", re.IGNORECASE), _tokenish),
    Shape(
        "secret", re.compile(r"\bBasic\s*[:=]?\s*(?P<mask>[A-Za-z0-9+/]{6,}={0,2})(?![\w+/=])", re.IGNORECASE), _basic
    ),
    # A run of 16 without a hyphen: "sk-learn-compatible-estimators" is a package's words, no key.
    Shape("secret", re.compile(r"\bsk-(?=[A-Za-z0-9_-]*?[A-Za-z0-9_]{16})[A-Za-z0-9_-]{16,}")),
    Shape("secret", re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}")),
    Shape("secret", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    Shape("secret", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    Shape("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.(?:[^\W\d_]{2,}|xn--[A-Za-z0-9-]+)\b")),
    # A card before a sentence's full stop is a card; one before ".5" is part of a number.
    Shape("card", re.compile(r"(?<![\d.-])\d(?:[ -]?\d){12,18}(?![\d-]|\.\d)"), _card),
    Shape("card", re.compile(r"(?<![\d.])\d{4}(?:\.\d{4,6}){2,3}(?:\.\d{1,3})?(?!\d|\.\d)"), _card),
    Shape("ip", re.compile(rf"(?<![\d.])(?:{_OCTET}\.){{3}}{_OCTET}(?![\d.])"), _address),
    Shape("ip", re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"), _address),
    Shape(
        "phone",
        re.compile(
            r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){0,3}[ .-]\d{2,8}"
            # Neither a time or an IPv6 group (":30") nor a group cut short: all of the number, or nothing.
            r"(?![\w-]|:\d|[ .]\d)"
        ),
        _phone,
    ),
    Shape("phone", re.compile(r"(?<![\w+])\+\d{9,15}\b")),
    Shape(
        "phone",
        re.compile(
            r"\b(?:phone|tel|telephone|mobile|cell|call|sms|whatsapp|fax)\b[^\d+\n]{0,20}(?P<mask>\+?\d{9,15})(?!\d)",
            re.IGNORECASE,
        ),
    ),
    Shape("token", re.compile(r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])"), _has_digit),
    Shape("token", re.compile(rf"(?<!{_B64}){_B64}{{40,}}={{0,2}}(?!{_B64})"), _mixed),
)
"""Every shape masked, earliest first (a later shape never looks inside an earlier one's label)."""

# What every shape needs somewhere in the text: plain prose (most questions) skips every regex.
_MAYBE = re.compile(r"[\d@:]|bearer|basic|sk-|[rs]k_|gh[pousr]_|github_pat_|AKIA|ASIA|eyJ", re.IGNORECASE)
LABELS = frozenset({shape.label for shape in SHAPES})
"""Every label ``mask`` writes (``[email]``...)."""
_LABEL = re.compile(r"\[(?:" + "|".join(sorted(LABELS)) + r")\]")


@dataclass(frozen=True)
class Finding:
    """One masked span of the original text."""

    label: str
    """The shape's label."""
    text: str
    """What was masked."""


def findings(text: str, shapes: Iterable[Shape] = SHAPES) -> list[Finding]:
    """Return what ``mask`` would replace in ``text``, in the order the shapes find it."""
    found: list[Finding] = []
    _mask(text, shapes, found)
    return found


def mask(text: str, shapes: Iterable[Shape] = SHAPES) -> str:
    """Return ``text`` with every contact, card number and secret replaced by its ``[label]``."""
    return _mask(text, shapes, None)


def searchable(text: str) -> str:
    """Return ``text`` masked and with no label left: the form terms may be derived from.

    A label's word ("email", "secret") was never the reader's: it must become no search
    term, no Critic gap, no word the Writer matches a passage on.
    """
    return " ".join(_LABEL.sub(" ", mask(text)).split())


def _mask(text: str, shapes: Iterable[Shape], found: list[Finding] | None) -> str:
    if _MAYBE.search(text) is None:
        return text
    for shape in shapes:

        def replace(match: re.Match[str], shape: Shape = shape) -> str:
            whole = match.group(0)
            part = "mask" if "mask" in shape.pattern.groupindex and match.group("mask") is not None else 0
            if _LABEL.fullmatch(whole) or (shape.check is not None and not shape.check(match.group(part))):
                return whole
            if found is not None:
                found.append(Finding(shape.label, match.group(part)))
            if part == 0:
                return f"[{shape.label}]"
            start, end = match.span("mask")
            offset = match.start()
            return whole[: start - offset] + f"[{shape.label}]" + whole[end - offset :]

        text = shape.pattern.sub(replace, text)
    return text


def mask_echoes(answer: str, *asked: str | None) -> str:
    """Return ``answer`` with whatever ``mask`` finds in the ``asked`` texts masked where the answer repeats it.

    An answer is site text: masking its own e-mail addresses or IPs (a docs page's
    examples) would change what the site says. Only the reader's own pasted values,
    echoed back, are masked.
    """
    for question in asked:
        if not question:
            continue
        for finding in findings(question):
            if len(finding.text) >= 4:
                answer = answer.replace(finding.text, f"[{finding.label}]")
    return answer
