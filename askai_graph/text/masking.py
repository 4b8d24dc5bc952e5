"""Mask what readers paste into questions before anything is stored: contacts, card numbers, secrets.

Readers paste e-mail addresses, phone numbers, API keys and bearer tokens into an
"Ask AI" box. The run answers the question as asked; everything *kept* (the run log,
feedback comments, the thread history, the answer cache's key and entry, hence the
report) keeps ``mask(text)`` instead, where each finding is replaced by a label such as
``[email]``. Masking is idempotent (a label matches no pattern) and cheap (well under a
millisecond per question, ``bench/masking.py``).

One module, not a detector package: the regex-based PII packages on PyPI are either
unmaintained (commonregex, last release 2014), line-oriented scanners of source files
with a plugin registry to configure (detect-secrets), or built on spaCy models that
cannot be downloaded here (Presidio). The shapes below are few and each is tested on
its own, positive and negative (``tests/test_masking.py``).

What is masked, in this order (earlier shapes win where two overlap):

- URLs with credentials (``https://user:pass@host``, ``https://token@host``): the ``user:pass@`` part;
- JWTs (three base64url parts, the first a JSON header), ``Bearer`` tokens;
- ``sk-…`` (OpenAI, Anthropic, Stripe), ``ghp_…``/``gho_``/``ghs_``/``ghu_``/``ghr_`` and
  ``github_pat_…`` (GitHub), ``AKIA…``/``ASIA…`` (AWS access key ids);
- e-mail addresses;
- card numbers: 13 to 19 digits, spaced or dashed in groups, that pass the Luhn check;
- IPv4 and IPv6 addresses, but loopback and "any" (``127.0.0.1``, ``0.0.0.0``, ``::1``);
- phone numbers: an international ``+`` number, or a grouped number of 9+ digits;
- long tokens: 32+ hex digits (at least one a digit), or 40+ base64/base64url characters mixing letters and digits.

What is not: names, street addresses, free-text secrets ("my password is hunter2").
"""

from __future__ import annotations

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
    digits = re.sub(r"[ -]", "", found)
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
    """A long run of base64 characters is a token only if it mixes letters and digits (not a long word)."""
    return bool(re.search(r"\d", found)) and bool(re.search(r"[A-Za-z]", found))


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
SHAPES: tuple[Shape, ...] = (
    Shape("credentials", re.compile(r"\b[a-z][a-z0-9+.-]*://(?P<mask>[^\s/?#@]+@)", re.IGNORECASE)),
    Shape("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}")),
    Shape("secret", re.compile(r"\bBearer\s+(?P<mask>[A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE)),
    Shape("secret", re.compile(r"\bsk-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}")),
    Shape("secret", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    Shape("secret", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    Shape("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")),
    Shape("card", re.compile(r"(?<![\d.-])\d(?:[ -]?\d){12,18}(?![\d.-])"), _card),
    Shape("ip", re.compile(rf"(?<![\d.])(?:{_OCTET}\.){{3}}{_OCTET}(?![\d.])"), _address),
    Shape("ip", re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"), _address),
    Shape(
        "phone",
        re.compile(r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w:-])"),
        _phone,
    ),
    Shape("phone", re.compile(r"(?<![\w+])\+\d{9,15}\b")),
    Shape("token", re.compile(r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])"), _has_digit),
    Shape("token", re.compile(rf"(?<!{_B64}){_B64}{{40,}}={{0,2}}(?!{_B64})"), _mixed),
)
"""Every shape masked, earliest first (a later shape never looks inside an earlier one's label)."""

_MAYBE = re.compile(r"[\d@:]|bearer", re.IGNORECASE)
_LABEL = re.compile(r"\[(?:credentials|jwt|secret|email|card|ip|phone|token)\]")


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


def _mask(text: str, shapes: Iterable[Shape], found: list[Finding] | None) -> str:
    # Every shape needs a digit, an ``@``, a ``:`` or the word "bearer": plain prose skips every regex.
    if _MAYBE.search(text) is None:
        return text
    for shape in shapes:

        def replace(match: re.Match[str], shape: Shape = shape) -> str:
            whole = match.group(0)
            if _LABEL.fullmatch(whole) or (shape.check is not None and not shape.check(whole)):
                return whole
            part = "mask" if "mask" in shape.pattern.groupindex and match.group("mask") is not None else 0
            if found is not None:
                found.append(Finding(shape.label, match.group(part)))
            if part == 0:
                return f"[{shape.label}]"
            start, end = match.span("mask")
            offset = match.start()
            return whole[: start - offset] + f"[{shape.label}]" + whole[end - offset :]

        text = shape.pattern.sub(replace, text)
    return text


_LABELS = re.compile(r"\[(?:" + "|".join(sorted({re.escape(shape.label) for shape in SHAPES})) + r")\]")


def unpasted(text: str) -> str:
    """Return ``text`` without the values a reader pasted into it, nor their mask labels.

    An e-mail address, an ``sk-…`` key or an IP is no word of the site: as a search
    term it dilutes the relevance floor, and as a Critic's gap it refuses a right answer.
    Research and the offline Writer and Critic read the question without them, so the
    same question with or without a pasted value gets the same answer.
    """
    return " ".join(_LABELS.sub(" ", mask(text)).split())


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
