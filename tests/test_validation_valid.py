"""Valid answers pass Validation: no false errors on the Markdown a good Writer produces."""

from __future__ import annotations

import pytest

from askai_graph.evidence.results import ImageRef, SearchResult
from askai_graph.validation import validate_draft

LINK1 = "https://site.example/posts/1"
LINK2 = "https://site.example/posts/2"
LINK3 = "https://en.site.example/wiki/Cache_(computing)"
IMG1 = "https://site.example/img/1.png"

RESULTS = [
    SearchResult(title="Page 1", source_url=LINK1, content="One.", images=(ImageRef(url=IMG1, alt="diagram"),)),
    SearchResult(title="Page 2", source_url=LINK2, content="Two."),
    SearchResult(title="Cache", source_url=LINK3, content="Three."),
]

VALID = [
    ("plain_prose", "Retrieval-augmented generation pairs a retriever with a writer. It is cheap and fast."),
    ("inline_citations", f"Caching cuts latency ([Page 1]({LINK1})); eviction matters too ([Page 2]({LINK2}))."),
    ("citation_with_title", f'See [Page 1]({LINK1} "Page 1: caching").'),
    ("link_title_is_not_a_destination", f'See [Page 1]({LINK1} "mirror at https://evil.example/x").'),
    ("angle_bracket_citation", f"See [Page 1](<{LINK1}>)."),
    ("url_with_balanced_parentheses", f"See [cache]({LINK3}) and {LINK3}."),
    ("autolink_citation", f"Source: <{LINK1}>"),
    ("reference_links", f"See [Page 1][p1], [p2][] and [P2].\n\n[p1]: {LINK1}\n[p2]: {LINK2} 'Page 2'\n"),
    ("bare_urls_with_punctuation", f"Read {LINK1}. Or {LINK2}, or ({LINK1}): both (see {LINK2})."),
    # Not _URL_: markdown-it's linkify keeps the closing "_" in the link.
    ("bare_url_in_emphasis", f"Read **{LINK1}** or *{LINK2}*."),
    ("entity_encoded_citation", "See [Page 1](https://site.example/posts/&#49;)."),
    ("escaped_citation", "See [Page 1](https://site.example\\/posts/1)."),
    ("image_from_metadata", f"![diagram]({IMG1})\n\nAs the diagram shows..."),
    ("image_reference", f"![diagram][d]\n\n[d]: {IMG1}\n"),
    ("linked_image", f"[![diagram]({IMG1})]({LINK1})"),
    ("headings_and_emphasis", "# Caching\n\n## Why\n\nIt is *fast*, **cheap** and ~~slow~~ quick.\n\nSetext\n---\n"),
    ("bullet_list", f"- First, [Page 1]({LINK1})\n- Second\n  - Nested with {LINK2}\n- Third\n"),
    ("ordered_list_loose", f"1. Retrieve.\n\n2. Write, citing [Page 2]({LINK2}).\n\n3. Review.\n"),
    ("task_list", "- [ ] todo\n- [x] done\n"),
    ("block_quote", f"> Quoted advice from [Page 1]({LINK1}).\n>\n> - with a list\n"),
    (
        "table",
        f"| Page | Topic |\n|:-----|------:|\n| [Page 1]({LINK1}) | caching |\n| {LINK2} | `eviction` |\n",
    ),
    ("thematic_break_and_hard_break", "One  \ntwo\\\nthree\n\n***\n\nEnd."),
    ("code_span_with_urls_and_html", 'Call `curl https://evil.example/x` or `<a href="javascript:x">`.'),
    ("code_span_with_brackets", "Use `[text](url)` and `![alt](src)` in Markdown."),
    (
        "fenced_code_with_urls",
        "```bash\ncurl https://evil.example/x\n# [x](javascript:alert(1))\n```\n\n"
        '~~~html\n<a href="https://evil.example">x</a>\n<img src=x>\n~~~\n',
    ),
    ("longer_closing_fence", "````\n```\nnested fence text https://evil.example\n```\n`````\n"),
    ("fence_without_trailing_newline", "```\ncode https://evil.example\n```"),
    (
        "fence_inside_list_item",
        "1. Install:\n\n   ```bash\n   pip install x  # https://evil.example\n   ```\n\n2. Run it.\n",
    ),
    ("fence_inside_block_quote", "> ```\n> <script>https://evil.example</script>\n> ```\n"),
    ("indented_continuation_paragraph", f"1. Step\n\n    More about [Page 1]({LINK1}).\n"),
    ("math_like_brackets", "The interval [a, b] (closed) and f(x)[i] are fine."),
    ("escaped_brackets", "Write \\[not a link\\](really) literally."),
    ("less_than_in_prose", "If a < b and b > c then 3 < 4."),
    ("crlf_line_endings", f"Line one\r\n\r\n- [Page 1]({LINK1})\r\n```\r\ncode\r\n```\r\n"),
    ("non_breaking_spaces", f"Caching\u00a0works — see [Page\u00a01]({LINK1})."),
    ("emoji_and_unicode", "Ça marche: 速い 🚀"),
    ("mermaid_flowchart", "```mermaid\nflowchart LR\n  A[Question] --> B{Retrieve}\n  B -->|hits| C[Write]\n```\n"),
    ("mermaid_graph_with_br", "```mermaid\ngraph TD\n  A[One<br/>two] --> B[<b>Bold</b>]\n```\n"),
    ("mermaid_sequence", "```mermaid\nsequenceDiagram\n  Alice->>Bob: Hello\n  Bob-->>Alice: Hi\n```\n"),
    ("mermaid_class", "```mermaid\nclassDiagram\n  Animal <|-- Duck\n  class Duck{\n    +swim()\n  }\n```\n"),
    ("mermaid_state", "```mermaid\nstateDiagram-v2\n  [*] --> Still\n  Still --> [*]\n```\n"),
    ("mermaid_gantt", "```mermaid\ngantt\n  title Plan\n  section A\n  Task :a1, 2024-01-01, 3d\n```\n"),
    ("mermaid_pie", '```mermaid\npie title Pets\n  "Dogs" : 386\n  "Cats" : 85\n```\n'),
    ("mermaid_er", "```mermaid\nerDiagram\n  CUSTOMER ||--o{ ORDER : places\n```\n"),
    ("mermaid_mindmap", "```mermaid\nmindmap\n  root((RAG))\n    Retrieval\n    Writing\n```\n"),
    ("mermaid_xychart", "```mermaid\nxychart-beta\n  x-axis [a, b]\n  bar [1, 2]\n```\n"),
    ("mermaid_front_matter", "```mermaid\n---\ntitle: Flow\n---\nflowchart TD\n  A --> B\n```\n"),
    ("mermaid_init_and_comments", "```mermaid\n%%{init: {'theme': 'dark'}}%%\n%% a comment\ngraph LR\n  A-->B\n```\n"),
    ("mermaid_click_allowed_url", f'```mermaid\ngraph LR\n  A-->B\n  click A "{LINK1}" "Page 1"\n```\n'),
    ("mermaid_tilde_fence", "~~~mermaid\ntimeline\n  2024 : launch\n~~~\n"),
    ("mermaid_in_list_item", "- Flow:\n\n  ```mermaid\n  graph TD\n    A-->B\n  ```\n"),
    ("gfm_footnote_with_text", f"Caching helps.[^1]\n\n[^1]: See [Page 1]({LINK1}) for details.\n"),
    ("bracketed_label_in_prose", "[Note]: this is prose, not a definition.\n"),
    ("escaped_pipe_in_table_code_span", "| op | meaning |\n|---|---|\n| `a \\| b` | or |\n"),
    ("double_backtick_code_span", "Write ``a `quoted` b`` literally."),
    ("generic_type_in_code_span", "Use `List<String>` here."),
    (
        "catalog_answer",
        "Here are the articles:\n\n" + "\n".join(f"- [Page {n}]({u}): summary" for n, u in [(1, LINK1), (2, LINK2)]),
    ),
]


@pytest.mark.parametrize("draft", [d for _, d in VALID], ids=[i for i, _ in VALID])
def test_valid_answer_passes(draft: str) -> None:
    report = validate_draft(draft, RESULTS)
    assert report.ok, report.errors
