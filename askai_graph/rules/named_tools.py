"""A question about another tool: a tool or product it names that the retrieved pages never mention.

"In Mocha, how do I set a root hook plugin?" on a Jest site, "How do I configure Black's
line length?" on a FastAPI site: the words around the name ("root", "hook", "line",
"length") are the site's own words too, so the relevance floor lets pages through and the
Writer quotes a neighbouring option. The name is decisive: when no retrieved page mentions
it (or, for a name the question only capitalises, when the site never uses it), no page
answers the question, and Research keeps nothing (the run ends in fallback, with no site
text under it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from askai_graph.evidence.results import SearchResult
from askai_graph.text.terms import STOP_WORDS, stem

# A capitalised word that does not open a sentence ("In Mocha, how ...", "make Prettier use").
_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![\w'’.@/-])([A-Z][A-Za-z0-9+#]*[a-z][A-Za-z0-9+#]*)\b")
# A possessive names its owner ("Black's line length").
_POSSESSIVE = re.compile(r"\b([A-Za-z][\w+#-]*)['’]s\b")
# The word closing the question after "in", "with", "using" or "via" ("... in git?").
_CLOSING = re.compile(r"\b(?:in|with|using|via)\s+([A-Za-z][\w+#-]*)\s*[?.!]*\s*$", re.IGNORECASE)
# The word after an opening "In", "With" or "Using" and before a comma ("In Mocha, how ...?").
_OPENING = re.compile(r"^\s*(?:in|with|using)\s+([A-Za-z][\w+#-]*)\s*,", re.IGNORECASE)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")
# Words a reader capitalises that name no tool.
_NOT_NAMES = frozenset("i is it my how what why when where which who can could should would does do".split())


def named_tools(question: str) -> list[tuple[str, bool]]:
    """Return the names ``question`` gives a tool or product, lower-cased, in order, each with whether it is pointed.

    A capitalised word that does not open a sentence names one; a possessive's owner
    ("Black's"), the word closing the question after "in", "with", "using" or "via"
    ("... in git?") or the one an opening "In ..., " sets ("In Mocha, how ...?") is
    *pointed*: the question is about that tool. Code spans and
    identifiers are the site's API, not another tool: they are left to the asked-name rule.
    """
    # Code, identifiers (``a.b``, ``f(``, ``snake_case``) and quoted text (a pasted error message) name no tool.
    prose = _QUOTED.sub(" ", re.sub(r"`[^`]*`|\S*(?:_|\.\w|\()\S*", " ", question.strip()))
    found = [(match.group(1), False) for match in _CAPITALISED.finditer(prose)]
    found += [(match.group(1), True) for match in _POSSESSIVE.finditer(prose)]
    found += [(match.group(1), True) for match in _CLOSING.finditer(prose)]
    found += [(match.group(1), True) for match in _OPENING.finditer(prose)]
    names: dict[str, bool] = {}
    for name, pointed in found:
        if name.lower() not in _NOT_NAMES and name.lower() not in STOP_WORDS and len(name) > 1:
            names[name.lower()] = names.get(name.lower(), False) or pointed
    return list(names.items())


def unmentioned_tools(
    question: str, results: Sequence[SearchResult], site_uses: Callable[[str], bool] | None = None
) -> list[str]:
    """Return the tools ``question`` names that show it is about another tool than the site's.

    A pointed name (``named_tools``) no page of ``results`` mentions (title or text, any
    case or ending); a capitalised name the site never uses at all (``site_uses``, the
    index's vocabulary): "In Mocha, ..." on a Jest site. A capitalised name the site
    uses elsewhere ("My SQLAlchemy table ...") is the reader's context, not the subject.
    """
    names = named_tools(question)
    if not names or not results:
        return []
    text = "\n".join(f"{result.title}\n{result.content}" for result in results).lower()
    found = []
    for name, pointed in names:
        # Its stem opening a word: "stubs" is mentioned by a page saying "stub out".
        if re.search(rf"(?<![\w-]){re.escape(stem(name))}", text) is not None:
            continue
        if pointed or (site_uses is not None and not site_uses(stem(name))):
            found.append(name)
    return found
