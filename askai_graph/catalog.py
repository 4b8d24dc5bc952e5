"""Deterministic detection of broad catalog questions ("What course articles do you have?").

A question is a catalog question when, after lower-casing and dropping punctuation, it
asks *which content exists* rather than about a topic. The accepted phrasings are:

- "what/which [course|site|blog] <items> do you have / are there / are available / exist
  / can I read / do you offer / have you written / have you published"
- "list / show [me] / give me [a list of] [all] [the|your] <items>"
- "what (do you|does the site|does the course) cover / offer / write about"
- "what topics ...", "table of contents", "index of <items>"

where <items> is one of: articles, posts, lessons, tutorials, guides, pages, chapters,
modules, topics, entries, content, writings (singular or plural). Anything else is an
ordinary question. The rule is conservative by design: a false positive would let a
low-confidence answer stop after one pass.
"""

from __future__ import annotations

import re

_ITEMS = (
    r"(?:articles?|posts?|lessons?|tutorials?|guides?|pages?|chapters?|modules?|topics?"
    r"|entries|entry|content|writings?)"
)
_SCOPE = r"(?:(?:the|your|this|all|all the|all of the|all your|all of your)\s+)?(?:(?:course|site|blog|website)\s+)?"

_PATTERNS = [
    rf"^(?:what|which)\s+(?:kinds? of\s+|sorts? of\s+)?{_SCOPE}{_ITEMS}\s+"
    r"(?:do you have|are there|are available|exist|can i read|do you offer|have you written"
    r"|have you published|does the (?:course|site|blog) have|are in the (?:course|site|blog))",
    r"^(?:can you\s+|could you\s+|please\s+)?(?:list|show(?: me)?|give me(?: a list of)?|enumerate)\s+"
    rf"{_SCOPE}{_ITEMS}$",
    r"^what (?:do you|does (?:the|this) (?:course|site|blog)) (?:cover|offer|write about|teach)$",
    rf"^what {_ITEMS} (?:does|do) (?:the|this|your) (?:course|site|blog) (?:have|cover|offer)$",
    r"^(?:show me |give me )?(?:the |a )?table of contents$",
    rf"^(?:an |the )?index of {_SCOPE}{_ITEMS}$",
]
_COMPILED = [re.compile(pattern) for pattern in _PATTERNS]


def normalize_question(question: str) -> str:
    """Lower-case, drop punctuation and collapse spaces."""
    return " ".join(re.sub(r"[^\w\s']", " ", question.lower()).split())


def is_catalog_question(question: str) -> bool:
    """Return whether ``question`` asks for the catalog of the site's content."""
    text = normalize_question(question)
    return any(pattern.search(text) for pattern in _COMPILED)
