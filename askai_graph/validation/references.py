"""Which reference definitions some reference could use: an unused one makes nothing live.

A definition (``[foo]: /url``) renders as nothing; only a reference (``[foo]``,
``[text][foo]``, ``[foo][]``, ``![foo]``) can turn it into a link or an image. The gate
used to check every definition's destination as if it were live, so a draft with an
unused definition of a page-relative or unretrieved URL was refused although no
renderer links it. Now a definition whose label no other bracket in the draft could
name is checked the way its text would be read if some renderer showed it as prose
(``linkify``: a bare absolute URL must still be retrieved; ``/url`` links nothing).

"Could name" over-approximates every renderer: labels are compared by a key coarser
than any renderer's matching (entities decoded; backslashes, whitespace, punctuation and
combining marks dropped; case mapped the JavaScript renderers' way, lower then upper, then
folded), each bracket pair counting under its own key and under the key of mistletoe's
normalised label (the form ``Document.footnotes`` keeps), and every bracket pair in the
whole draft counts, in code too. A label whose key appears twice or more (a reference,
another definition, a ``[foo]:`` that is not a definition) keeps the definition checked
as before. Only a bracket escaped by a backslash is left out: no renderer starts a
reference there.

A used definition is checked as before: its URL must be retrieved, as a post or an
image. An image URL must not be reachable as a link, though: when some bracket outside
an image could name the label, the destination is also checked as a link.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

# A "[" after an odd run of backslashes is escaped: literal to every CommonMark renderer.
_BRACKETS = re.compile(r"(?<!\\)(?:\\\\)*\[((?:[^\[\]\\]|\\.){0,1000})\]", re.DOTALL)


def label_key(label: str) -> str:
    """Return the key two labels share whenever any renderer could match them (and more often)."""
    mapped = html.unescape(label.replace("\\", "")).lower().upper().casefold()
    return "".join(ch for ch in unicodedata.normalize("NFKD", mapped).casefold() if ch.isalnum())


@dataclass(frozen=True)
class LabelUses:
    """How often each label key appears in brackets: at all, and outside an image."""

    anywhere: Counter[str]
    """Every bracket pair (a definition's own label included)."""
    as_link: Counter[str]
    """Bracket pairs that are not an image's (``![d]``, or ``[d]`` right after ``![alt]``)."""


def label_uses(draft: str) -> LabelUses:
    """Count the label keys of every bracket pair in ``draft`` (definitions' own labels included)."""
    anywhere: Counter[str] = Counter()
    as_link: Counter[str] = Counter()
    image_until = -1  # where the last image's first bracket pair ended
    for match in _BRACKETS.finditer(draft):
        raw, at = match.group(1), match.start() + match.group(0).index("[")
        keys = {label_key(raw), label_key(" ".join(raw.split()).casefold())}
        anywhere.update(keys)
        # "!" unescaped right before, or the second pair of "![alt][d]": an image reference.
        image = draft[at - 1 : at] == "!" and draft[at - 2 : at - 1] != "\\"
        if not image and not (at == image_until and draft[at - 1 : at] == "]"):
            as_link.update(keys)
        image_until = match.end() if image else -1
    return LabelUses(anywhere, as_link)


def is_unused(label: str, uses: LabelUses) -> bool:
    """Whether no bracket but the definition's own could name ``label``."""
    return uses.anywhere[label_key(label)] < 2


def is_linked(label: str, uses: LabelUses) -> bool:
    """Whether some bracket but the definition's own could use ``label`` as a link, not an image."""
    return uses.as_link[label_key(label)] >= 2
