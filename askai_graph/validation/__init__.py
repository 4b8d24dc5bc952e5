"""The Validation gate: deterministic checks that no unvetted URL reaches the reader.

``validate_draft(draft, search_results)`` never calls a model and never raises. It
reports every failure (not just the first), each with a stable code, a message and,
where known, the offending URL. The codes (``Code`` in ``codes.py``, all listed in
``ALL_CODES``):

=========================  ===========================================================
``empty_draft``            the draft is empty or whitespace only
``unparseable_markdown``   the validator failed on this input: rejected (fail closed)
``control_character``      C0/C1 control characters (not tab/newline), U+2028/U+2029
``unclosed_fence``         a code fence no closing fence ends (CommonMark §4.5)
``ambiguous_code_block``   mistletoe skips as code lines a CommonMark renderer shows
``ambiguous_code_span``    mistletoe's code spans differ from CommonMark's
``broken_link_syntax``     link syntax left literal around a URL (``[t](https://x``)
``empty_link_destination`` ``[t]()``, ``[t](<>)``, ``![a]()``
``unknown_citation_url``   ``Unknown citation URL: <url>``; a live link (inline,
                           reference, autolink, definition, bare URL, raw HTML,
                           Mermaid directive) that is not exactly a ``source_url``
``unknown_image_url``      ``Unknown image URL: <url>``; not a retrieved image URL
``disallowed_scheme``      scheme other than http(s): ``javascript:``, ``data:``,
                           ``mailto:`` (also bare e-mail addresses), ``file:``...
``relative_url``           no scheme: ``/path``, ``//host``, ``#frag``, ``?q``
``url_userinfo``           ``https://good@evil``
``malformed_url``          whitespace, control/format characters or a backslash in a URL,
                           no ``//host`` after the scheme, or a bare URL with an entity
                           or escape in its raw text (renderers link it undecoded)
``raw_html``               raw HTML outside code (also disallowed tags in Mermaid)
``unclosed_mermaid_block`` a Mermaid fence no closing fence ends
``unknown_mermaid_type``   first keyword not in the allowlist (or no keyword)
``mermaid_callback``       ``click id call fn()``, ``click id fn``, ``callback``
``unanchored_citation``    a citation's quote is not verbatim in the retrieved text of
                           its URL, or its anchor is neither a retrieved heading's nor
                           a text fragment of the quote (``citations``)
=========================  ===========================================================

How it reads a draft (one concept per module):

* ``blocks`` (with ``cursor``, results in ``structure``): CommonMark's block structure,
  i.e. which lines are fenced or indented code and whether every fence was closed;
* ``links`` (over ``parsing``): mistletoe's tree, i.e. inline, reference and autolinks,
  images, reference definitions, URLs shown as link text (``autolinks``) and broken
  link syntax;
* ``linkify``: bare URLs and e-mail addresses in the raw prose, every way an autolinker
  (linkify-it, marked, micromark) could read them;
* ``inline``: CommonMark's first inline pass, i.e. code spans, autolinks, raw HTML;
* ``fences``: every fence closed, and mistletoe hiding no text as code that
  CommonMark renderers show (compared line by line and code span by code span);
* ``mermaid``: diagram type and directive URLs; ``rawhtml``: URLs in HTML attributes;
* ``urls``: each destination's shape and exact membership.

Membership proves only that a URL belongs to this request's retrieved set.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from askai_graph.evidence.citations import Citation
from askai_graph.evidence.results import SearchResult, allowed_image_urls, allowed_link_urls
from askai_graph.validation.blocks import plain_indented_code, scan_blocks
from askai_graph.validation.citations import check_citations
from askai_graph.validation.codes import ALL_CODES, Code
from askai_graph.validation.fences import (
    fence_like_continuations,
    hidden_code_spans,
    hidden_text,
    unclosed_fences,
)
from askai_graph.validation.inline import scan_inlines
from askai_graph.validation.linkify import RawUrl, linkable_urls
from askai_graph.validation.links import definition_lines, walk_markdown
from askai_graph.validation.mermaid import DEFAULT_MERMAID_DIAGRAM_TYPES, check_mermaid, is_mermaid
from askai_graph.validation.rawhtml import html_destinations, raw_html_issue
from askai_graph.validation.references import is_linked, is_unused, label_uses
from askai_graph.validation.report import ValidationIssue, ValidationReport
from askai_graph.validation.urls import AllowedUrls, Destination, check_destination

DEFAULT_MAX_DRAFT_CHARS = 64_000
"""Longest draft validated: far beyond any answer, and still fast to check."""

__all__ = [
    "ALL_CODES",
    "DEFAULT_MAX_DRAFT_CHARS",
    "DEFAULT_MERMAID_DIAGRAM_TYPES",
    "Code",
    "ValidationIssue",
    "ValidationReport",
    "validate_draft",
]

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def validate_draft(
    draft: str,
    search_results: Sequence[SearchResult],
    *,
    mermaid_types: Collection[str] | None = None,
    max_chars: int = DEFAULT_MAX_DRAFT_CHARS,
    citations: Sequence[Citation] = (),
) -> ValidationReport:
    """Check a Markdown draft against the URLs retrieved for this request.

    Args:
        draft: The Writer's Markdown answer.
        search_results: This request's retrieved posts; their ``source_url`` values are
            the only citable URLs and their image URLs the only embeddable images.
        mermaid_types: Allowed Mermaid diagram types; ``None`` means
            ``DEFAULT_MERMAID_DIAGRAM_TYPES``.
        max_chars: Longer drafts are rejected unparsed: mistletoe's time grows
            super-linearly on some inputs (``"[a](" * 5000`` takes seconds).
        citations: The draft's anchored citations (``retrieval.anchoring``): each quote
            and anchor must be this request's retrieved text (``unanchored_citation``).

    Returns:
        A report listing every failure; ``report.ok`` when there is none.
    """
    issues: list[ValidationIssue] = []
    cited: list[str] = []
    try:
        if isinstance(draft, str) and len(draft) > max_chars:
            message = f"The draft is {len(draft)} characters; the limit is {max_chars}"
            issues.append(ValidationIssue(code=Code.DRAFT_TOO_LONG.value, message=message))
        else:
            cited = _validate(draft, search_results, mermaid_types, issues)
            issues.extend(check_citations(citations, search_results))
    except Exception as exc:  # noqa: BLE001 - a validator bug must reject, never accept or crash
        message = f"The draft could not be validated ({type(exc).__name__}); it is rejected"
        issues.append(ValidationIssue(code=Code.UNPARSEABLE_MARKDOWN.value, message=message))
    return ValidationReport(errors=_distinct(issues), cited_urls=cited)


def _validate(
    draft: str,
    search_results: Sequence[SearchResult],
    mermaid_types: Collection[str] | None,
    issues: list[ValidationIssue],
) -> list[str]:
    """Append every failure to ``issues``; return the retrieved post URLs linked live."""
    if not isinstance(draft, str):
        raise TypeError(f"draft must be a string, not {type(draft).__name__}")
    if not draft.strip():
        issues.append(ValidationIssue(code=Code.EMPTY_DRAFT.value, message="The draft is empty"))
        return []
    allowed = AllowedUrls(links=allowed_link_urls(search_results), images=allowed_image_urls(search_results))
    types = _diagram_types(mermaid_types)
    # CommonMark's line endings; mistletoe is only ever given "\n"-split lines.
    text = draft.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()

    if control := _CONTROL.search(text):
        line = text.count("\n", 0, control.start()) + 1
        message = f"Control character U+{ord(control.group()):04X} on line {line}"
        issues.append(ValidationIssue(code=Code.CONTROL_CHARACTER.value, message=message))

    scan = scan_blocks(lines)
    # Indented code is read as prose too where renderers may disagree that it is code.
    plain_code = [block for block in scan.text_blocks if plain_indented_code(block, lines)]
    plain_lines = frozenset(index for block in plain_code for index, _ in block.lines)
    text_blocks = [block for block in scan.text_blocks if block not in plain_code]
    walk = walk_markdown(lines, plain_lines)
    prose = scan_inlines(block.lines for block in text_blocks if block.kind != "indented")
    code_as_prose = scan_inlines(block.lines for block in text_blocks if block.kind == "indented")

    issues.extend(unclosed_fences(scan))
    issues.extend(hidden_text(scan, walk, lines))
    issues.extend(fence_like_continuations(scan))
    issues.extend(hidden_code_spans(prose.code_spans, walk.code_spans, lines))
    issues.extend(walk.issues)
    destinations = list(walk.destinations)
    for fence in scan.fences:
        if is_mermaid(fence.info):
            mermaid_issues, mermaid_destinations = check_mermaid(fence, types)
            issues.extend(mermaid_issues)
            destinations.extend(mermaid_destinations)
    for snippet in prose.raw_html + code_as_prose.raw_html + walk.raw_html:
        issues.append(raw_html_issue(snippet))
        destinations.extend(html_destinations(snippet))
    destinations.extend(Destination("link", url, "autolink") for url in prose.autolinks + code_as_prose.autolinks)
    for block_text in prose.texts + code_as_prose.texts:
        _bare_urls(block_text, destinations, issues)
    # Every text block: a setext heading may open with definitions, and renderers
    # disagree about indented code. A definition no reference could use links nothing
    # (``references``): its destination is read as the prose it would be if shown.
    uses, unused = label_uses(text), list[Destination]()  # unused: checked, never a citation
    for label, definition in walk.definitions + definition_lines(block.lines for block in text_blocks):
        if label is not None and is_unused(label, uses):  # still one of the two sets, as a definition is
            found: list[Destination] = []
            _bare_urls(definition.url, found, issues)
            unused.extend(Destination("definition", d.url, "unused reference definition") for d in found)
        else:
            destinations.append(definition)
            if label is not None and is_linked(label, uses):  # an image's URL named by a link
                destinations.append(Destination("link", definition.url, "reference definition used as a link"))
    distinct = list(dict.fromkeys(destinations))  # each distinct use once, in order
    for destination in distinct + unused:
        issues.extend(check_destination(destination, allowed))
    cited = (d.url for d in distinct if d.kind == "link" and d.url in allowed.links)
    return list(dict.fromkeys(cited))


def _bare_urls(text: str, destinations: list[Destination], issues: list[ValidationIssue]) -> None:
    """Add what an autolinker could make live in ``text``; a URL it would link as written is refused."""
    for found in linkable_urls(text):
        if isinstance(found, RawUrl):
            message = f"Bare URL rejected as written, {found.reason}: {found.text}"
            issues.append(ValidationIssue(code=Code.MALFORMED_URL.value, message=message, url=found.text))
        else:
            destinations.append(found)


def _diagram_types(mermaid_types: Collection[str] | None) -> frozenset[str]:
    if mermaid_types is None:
        return DEFAULT_MERMAID_DIAGRAM_TYPES
    if isinstance(mermaid_types, str):
        return frozenset({mermaid_types})  # one type, not its characters
    return frozenset(mermaid_types)


def _distinct(issues: list[ValidationIssue]) -> list[ValidationIssue]:
    """Keep the first report of each failure: one per code and URL, or per message."""
    seen: set[tuple[str, str | None, str | None]] = set()
    distinct = []
    for issue in issues:
        key = (issue.code, issue.url, issue.message if issue.url is None else None)
        if key not in seen:
            seen.add(key)
            distinct.append(issue)
    return distinct
