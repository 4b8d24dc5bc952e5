"""Mermaid blocks: closed, of an allowed diagram type, and with every URL checked.

Mermaid's own type detectors match prefixes (``graphTD`` is a flowchart to Mermaid); the
gate accepts only an exact first keyword from an allowlist, so a draft cannot reach a
diagram type (or a future parser) nobody reviewed. URLs in ``click``/``link``/``links``
directives become live links in the rendered SVG, so they are checked like Markdown
links; ``call``/``callback`` directives run script and are refused outright.
"""

from __future__ import annotations

import html
import json
import re

from askai_graph.validation.autolinks import trim_url
from askai_graph.validation.codes import Code
from askai_graph.validation.links import BACKSLASH_ESCAPE
from askai_graph.validation.rawhtml import TAG, html_destinations
from askai_graph.validation.report import ValidationIssue
from askai_graph.validation.structure import Fence
from askai_graph.validation.urls import Destination

DEFAULT_MERMAID_DIAGRAM_TYPES: frozenset[str] = frozenset(
    {
        "flowchart", "graph", "sequenceDiagram", "classDiagram", "classDiagram-v2", "stateDiagram",
        "stateDiagram-v2", "erDiagram", "journey", "gantt", "pie", "quadrantChart", "requirementDiagram",
        "gitGraph", "C4Context", "C4Container", "C4Component", "C4Dynamic", "C4Deployment", "mindmap",
        "timeline", "kanban", "sankey-beta", "sankey", "xychart-beta", "xychart", "block-beta", "block",
        "packet-beta", "packet", "architecture-beta", "radar-beta", "treemap", "treemap-beta", "venn-beta",
        "ishikawa-beta", "ishikawa", "wardley-beta", "treeView-beta",
    }
)  # fmt: skip
"""Diagram types of Mermaid 11.14: an exact allowlist (Mermaid's own detectors match prefixes)."""

_DIRECTIVE = re.compile(r"%%\{.*?\}%%", re.DOTALL)
_KEYWORD = re.compile(r"[A-Za-z0-9_-]+")
_QUOTED = re.compile(r'"([^"]*)"')
_CALLBACK = re.compile(r'callback\s+\S+\s+"')
_CLICK = re.compile(r"click\s+\S+\s+(.*)")
_CLASS_LINK = re.compile(r"link\s+\S+\s+\"([^\"]*)\"")
_SEQUENCE_LINK = re.compile(r"link\s+[^:]+:[^@]*@\s*(\S*)")
_SEQUENCE_LINKS = re.compile(r"links\s+[^:]+:\s*(.*)")
# URLs anywhere in the diagram (labels, C4 ``$link``, kanban ``ticketBaseUrl``...).
_ANY_URL = re.compile(r"(?i)(?:https?://|www\.)[^\s\"'<>`|\]}]+|\b(?:javascript|vbscript):[^\s\"'<>`]*")
# ";" outside double-quoted strings.
_STATEMENT_END = re.compile(r';(?=(?:[^"]*"[^"]*")*[^"]*$)')
# C4 "$link" parameters and kanban's "ticketBaseUrl" (front matter or init directive).
_VALUED_LINK = re.compile(r"""(?:\$link|ticketBaseUrl)["']?\s*[=:]\s*["']([^"'\n]*)["']""")
_FORMATTING_TAG = re.compile(r"<\s*/?\s*(?:br|b|i|em|strong|u|sub|sup|small|code)\s*/?\s*>", re.IGNORECASE)


def is_mermaid(info: str) -> bool:
    """Whether a fence's info string makes it a Mermaid diagram to a renderer.

    The first word is unescaped and compared case-insensitively, so ``&#109;ermaid`` or
    ``Mermaid`` cannot slip a diagram past these checks.
    """
    words = html.unescape(BACKSLASH_ESCAPE.sub(r"\1", info)).split()
    return bool(words) and words[0].casefold() == "mermaid"


def check_mermaid(fence: Fence, diagram_types: frozenset[str]) -> tuple[list[ValidationIssue], list[Destination]]:
    """Check one Mermaid fence; return its issues and the URLs it would make live."""
    issues: list[ValidationIssue] = []
    line = fence.opener + 1
    if not fence.closed:
        message = f"Mermaid block opened on line {line} is never closed"
        issues.append(ValidationIssue(code=Code.UNCLOSED_MERMAID_BLOCK.value, message=message))
    keyword, problem = _first_keyword(fence.content)
    if problem is not None:
        message = f"Mermaid block on line {line}: {problem}"
        issues.append(ValidationIssue(code=Code.UNKNOWN_MERMAID_TYPE.value, message=message))
    elif keyword not in diagram_types:
        message = f"Mermaid block on line {line}: unsupported diagram type '{keyword}'"
        issues.append(ValidationIssue(code=Code.UNKNOWN_MERMAID_TYPE.value, message=message))
    destinations: list[Destination] = []
    for statement in _statements(fence.content):
        callback = _directive_urls(statement, destinations)
        if callback:
            message = f"Mermaid block on line {line}: script callbacks are not allowed ({statement})"
            issues.append(ValidationIssue(code=Code.MERMAID_CALLBACK.value, message=message))
    body = "\n".join(fence.content)
    for match in _VALUED_LINK.finditer(body):
        destinations.append(Destination("link", match.group(1), "Mermaid link parameter"))
    seen = {d.url for d in destinations}
    for match in _ANY_URL.finditer(body):
        url = trim_url(match.group())
        if url.lower().startswith("www."):
            url = "http://" + url
        if url not in seen:
            destinations.append(Destination("link", url, "Mermaid diagram"))
            seen.add(url)
    for tag in TAG.finditer(body):
        if not _FORMATTING_TAG.fullmatch(tag.group()):
            message = f"Raw HTML in Mermaid block on line {line}: {tag.group()}"
            issues.append(ValidationIssue(code=Code.RAW_HTML.value, message=message))
    destinations.extend(html_destinations(body))
    return issues, destinations


def _statements(content: tuple[str, ...]) -> list[str]:
    """Every statement: Mermaid ends one at a newline or at a ``;`` outside quotes.

    Whole lines are kept too, so a directive is found however a diagram type splits it.
    """
    statements = []
    for text in content:
        statements.append(text.strip())
        parts = _STATEMENT_END.split(text)
        if len(parts) > 1:
            statements.extend(part.strip() for part in parts)
    return [s for s in statements if s]


def _first_keyword(content: tuple[str, ...]) -> tuple[str, str | None]:
    """Return the diagram keyword, or ``("", problem)`` when there is none."""
    lines = list(content)
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            return "", "front matter is never closed with '---'"
        lines = lines[end + 1 :]
    for text in _DIRECTIVE.sub("", "\n".join(lines)).split("\n"):
        stripped = text.strip()
        if not stripped or stripped.startswith("%%"):
            continue
        match = _KEYWORD.match(stripped)
        return (match.group(), None) if match else ("", f"no diagram type before '{stripped[:40]}'")
    return "", "no diagram type (empty diagram)"


def _directive_urls(text: str, destinations: list[Destination]) -> bool:
    """Collect the URL of a link directive; return True for a script callback."""
    if _CALLBACK.match(text):
        return True
    if click := _CLICK.fullmatch(text):
        rest = click.group(1).strip()
        if rest.startswith("href"):
            rest = rest[4:].strip()
        elif not rest.startswith('"'):
            return True  # "click id call fn()" or "click id fn": a JavaScript callback
        if quoted := _QUOTED.match(rest):
            destinations.append(Destination("link", quoted.group(1), "Mermaid click directive"))
        elif rest.startswith('"'):
            # Mermaid reads an unclosed string on into the next lines: check it as written.
            destinations.append(Destination("link", rest, "Mermaid click directive"))
    elif links := _SEQUENCE_LINKS.fullmatch(text):
        for url in _json_values(links.group(1)):
            destinations.append(Destination("link", url, "Mermaid links directive"))
    elif link := _CLASS_LINK.match(text) or _SEQUENCE_LINK.match(text):
        destinations.append(Destination("link", link.group(1), "Mermaid link directive"))
    return False


def _json_values(text: str) -> list[str]:
    """String values of a ``links`` JSON object (every quoted string if it is not JSON)."""
    try:
        data = json.loads(text)
    except ValueError:
        return _QUOTED.findall(text)
    if not isinstance(data, dict):
        return _QUOTED.findall(text)
    return [value if isinstance(value, str) else json.dumps(value) for value in data.values()]
