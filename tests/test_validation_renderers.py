"""One row per way a real renderer made an unchecked URL live (and per false reject).

Each REJECTED draft was accepted before and then rendered a URL nobody retrieved in at
least one of markdown-it + linkify, marked (GFM), micromark + GFM or Mermaid (the renderer
named in the comment); ``test_renderer_differential`` checks the same property on
thousands of drafts. Each ACCEPTED draft was rejected before although no renderer makes
an unretrieved URL live in it.
"""

from __future__ import annotations

import pytest

from askai_graph.evidence.results import ImageRef, SearchResult
from askai_graph.validation import validate_draft

LINK = "https://docs.example.com/a"
WIKI = "https://en.example.org/wiki/Foo_(bar)"
QUOTED = "https://en.example.org/wiki/Don't_Panic"
PIPED = "https://fonts.example.com/css?family=A|B"
EVIL = "https://evil.example/x"
IMAGE = "https://docs.example.com/img/a.png"
RESULTS = [
    SearchResult(title="A", source_url=LINK, content="A.", images=(ImageRef(url=IMAGE, alt="a"),)),
    SearchResult(title="Foo", source_url=WIKI, content="Foo."),
    SearchResult(title="Don't Panic", source_url=QUOTED, content="Towel."),
    SearchResult(title="Fonts", source_url=PIPED, content="Fonts."),
]


def mermaid(body: str) -> str:
    return f"```mermaid\n{body}\n```\n"


REJECTED = [
    # 1. schemes linkify-it links besides http(s)
    ("bare_ftp_url", "Get it at ftp://evil.example/x today.", "disallowed_scheme"),  # linkify, marked
    ("www_after_a_bracket", "See [x]www.evil.example/x now.", "unknown_citation_url"),  # micromark
    ("bare_protocol_relative_url", "Get it at (//evil.example/x) today.", "relative_url"),  # linkify
    # 2. e-mail addresses
    ("email_with_idn_domain", "Mail ops@bücher.example now.", "disallowed_scheme"),  # linkify
    ("email_with_plus_in_domain", "Mail ops@evil+x.example now.", "disallowed_scheme"),  # linkify
    # 3. entities and escapes are linked raw, not decoded
    ("entity_inside_bare_url", "See https://docs.example.co&#109;/a now.", "malformed_url"),  # all autolinkers
    ("named_entity_inside_bare_url", "See https://docs.example.com/a&amp;b now.", "malformed_url"),
    ("escape_inside_bare_url", "See https://docs.example.com\\/a now.", "malformed_url"),
    # 4. trailing punctuation linkify-it keeps
    ("trailing_underscore", f"See {LINK}_ now.", "unknown_citation_url"),  # linkify: ".../a_"
    ("trailing_tilde", f"See {LINK}~ now.", "unknown_citation_url"),
    ("trailing_colon", f"See {LINK}: it explains.", "unknown_citation_url"),
    ("underscore_emphasis_around_url", f"Read _{LINK}_.", "unknown_citation_url"),
    # 5. emphasis delimiters inside a bare URL
    ("emphasis_closing_inside_url", f"_{WIKI}_", "unknown_citation_url"),  # marked: ".../Foo"
    ("emphasis_opened_earlier", f"_see {WIKI} now_", "unknown_citation_url"),
    # 6. GFM tables mistletoe does not recognise
    ("table_without_outer_pipes", f"a | b\n- | -\n{LINK}|x\n", "unknown_citation_url"),
    # a stray backtick in link text: marked reads no link, and autolinks the destination
    ("image_with_a_backtick_in_its_alt_text", "![a di`agram](https://docs.example.com/a.png)", "unknown_citation_url"),
    # 7. Mermaid statements and directives
    ("mermaid_click_after_semicolon", mermaid('graph TD\nA-->B;click B "/relative/path"'), "relative_url"),
]  # fmt: skip

# Limits of the new exemptions and readings (these were rejected before too): what they
# must still reject.
REJECTED += [
    ("bare_mailto_url", "Write to mailto:ops@evil.example today.", "disallowed_scheme"),  # linkify
    ("semicolon_before_period", f"See {LINK};.", "unknown_citation_url"),  # linkify: ".../a;"
    ("url_running_into_a_pipe", f"see {LINK}|evil", "unknown_citation_url"),
    ("mermaid_two_statements", mermaid(f'graph TD\nA-->B; click A href "{EVIL}"'), "unknown_citation_url"),
    (
        "mermaid_gantt_click",
        mermaid(f'gantt\nsection A\nT :a1, 2024-01-01, 1d\nclick a1 href "{EVIL}"'),
        "unknown_citation_url",
    ),
    ("mermaid_class_click", mermaid(f'classDiagram\nclass Foo\nclick Foo href "{EVIL}"'), "unknown_citation_url"),
    # definitions that are not definitions to a renderer are prose, and autolinked
    ("definition_with_unbalanced_parenthesis", f"[c1]: {LINK}_(bar\n", "unknown_citation_url"),
    ("definition_with_blank_label", f"[\n ]: {EVIL}\n", "unknown_citation_url"),
    ("indented_code_in_a_list_item_is_checked", f"- item\n\n      {EVIL}\n", "unknown_citation_url"),
    # 8. found by a grid of drafts x renderer configurations
    ("quote_pairing_one_inside_the_url", f"See {QUOTED}' now.", "unknown_citation_url"),  # linkify: "...Panic'"
    ("quoted_url_with_a_quote_inside", f"See '{QUOTED}' now.", "unknown_citation_url"),  # linkify
    ("semicolon_before_a_less_than", f"See {LINK};< now.", "unknown_citation_url"),  # linkify: ".../a;"
    ("autolink_with_a_pipe_in_a_table_cell", f"| a | b |\n|---|---|\n| <{PIPED}> | c |\n", "unknown_citation_url"),
]  # fmt: skip

ACCEPTED = [
    ("url_in_plain_indented_code", "Run this:\n\n    curl https://evil.example/x\n    fetch('//evil.example/api')\n"),
    ("email_and_html_in_plain_indented_code", "Example:\n\n    ops@evil.example\n    <a href=\"x\">x</a>\n"),
    ("entity_spelled_scheme_is_not_a_link", "The prefix &#104;ttps://evil.example is literal."),
    ("www_after_a_slash_is_not_a_link", "Serve it from /var/www.evil.example today."),
    ("url_followed_by_quote", f"The guide (\"{LINK}\") says so."),
]  # fmt: skip


# Accepted before too: the raw-source scan must not start rejecting them.
ACCEPTED += [
    ("www_inside_a_word_is_not_a_link", "Use the wwwroot or www-data folder."),
    ("url_in_strong_emphasis", f"Read **{WIKI}** first."),
    ("emphasis_closed_before_url", f"_Note_: see {WIKI}."),
    ("two_urls_with_underscores", f"See {WIKI} and {WIKI}."),
    ("definition_title_mentions_a_url", f"See [a][r].\n\n[r]: {LINK} 'mirror at https://evil.example/x'\n"),
    ("url_as_its_own_link_text", f"See [{LINK}]({LINK})."),
    ("url_with_a_quote_inside", f"See {QUOTED} now."),
    ("autolink_with_a_pipe_outside_a_table", f"Fonts: <{PIPED}>."),
    # A definition no reference names links nothing (CommonMark examples 207, 563, 592).
    ("unused_definition_of_a_relative_url", "Some text.\n\n[foo]: /url\n"),
    ("definition_named_only_by_an_escaped_bracket", '\\[foo]\n\n[foo]: /url "title"\n'),
]  # fmt: skip

# Definitions: unused ones are read as the prose they would be if shown; used ones stay checked.
REJECTED += [
    ("unused_definition_of_an_unretrieved_url", f"Some text.\n\n[foo]: {EVIL}\n", "unknown_citation_url"),
    ("definition_named_in_another_case", "See [FOO].\n\n[foo]: /url\n", "relative_url"),
    ("definition_named_across_a_line_break", "See [a\nfoo][].\n\n[A foo]: /url\n", "relative_url"),
    ("definition_named_by_an_escaped_backslash", "See \\\\[foo].\n\n[foo]: /url\n", "relative_url"),
    ("definition_named_with_a_dotless_i", "See [ı].\n\n[I]: /url\n", "relative_url"),  # JS: lower, then upper
    ("two_unused_definitions_of_one_label", "Text.\n\n[foo]: /a\n[foo]: /b\n", "relative_url"),
    # Found by a definitions fuzz (accepted before this round too):
    # marked shows a quoted label's destination on the next line as text, and links it;
    ("image_url_on_the_line_after_a_quoted_label", f"> [d]:\n{IMAGE}\n", "unknown_citation_url"),
    # markdown-it matches [ı] to [I] and links the image URL.
    ("image_url_defined_for_a_link", f"1. [I]: {IMAGE} 't'\n[t][ı]\n", "unknown_citation_url"),
]  # fmt: skip
ACCEPTED += [("image_url_defined_for_images_only", f"![a][d] and ![d] and ![d][]\n\n[d]: {IMAGE}\n")]


# A code span holding "|" in a GFM table row: code to CommonMark, split cells to GFM.
ACCEPTED += [
    ("pipe_in_a_code_span_in_a_table", f"| a | b |\n|---|---|\n| `a|b` | [x]({LINK}) |\n"),
    ("spans_paired_differently_after_a_split", "| a | b |\n|---|---|\n| `x` | `y|z` and `w` |\n"),
]  # fmt: skip
REJECTED += [
    # marked starts a new text run, where a www. link may begin, after an escape or a link.
    ("www_after_an_escaped_backtick", "See \\`www.evil.example now.", "unknown_citation_url"),  # marked
    ("www_after_an_escaped_backslash", "See \\\\www.evil.example now.", "unknown_citation_url"),  # marked
    ("www_right_after_a_link", f"See [a]({LINK})www.evil.example now.", "unknown_citation_url"),  # marked
    # marked ends a list item at a lazy line opening like a fence ("``` y`" is none): the code span is left open
    ("fence_like_lazy_line_in_a_list_item", f"- `x ```\n{EVIL}\n``` y` 3\n", "ambiguous_code_block"),
    ("email_with_a_backtick_in_its_domain", "Write to '`@``evil.example today.", "disallowed_scheme"),  # linkify
    ("www_at_a_table_cells_start", "| a | b |\n|---|---|\n| x |www.evil.example |\n", "unknown_citation_url"),
]  # fmt: skip
REJECTED += [
    # GFM shows the link between the split spans; CommonMark hides it in code.
    ("link_between_spans_split_by_a_table", f"| a |\n|---|\n| `a | b` [e]({EVIL}) `c | d` |\n", "ambiguous_code_span"),
    ("url_running_into_a_split_span", "| a | b |\n|---|---|\n| https://x/a`b|c` | d |\n", "ambiguous_code_span"),
    ("www_in_a_split_span", "| a |\n|---|\n| `a|www.evil.example` |\n", "ambiguous_code_span"),
]  # fmt: skip


def test_an_unused_definition_of_a_retrieved_url_is_no_citation() -> None:
    report = validate_draft(f"Some text.\n\n[foo]: {LINK}\n", RESULTS)
    assert report.ok and report.cited_urls == []


@pytest.mark.parametrize(("draft", "code"), [(d, c) for _, d, c in REJECTED], ids=[i for i, _, _ in REJECTED])
def test_draft_a_renderer_would_leak_is_rejected(draft: str, code: str) -> None:
    report = validate_draft(draft, RESULTS)
    assert code in [issue.code for issue in report.errors], report.errors


@pytest.mark.parametrize("draft", [d for _, d in ACCEPTED], ids=[i for i, _ in ACCEPTED])
def test_draft_no_renderer_would_leak_is_accepted(draft: str) -> None:
    report = validate_draft(draft, RESULTS)
    assert report.ok, report.errors


MERMAID_LINKS = [
    ("c4_relative_link", 'C4Context\n  Person(a, "A", $link="/relative")', "relative_url"),
    ("kanban_ticket_base_url", "---\nconfig:\n  kanban:\n    ticketBaseUrl: '/t/#'\n---\nkanban\n  a", "relative_url"),
    ("click_in_second_statement_of_a_line", 'flowchart LR\n  A-->B; B-->C; click C "/x"', "relative_url"),
    # (accepted before too: guards the statement split)
    ("semicolon_inside_a_quoted_url", f'graph TD\n  A-->B\n  click A "{EVIL}?a=1;b"', "unknown_citation_url"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "code"), [(b, c) for _, b, c in MERMAID_LINKS], ids=[i for i, _, _ in MERMAID_LINKS])
def test_every_mermaid_link_directive_is_checked(body: str, code: str) -> None:
    report = validate_draft(f"```mermaid\n{body}\n```\n", RESULTS)
    assert code in [issue.code for issue in report.errors], report.errors
