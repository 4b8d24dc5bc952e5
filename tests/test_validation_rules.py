"""One row per Validation rule and per trick: each draft must fail with the stated code.

Rules are numbered as in issue 3: 1 fences, 2 links parse, 3 every live URL is checked,
4 membership is exact, 5 schemes and URL shape, 6 Mermaid, 7 nesting, 8 full reports.
"""

from __future__ import annotations

import pytest

from askai_graph.evidence.results import ImageRef, SearchResult
from askai_graph.validation import ALL_CODES, validate_draft

LINK1 = "https://site.example/posts/1"
LINK2 = "https://site.example/posts/2"
IMG1 = "https://site.example/img/1.png"
EVIL = "https://evil.example/x"
EVIL_IMG = "https://evil.example/x.png"

RESULTS = [
    SearchResult(title="Page 1", source_url=LINK1, content="One.", images=(ImageRef(url=IMG1, alt="diagram"),)),
    SearchResult(title="Page 2", source_url=LINK2, content="Two."),
]


def mermaid(body: str, fence: str = "```mermaid") -> str:
    closer = "~~~" if fence.startswith("~") else "```"
    return f"Diagram:\n\n{fence}\n{body}\n{closer}\n"


REJECTED = [
    # 1. Fences (CommonMark §4.5)
    ("unclosed_backtick_fence", "Intro\n\n```python\nprint(1)\n", "unclosed_fence"),
    ("unclosed_tilde_fence", "~~~\ncode\n", "unclosed_fence"),
    ("closing_fence_with_info_string_does_not_close", "```\ncode\n```python\n", "unclosed_fence"),
    ("shorter_closing_fence_does_not_close", "````\ncode\n```\n", "unclosed_fence"),
    ("other_character_does_not_close", "```\ncode\n~~~\n", "unclosed_fence"),
    ("closer_indented_four_spaces_does_not_close", "```\ncode\n    ```\n", "unclosed_fence"),
    ("closer_with_internal_space_does_not_close", "~~~~~~\ncode\n~~~ ~~\n", "unclosed_fence"),
    ("fence_ended_by_its_list_item", "- ```\n  code\n\nafter\n", "unclosed_fence"),
    ("fence_ended_by_its_block_quote", "> ```\n> code\n\nafter\n", "unclosed_fence"),
    ("under_indented_closer_leaves_the_list_item", "1. Run:\n   ```bash\n   pip install x\n```\n", "unclosed_fence"),
    (
        "link_hidden_from_mistletoe_by_an_info_string_closer",
        f"```\n```foo\n```\n[x]({EVIL})\n```\n```\n",
        "ambiguous_code_block",
    ),
    ("backtick_info_string_is_not_a_fence", f"``` a`b\n[x]({EVIL})\n```\n```\n", "unknown_citation_url"),
    ("indented_code_is_still_checked", f"Text\n\n    [x]({EVIL})\n", "unknown_citation_url"),
    ("raw_html_in_indented_code_is_still_checked", ">\n    ><a href='x'>\n", "raw_html"),
    (
        "link_hidden_in_an_info_string_mistletoe_invents",
        f")\n\t>!\n\t```[x]({EVIL})\n",
        "ambiguous_code_block",
    ),
    ("link_hidden_from_mistletoe_in_a_code_span", f"\\``a` [x]({EVIL}) `b``", "ambiguous_code_span"),
    # 2. Links and images parse
    ("empty_inline_destination", "See [post]().", "empty_link_destination"),
    ("empty_angle_destination", "See [post](<>).", "empty_link_destination"),
    ("empty_image_destination", "![diagram]()", "empty_link_destination"),
    ("empty_reference_definition", "[post][d]\n\n[d]: <>\n", "empty_link_destination"),
    ("unclosed_inline_link", f"See [post]({LINK1}", "broken_link_syntax"),
    ("unclosed_inline_image", f"![diagram]({IMG1}", "broken_link_syntax"),
    ("unclosed_angle_destination", f"See [post](<{LINK1}).", "broken_link_syntax"),
    ("space_inside_destination", f"See [post]({LINK1} oops).", "broken_link_syntax"),
    ("space_between_text_and_destination", f"See [post] ({LINK1}).", "broken_link_syntax"),
    # 3. Every URL that renders live is checked
    ("inline_link", f"See [post]({EVIL}).", "unknown_citation_url"),
    ("inline_link_with_allowed_url_as_title", f'See [post]({EVIL} "{LINK1}").', "unknown_citation_url"),
    ("angle_bracket_destination", f"See [post](<{EVIL}>).", "unknown_citation_url"),
    ("autolink", f"See <{EVIL}>.", "unknown_citation_url"),
    ("email_autolink", "Write to <someone@evil.example>.", "disallowed_scheme"),
    ("full_reference_link", f"See [post][ref].\n\n[ref]: {EVIL}\n", "unknown_citation_url"),
    ("collapsed_reference_link", f"See [ref][].\n\n[ref]: {EVIL}\n", "unknown_citation_url"),
    ("shortcut_reference_link", f"See [ref].\n\n[ref]: {EVIL}\n", "unknown_citation_url"),
    ("case_folded_reference_label", f"See [post][REF].\n\n[ref]: {EVIL}\n", "unknown_citation_url"),
    ("unused_reference_definition", f"Plain text.\n\n[unused]: {EVIL}\n", "unknown_citation_url"),
    ("shadowed_duplicate_definition", f"See [ref].\n\n[ref]: {LINK1}\n[ref]: {EVIL}\n", "unknown_citation_url"),
    ("definition_destination_on_next_line", f"See [ref].\n\n[ref]:\n{EVIL}\n", "unknown_citation_url"),
    ("definition_opening_a_setext_heading", f"[ref]: {EVIL}\nTitle\n---\n", "unknown_citation_url"),
    ("gfm_footnote_with_a_bare_url", f"Claim.[^1]\n\n[^1]: {EVIL}\n", "unknown_citation_url"),
    ("reference_image", f"![d][img]\n\n[img]: {EVIL_IMG}\n", "unknown_image_url"),
    ("raw_html_anchor_even_to_an_allowed_url", f'<a href="{LINK1}">post</a>', "raw_html"),
    ("raw_html_anchor_url_is_checked", f'Read <a href="{EVIL}">this</a>.', "unknown_citation_url"),
    ("raw_html_img_url_is_checked", f'<img src="{EVIL_IMG}">', "unknown_image_url"),
    ("raw_html_block", f"<div>\n[x]({LINK1})\n</div>\n", "raw_html"),
    ("raw_html_comment", "Text <!-- hidden --> here.", "raw_html"),
    ("raw_html_in_heading", "# Title <span>x</span>", "raw_html"),
    ("raw_html_empty_comment", "Text <!--> here.", "raw_html"),
    ("raw_html_comment_with_dashes", "Text <!-- a -- b --> here.", "raw_html"),
    ("raw_html_lowercase_declaration", "<!doctype html>", "raw_html"),
    ("raw_html_block_start_interrupting_a_paragraph", "Text\n<div class\nmore", "raw_html"),
    ("raw_html_processing_instruction", "Text <?php echo 1; ?> here.", "raw_html"),
    ("generic_type_outside_code_is_html", "Use List<String> here.", "raw_html"),
    ("autolink_that_a_code_span_would_split", "<javascript:alert(1)`>`", "disallowed_scheme"),
    ("bare_https_url", f"More at {EVIL} today.", "unknown_citation_url"),
    ("bare_http_url", "More at http://evil.example/x today.", "unknown_citation_url"),
    ("bare_www_url", "More at www.evil.example/x today.", "unknown_citation_url"),
    ("bare_url_in_parentheses", f"More (see {EVIL}).", "unknown_citation_url"),
    ("bare_url_in_strong_emphasis", f"More at **{EVIL}**.", "unknown_citation_url"),
    ("bare_url_running_into_emphasis", f"More at {LINK1}*x*.", "unknown_citation_url"),
    ("bare_url_in_table_cell", f"| a | b |\n|---|---|\n| x | {EVIL} |\n", "unknown_citation_url"),
    ("bare_url_in_table_header", f"| {EVIL} | b |\n|---|---|\n| x | y |\n", "unknown_citation_url"),
    ("bare_url_in_heading", f"## From {EVIL}\n", "unknown_citation_url"),
    ("bare_url_as_link_text", f"See [{EVIL}]({LINK1}).", "unknown_citation_url"),
    ("bare_email_address", "Write to someone@evil.example for access.", "disallowed_scheme"),
    ("bare_url_after_escaped_brackets", f"\\[x\\] {EVIL}", "unknown_citation_url"),
    # 4. Membership is exact
    ("trailing_slash", f"[p]({LINK1}/)", "unknown_citation_url"),
    ("host_case", "[p](https://SITE.example/posts/1)", "unknown_citation_url"),
    ("path_case", "[p](https://site.example/Posts/1)", "unknown_citation_url"),
    ("scheme_case", "[p](HTTPS://site.example/posts/1)", "unknown_citation_url"),
    ("http_instead_of_https", "[p](http://site.example/posts/1)", "unknown_citation_url"),
    ("fragment_added", f"[p]({LINK1}#intro)", "unknown_citation_url"),
    ("query_added", f"[p]({LINK1}?utm_source=x)", "unknown_citation_url"),
    ("default_port_added", "[p](https://site.example:443/posts/1)", "unknown_citation_url"),
    ("percent_encoded_path", "[p](https://site.example/posts/%31)", "unknown_citation_url"),
    ("punycode_host", "[p](https://xn--sit-dma.example/posts/1)", "unknown_citation_url"),
    ("homoglyph_host", "[p](https://s\u0456te.example/posts/1)", "unknown_citation_url"),
    ("entity_encoded_unknown_url", "[p](&#104;ttps://evil.example/x)", "unknown_citation_url"),
    ("post_url_used_as_image", f"![p]({LINK1})", "unknown_image_url"),
    ("image_url_used_as_link", f"[p]({IMG1})", "unknown_citation_url"),
    # 5. Schemes and URL shape
    ("javascript_scheme", "[p](javascript:alert(1))", "disallowed_scheme"),
    ("javascript_mixed_case", "[p](JaVaScRiPt:alert(1))", "disallowed_scheme"),
    ("javascript_numeric_entity", "[p](&#106;avascript:alert(1))", "disallowed_scheme"),
    ("javascript_named_entity_colon", "[p](javascript&colon;alert(1))", "disallowed_scheme"),
    ("javascript_autolink", "<javascript:alert(1)>", "disallowed_scheme"),
    ("javascript_in_reference_definition", "[p]\n\n[p]: javascript:alert(1)\n", "disallowed_scheme"),
    ("data_url", "[p](data:text/html;base64,PHNjcmlwdD4=)", "disallowed_scheme"),
    ("data_image", "![p](data:image/png;base64,iVBORw0KGgo=)", "disallowed_scheme"),
    ("vbscript_scheme", "[p](vbscript:msgbox(1))", "disallowed_scheme"),
    ("file_scheme", "[p](file:///etc/passwd)", "disallowed_scheme"),
    ("mailto_scheme", "[p](mailto:someone@site.example)", "disallowed_scheme"),
    ("ftp_scheme", "[p](ftp://site.example/posts/1)", "disallowed_scheme"),
    ("protocol_relative", "[p](//evil.example/x)", "relative_url"),
    ("absolute_path", "[p](/posts/1)", "relative_url"),
    ("relative_path", "[p](posts/1)", "relative_url"),
    ("fragment_only", "[p](#top)", "relative_url"),
    ("query_only", "[p](?q=1)", "relative_url"),
    ("percent_encoded_scheme", "[p](%6Aavascript:alert(1))", "relative_url"),
    ("userinfo_before_evil_host", "[p](https://site.example@evil.example/posts/1)", "url_userinfo"),
    ("credentials_before_allowed_host", "[p](https://user:pass@site.example/posts/1)", "url_userinfo"),
    ("bare_url_with_userinfo", "See https://site.example@evil.example/x now.", "url_userinfo"),
    ("literal_backslash", "[p](https://evil.example\\x/posts/1)", "malformed_url"),
    ("space_in_angle_destination", "[p](<https://site.example/posts/1 x>)", "malformed_url"),
    ("tab_entity_in_destination", "[p](https://site.example/posts/1&#9;)", "malformed_url"),
    ("newline_entity_in_destination", "[p](https://site.example/&#10;posts/1)", "malformed_url"),
    ("zero_width_space_in_destination", "[p](https://site.example/posts/1\u200b)", "malformed_url"),
    ("bidi_override_in_destination", "[p](https://site.example/\u202eposts/1)", "malformed_url"),
    ("scheme_without_slashes", "[p](https:site.example/posts/1)", "malformed_url"),
    ("empty_host", "[p](https:///posts/1)", "malformed_url"),
    ("control_character_in_draft", "Text\x01 here", "control_character"),
    ("line_separator_in_draft", "Text\u2028[p](https://evil.example/x)", "control_character"),
    # 6. Mermaid
    ("unclosed_mermaid_block", "```mermaid\ngraph TD\n  A-->B\n", "unclosed_mermaid_block"),
    ("unclosed_mermaid_block_in_list_item", "- ```mermaid\n  graph TD\n\nafter\n", "unclosed_mermaid_block"),
    ("unknown_diagram_type", mermaid("notADiagram\n  A-->B"), "unknown_mermaid_type"),
    ("diagram_type_prefix_only", mermaid("graphTD\n  A-->B"), "unknown_mermaid_type"),
    ("diagram_type_variant_not_allowed", mermaid("flowchart-elk TD\n  A-->B"), "unknown_mermaid_type"),
    ("diagram_type_wrong_case", mermaid("Flowchart LR\n  A-->B"), "unknown_mermaid_type"),
    ("empty_mermaid_block", mermaid(""), "unknown_mermaid_type"),
    ("only_comments_and_directives", mermaid("%%{init: {'theme': 'dark'}}%%\n%% nothing"), "unknown_mermaid_type"),
    ("unterminated_front_matter", mermaid("---\ntitle: x\ngraph TD"), "unknown_mermaid_type"),
    ("bad_type_after_front_matter", mermaid("---\ntitle: x\n---\nnope\n  A-->B"), "unknown_mermaid_type"),
    ("tilde_mermaid_fence", mermaid("nope", fence="~~~mermaid"), "unknown_mermaid_type"),
    ("capitalised_info_string", mermaid("nope", fence="```Mermaid"), "unknown_mermaid_type"),
    ("entity_encoded_info_string", mermaid("nope", fence="```&#109;ermaid"), "unknown_mermaid_type"),
    ("click_url", mermaid(f'graph TD\n  A-->B\n  click A "{EVIL}"'), "unknown_citation_url"),
    ("click_href_url", mermaid(f'graph TD\n  A-->B\n  click A href "{EVIL}" "tip" _blank'), "unknown_citation_url"),
    ("click_javascript_url", mermaid('graph TD\n  A-->B\n  click A "javascript:alert(1)"'), "disallowed_scheme"),
    ("click_relative_url", mermaid('graph TD\n  A-->B\n  click A "/posts/1"'), "relative_url"),
    ("click_call_callback", mermaid("graph TD\n  A-->B\n  click A call alert(1)"), "mermaid_callback"),
    ("click_named_callback", mermaid('graph TD\n  A-->B\n  click A doEvil "tip"'), "mermaid_callback"),
    ("class_diagram_callback", mermaid('classDiagram\n  class Foo\n  callback Foo "doEvil"'), "mermaid_callback"),
    ("class_diagram_link", mermaid(f'classDiagram\n  class Foo\n  link Foo "{EVIL}"'), "unknown_citation_url"),
    (
        "sequence_link",
        mermaid(f"sequenceDiagram\n  Alice->>Bob: hi\n  link Alice: Dash @ {EVIL}"),
        "unknown_citation_url",
    ),
    (
        "sequence_links_json",
        mermaid(f'sequenceDiagram\n  Alice->>Bob: hi\n  links Alice: {{"Dash": "{EVIL}"}}'),
        "unknown_citation_url",
    ),
    ("c4_link_parameter", mermaid(f'C4Context\n  Person(a, "A", $link="{EVIL}")'), "unknown_citation_url"),
    ("html_anchor_in_label", mermaid(f"graph TD\n  A[\"<a href='{EVIL}'>x</a>\"]"), "raw_html"),
    # 7. Nested constructs
    ("image_inside_link", f"[![d]({EVIL_IMG})]({LINK1})", "unknown_image_url"),
    ("link_inside_image_description", f"![d [x]({EVIL})]({IMG1})", "unknown_citation_url"),
    ("link_inside_emphasis", f"*see [x]({EVIL})*", "unknown_citation_url"),
    ("link_inside_strikethrough", f"~~see [x]({EVIL})~~", "unknown_citation_url"),
    ("link_inside_block_quote", f"> see [x]({EVIL})", "unknown_citation_url"),
    ("link_inside_list_item", f"- see [x]({EVIL})", "unknown_citation_url"),
    ("link_inside_nested_list_in_quote", f"> 1. one\n>    - *see [x]({EVIL})*", "unknown_citation_url"),
    ("link_in_lazy_continuation_line", f"> quoted\n[x]({EVIL})", "unknown_citation_url"),
    ("link_in_table_cell", f"| a |\n|---|\n| [x]({EVIL}) |\n", "unknown_citation_url"),
    ("link_in_setext_heading", f"Title [x]({EVIL})\n===\n", "unknown_citation_url"),
]


@pytest.mark.parametrize(("draft", "code"), [(d, c) for _, d, c in REJECTED], ids=[i for i, _, _ in REJECTED])
def test_draft_is_rejected_with_code(draft: str, code: str) -> None:
    report = validate_draft(draft, RESULTS)
    assert not report.ok
    assert code in [issue.code for issue in report.errors], report.errors


@pytest.mark.parametrize("draft", ["", "   ", "\n\n\t \n"], ids=["empty", "spaces", "blank_lines"])
def test_empty_draft_is_rejected(draft: str) -> None:
    assert [issue.code for issue in validate_draft(draft, RESULTS).errors] == ["empty_draft"]


def test_unknown_citation_message_is_exact() -> None:
    (issue,) = validate_draft(f"See [post]({EVIL}).", RESULTS).errors
    assert (issue.code, issue.message, issue.url) == ("unknown_citation_url", f"Unknown citation URL: {EVIL}", EVIL)


def test_unknown_image_message_is_exact() -> None:
    (issue,) = validate_draft(f"![d]({EVIL_IMG})", RESULTS).errors
    assert (issue.code, issue.message, issue.url) == ("unknown_image_url", f"Unknown image URL: {EVIL_IMG}", EVIL_IMG)


def test_decoded_destination_is_reported() -> None:
    report = validate_draft("[p](&#104;ttps://evil.example/x)", RESULTS)
    assert [issue.url for issue in report.errors] == [EVIL]


def test_report_lists_every_failure_not_just_the_first() -> None:
    draft = (
        f"See [a]({EVIL}) and ![b]({EVIL_IMG}) and [c](javascript:alert(1)).\n\n"
        f"<b>bold</b> {EVIL}/2\n\n```mermaid\nnope\n```\n\n```\nunclosed\n"
    )
    codes = {issue.code for issue in validate_draft(draft, RESULTS).errors}
    assert codes >= {
        "unknown_citation_url",
        "unknown_image_url",
        "disallowed_scheme",
        "raw_html",
        "unknown_mermaid_type",
        "unclosed_fence",
    }


def test_report_names_the_offending_url_of_each_url_failure() -> None:
    report = validate_draft(f"[a]({EVIL}) [b](/rel) [c](https://u@evil.example/)", RESULTS)
    assert {(issue.code, issue.url) for issue in report.errors} >= {
        ("unknown_citation_url", EVIL),
        ("relative_url", "/rel"),
        ("url_userinfo", "https://u@evil.example/"),
    }


def test_the_same_failure_is_reported_once() -> None:
    report = validate_draft(f"[a]({EVIL}) and [b]({EVIL}) and <{EVIL}>", RESULTS)
    assert [issue.message for issue in report.errors] == [f"Unknown citation URL: {EVIL}"]


def test_mermaid_types_setting_replaces_the_default_allowlist() -> None:
    draft = mermaid("graph TD\n  A-->B")
    assert validate_draft(draft, RESULTS).ok
    report = validate_draft(draft, RESULTS, mermaid_types={"pie"})
    assert [issue.code for issue in report.errors] == ["unknown_mermaid_type"]
    assert validate_draft(mermaid('pie\n  "a": 1'), RESULTS, mermaid_types={"pie"}).ok


def test_a_single_string_mermaid_setting_is_one_type() -> None:
    assert validate_draft(mermaid('pie\n  "a": 1'), RESULTS, mermaid_types="pie").ok


def test_no_results_means_no_url_is_allowed() -> None:
    report = validate_draft(f"See [post]({LINK1}).", [])
    assert [issue.code for issue in report.errors] == ["unknown_citation_url"]


def test_every_code_has_a_rejection_row() -> None:
    # unanchored_citation judges a draft's citations, not its text: its rows are in tests/test_anchored_citations.py.
    covered = {code for _, _, code in REJECTED} | {"empty_draft", "unparseable_markdown", "draft_too_long"}
    covered |= {"unanchored_citation"}
    assert covered == set(ALL_CODES)


def test_draft_over_the_length_limit_is_rejected_unparsed() -> None:
    slow_for_mistletoe = "[a](" * 5000
    report = validate_draft(slow_for_mistletoe, RESULTS, max_chars=10_000)
    assert [issue.code for issue in report.errors] == ["draft_too_long"]
