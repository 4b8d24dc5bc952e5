"""The one fence for untrusted text in a prompt: pages, history turns, questions, drafts.

Every prompt puts text that someone else wrote (a site's pages, the reader's earlier
turns and question, the Writer's draft) inside labelled ``<source>``, ``<turn>`` or
``<draft>`` blocks. ``fence`` makes sure such text can neither close its block nor open
a forged one, whatever spelling a model would still read as the tag: any case, spaces
around the slash, full-width or small forms (``＜／ＴＵＲＮ``, ``﹤source``), look-alike
slashes, and invisible characters inside the tag (``</tu\u200brn>``).
"""

from __future__ import annotations

import re
import unicodedata

from askai_graph.text.plain import strip_invisible

TAGS = ("source", "draft", "turn")
"""The block names the prompts use (``prompts.py``)."""

# Matched on the compatibility-folded text (NFKC, casefolded), so ``＜`` and ``﹤`` are
# ``<`` and ``ＴＵＲＮ`` is ``turn``. Angle brackets (``‹``, ``〈``, ``⟨``, ``˂``) and
# slashes (``∕``, ``⁄``) that do not fold to ``<`` and ``/`` still read as them.
_DELIMITER = re.compile(r"[<\u02c2\u2039\u2329\u27e8\u3008](\s*[/\u2215\u2044]?\s*)(" + "|".join(TAGS) + r")\b")


def fence(text: str) -> str:
    r"""Return ``text`` safe to put inside a prompt's untrusted-data block.

    Invisible characters go first (a zero-width space inside a tag is still a tag to a
    reader); then every tag-like spelling of a block delimiter gets a backslash after its
    ``<`` (``</turn`` becomes ``<\/turn``, ``<source`` becomes ``<\source``). All other
    text is kept as it was.
    """
    text = strip_invisible(text)
    folded, origin = _folded(text)
    pieces: list[str] = []
    done = 0
    for match in _DELIMITER.finditer(folded):
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        if start < done:  # two matches inside one folded character: already neutralised
            continue
        slash = "/" if match.group(1).strip() else ""
        pieces += [text[done:start], "<\\", slash, match.group(2)]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _folded(text: str) -> tuple[str, list[int]]:
    """Return ``text`` folded character by character and, per folded character, its origin."""
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        form = unicodedata.normalize("NFKC", char).casefold() if not char.isascii() else char.lower()
        folded.append(form)
        origin.extend([index] * len(form))
    return "".join(folded), origin
