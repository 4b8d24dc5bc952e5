"""The names an answer must carry: the API a question names, or the one spelled from its words.

"How do I use `setTimeout` in a test?" names the thing to talk about; "How do I run only
the tests related to the files I changed?" names nothing, but the reference page it is
answered from heads an entry ```--onlyChanged``` whose every part is a word of the
question. When the retrieved sections hold such a name, an answer quoting a neighbouring
element instead (``--findRelatedTests``, ``setupFiles``) answers another question,
however many words it shares with this one. The offline Critic refuses it, and the gap
(the name) steers the next Research pass and the Writer to the right entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from askai_graph.retrieval.sections import Section
from askai_graph.text.identifiers import name_match, name_parts, question_stems, span_names

# An identifier a reader types as such: a code span, a command-line flag, camelCase,
# snake_case, a dotted name or a call ("setTimeout", "parse_obj", "jest.fn", "dict()").
_SPAN = re.compile(r"`([^`\n]+)`")
_IDENTIFIER = re.compile(
    r"(?<![\w-])(?:--?[A-Za-z][\w-]*"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
    r"|[a-z]+[A-Z]\w*"
    r"|[A-Za-z]\w*_\w+"
    r"|[A-Za-z_]\w*(?=\(\)))"
)
MIN_PARTS = 2
"""A name spelled from the question must have this many parts: one word ("test") names nothing in particular."""


def question_identifiers(question: str) -> list[str]:
    """Return the identifiers ``question`` writes as code, in order (``setTimeout``, ``parse_obj``, ``--watch``).

    A version or a bare word is no identifier; "e.g." and "i.e." are abbreviations.
    """
    found = [span.strip() for span in _SPAN.findall(question)]
    found += [match.group(0).rstrip(".") for match in _IDENTIFIER.finditer(_SPAN.sub(" ", question))]
    return [name for name in dict.fromkeys(found) if name and name.lower() not in {"e.g", "i.e"}]


def spelled_headings(question: str, sections: Sequence[Section]) -> list[str]:
    """Return the names section headings give whose every part is a word of ``question`` (two parts at least).

    ```--onlyChanged``` for "only the tests related to the files I changed",
    ```beforeEach(fn)``` for "setup before each test". A heading is where a reference
    page names the entry a section is about; a name met only in prose is an example's
    variable as often as the API.
    """
    stems = question_stems(question)
    found = []
    for section in sections:
        for name in span_names(section.heading):
            if len(name_parts(name)) >= MIN_PARTS and name_match(stems, name) >= 1.0:
                found.append(name)
    return list(dict.fromkeys(found))


def carries(text: str, name: str) -> bool:
    """Whether lower-cased ``text`` holds ``name`` as a whole identifier: ``parse_obj_as`` is not ``parse_obj``."""
    return re.search(rf"(?<![\w$-]){re.escape(name.lower())}(?![\w$-])", text) is not None


def missing_name(question: str, draft: str, sections: Sequence[Section], lead_heading: str = "") -> str | None:
    """Return the name the draft should carry and does not, or None.

    The question's own identifiers first: each must be in the draft when a retrieved
    section has it (the site talks about it, and an answer without it talks about
    something else). Then, when the draft leads with a reference entry (``lead_heading``,
    the heading of the section its first claim comes from, names an API), the names
    headings spell from the question's words: an entry named otherwise is the
    neighbouring one, unless the draft carries one of those names anyway. A draft
    leading with a guide's prose may answer with another API altogether (``jsdom`` for
    a browser-like environment, not ``testEnvironment``). Matching is case-insensitive
    and ignores a flag's dashes.
    """
    text = draft.lower()
    retrieved = "\n".join(f"{section.heading}\n{section.text}" for section in sections).lower()
    for name in question_identifiers(question):
        if carries(retrieved, name) and not carries(text, name):
            return name
    if not span_names(lead_heading):
        return None
    names = spelled_headings(question, sections)
    if names and not any(name.lower().lstrip("-") in text for name in names):
        return names[0]
    return None
