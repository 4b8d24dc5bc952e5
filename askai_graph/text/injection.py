"""Messages that give the assistant orders (prompt-injection phrasings) rather than ask about the site.

"Ignore all previous instructions and ...", "You are now ...", "Reply only with ...": no
page of the site answers these, and quoting pages under them would lend the site's
authority to an injection attempt. Research retrieves nothing for them (so they end in
``fallback``, with no site text), and the lexical Critic fails their intent.
"""

from __future__ import annotations

import re

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
