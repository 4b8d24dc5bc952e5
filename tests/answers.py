"""A hypothesis generator of realistic Markdown answers, clean or with tricky fragments.

A *clean* answer uses only retrieved URLs, the way a good Writer would: prose with inline,
reference and autolink citations and bare URLs, lists, quotes, tables, fenced code of
varying fence length and info string (code may mention any URL: it is code), indented
code, code spans, emphasis, entities, escapes, images from the metadata, Mermaid
diagrams with click/href directives, and fragments that look like links but are not
(``&#104;ttps://`` spelled with an entity, ``www.`` inside a word, unused definitions).
Its *adversarial* twin is the clean one with fragments spliced in that make, or nearly
make, an unretrieved URL live: each class of leak found so far, and more.
"""

from __future__ import annotations

from hypothesis import strategies as st

from askai_graph.evidence.results import ImageRef, SearchResult

LINK = "https://docs.example.com/guide/caching"
LINK2 = "https://docs.example.com/wiki/Cache_(computing)"
LINK3 = "https://blog.example.org/posts/semantic-cache?ref=1"
IMAGE = "https://docs.example.com/img/cache.png"
EVIL = "https://evil.example/x"
EVIL_IMAGE = "https://evil.example/x.png"
ALLOWED_LINKS = (LINK, LINK2, LINK3)
ALLOWED_IMAGES = (IMAGE,)

RESULTS = [
    SearchResult(title="Caching", source_url=LINK, content="Caching.", images=(ImageRef(url=IMAGE, alt="cache"),)),
    SearchResult(title="Cache (computing)", source_url=LINK2, content="Cache."),
    SearchResult(title="Semantic cache", source_url=LINK3, content="Semantic."),
]

_WORDS = (
    "the a cache retrieval answer model latency hit miss index query vector token cost stale fresh eviction "
    "policy embedding lookup key value store server client request reply budget BM25 rank score post"
).split()
WORDS = st.sampled_from(_WORDS)
URL = st.sampled_from(ALLOWED_LINKS)
# Not ":" (markdown-it's linkify keeps it: "see URL: it" links "URL:"), so not in clean text.
_PUNCT = ["", ".", ",", ";", "!", "?", ")", "'"]

# Inline fragments, pre-rendered so that drawing one is a single choice (fast to generate).
_INLINE = [
    *_WORDS,
    *(f"*{w}*" for w in _WORDS[:8]),
    *(f"**{w}**" for w in _WORDS[8:16]),
    *(f"_{w}_" for w in _WORDS[16:22]),
    *(f"~~{w}~~" for w in _WORDS[22:26]),
    *(f"[{w}]({u})" for w, u in zip(_WORDS, ALLOWED_LINKS * 4, strict=False)),
    *(f'[{w}]({u} "{w} post")' for w, u in zip(_WORDS[5:], ALLOWED_LINKS, strict=False)),
    *(f"[{w}](<{u}>)" for w, u in zip(_WORDS[9:], ALLOWED_LINKS, strict=False)),
    *(f"<{u}>" for u in ALLOWED_LINKS),
    *(f"{u}{p}" for u in ALLOWED_LINKS for p in _PUNCT),
    *(f"({u}){p}" for u in ALLOWED_LINKS for p in _PUNCT[:4]),
    *(f"**{u}**" for u in ALLOWED_LINKS),
    *(f"[{u}]({u})" for u in ALLOWED_LINKS),
    "[caching][c1]", "[c1][]", "[C1]", "[the guide][c2]",
    "`curl https://evil.example/x`", '`<a href="x">`', "`[x](javascript:y)`", "`www.evil.example`",
    "``a `b` c``", "`List<String>`", "`a|b`", "`//evil.example/x`", "`ops@evil.example`",
    "&amp;", "&copy;", "&lt;tag&gt;", "&#42;", "\\*", "\\_", "\\[x\\]", "\\<", "a\\`b",
    "&#104;ttps://evil.example/x", "wwwroot", "www-data", "e.g.", "i.e.", "3 < 4", "a > b", "50%",
    "user@localhost", "@mention", "C#", "x_y_z", "foo_bar_baz", "2*3*4", "~/.cache", "a/b/c",
    f"![cache diagram]({IMAGE})",
]  # fmt: skip
INLINE = st.sampled_from(_INLINE)

SENTENCE = st.lists(INLINE, min_size=2, max_size=8).map(
    lambda parts: " ".join(parts) + ("." if parts[-1][-1].isalnum() else "")
)
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=2).map(" ".join)
HEADING = st.tuples(st.integers(1, 4), st.lists(WORDS, min_size=1, max_size=4)).map(
    lambda p: "#" * p[0] + " " + " ".join(p[1]).capitalize()
)
LIST = st.tuples(st.sampled_from(["- ", "* ", "1. ", "+ "]), st.lists(SENTENCE, min_size=1, max_size=4)).map(
    lambda p: "\n".join((f"{n + 1}. " if p[0] == "1. " else p[0]) + s for n, s in enumerate(p[1]))
)
NESTED_LIST = st.tuples(SENTENCE, st.lists(SENTENCE, min_size=1, max_size=3)).map(
    lambda p: f"- {p[0]}\n" + "\n".join(f"  - {s}" for s in p[1])
)
QUOTE = st.lists(SENTENCE, min_size=1, max_size=3).map(lambda ss: "\n".join(f"> {s}" for s in ss))
_LINKED_WORDS = [f"[{w}]({u})" for w, u in zip(_WORDS, ALLOWED_LINKS, strict=False)]
# Code spans holding "|" in a cell: GFM splits the cell there, CommonMark does not.
CELL = st.sampled_from([*_WORDS[:6], *ALLOWED_LINKS, *_LINKED_WORDS, "`x \\| y`", "`a|b`", "`grep -E x|y`"])
TABLE = st.tuples(st.integers(2, 3), st.lists(st.lists(CELL, min_size=3, max_size=3), min_size=1, max_size=3)).map(
    lambda p: "\n".join(
        ["| " + " | ".join(f"h{i}" for i in range(p[0])) + " |", "|" + "---|" * p[0]]
        + ["| " + " | ".join(row[: p[0]]) + " |" for row in p[1]]
    )
)
CODE_LINE = st.sampled_from(
    [
        "curl https://evil.example/x",
        "fetch('//evil.example/api')",
        '<a href="https://evil.example/x">x</a>',
        "[x](javascript:alert(1))",
        "ops@evil.example",
        "print('hi')",
        "x = a | b",
        "# comment with www.evil.example",
        "    indented line",
        "",
    ]
)
FENCE = st.tuples(
    st.sampled_from(["```", "````", "~~~", "~~~~~"]),
    st.sampled_from(["", "python", "bash", "js title=app.js", "text", "json"]),
    st.lists(CODE_LINE, min_size=1, max_size=4),
).map(lambda p: f"{p[0]}{p[1]}\n" + "\n".join(p[2]) + f"\n{p[0]}")
# Markdown link syntax in indented code is still rejected (a Writer that typed a link
# meant one), so the clean answers' indented code has none.
INDENTED = st.lists(CODE_LINE.filter(lambda line: bool(line) and "](" not in line), min_size=1, max_size=3).map(
    lambda ls: "\n".join("    " + x for x in ls)
)
MERMAID = st.tuples(st.sampled_from(["graph TD", "flowchart LR"]), URL, st.booleans()).map(
    lambda p: (
        f"```mermaid\n{p[0]}\n  A[Question] --> B[Answer]\n"
        + (f'  click B href "{p[1]}" "Open"' if p[2] else f'  click A "{p[1]}"')
        + "\n```"
    )
)
DEFINITIONS = st.tuples(URL, URL).map(lambda p: f"[c1]: {p[0]}\n[c2]: <{p[1]}> 'The guide'")
# Definitions no reference uses (a clean answer's are retrieved URLs, or empty).
UNUSED_DEFINITION = st.sampled_from(
    [f"[unused source]: {LINK}", f"[old]: {LINK3}", "[empty]: <>", f'[titled]: <{LINK2}>\n  "Cache"',
     f"- [item]: {LINK}"]  # fmt: skip
)
IMAGE_BLOCK = st.just(f'![cache diagram]({IMAGE} "Cache")')

BLOCK = st.one_of(
    PARAGRAPH, PARAGRAPH, PARAGRAPH, HEADING, LIST, NESTED_LIST, QUOTE, TABLE, FENCE, MERMAID, IMAGE_BLOCK
)


@st.composite
def clean_answers(draw: st.DrawFn) -> str:
    """An answer that uses only retrieved URLs (code may show any URL: it is code)."""
    blocks = draw(st.lists(BLOCK, min_size=1, max_size=5))
    if draw(st.booleans()):
        # After a paragraph of its own: after a list item it would be the item's text.
        blocks.insert(draw(st.integers(0, len(blocks))), "Run this:\n\n" + draw(INDENTED))
    blocks.append(draw(DEFINITIONS))
    if draw(st.integers(0, 4)) == 0:
        blocks.append(draw(UNUSED_DEFINITION))
    return "\n\n".join(blocks) + "\n"


TRICKS = [
    # 1. schemes linkify-it links that the gate must scan
    "ftp://evil.example/x", "see //evil.example/x here", "FTP://evil.example/x", "mailto:ops@evil.example",
    # 2. e-mail forms
    "ops@bücher.example", "ops@evil+x.example", "a.b-c+d@evil.example", "ops@xn--bcher-kva.example",
    # 3. entities and escapes inside bare URLs
    "https://docs.example.co&#109;/guide/caching", "https://docs.example.com&#47;guide/caching",
    "https://docs.example.com\\/guide/caching", "https://docs.example.com/guide/caching&amp;x=1",
    "https://docs.example.com/guide/caching\\_", "www.evil&#46;example/x",
    # 4. trailing punctuation linkify-it keeps
    f"{LINK}_", f"{LINK}~", f"{LINK}:", f"{LINK}*", f"{LINK}-", f"{LINK}=", f"{LINK}'", f"{LINK}\"",
    # 5. emphasis delimiters around a bare URL
    f"_{LINK2}_", f"*{LINK2}*", f"__{LINK}__", f"~~{LINK}~~", f"_{LINK}_x", f"*{LINK}*x", f"~{LINK}~",
    # 6. table pipes
    f"a | b\n- | -\n{LINK}|x", f"| a |\n|---|\n| {LINK}|evil |", f"x|y\n-|-\n{LINK}x|y",
    # 7. Mermaid statements and directives
    '```mermaid\ngraph TD\nA-->B;click B "/relative/path"\n```',
    f'```mermaid\ngraph TD\nA-->B; click A href "{EVIL}"\n```',
    f'```mermaid\nclassDiagram\nclass Foo\nclick Foo href "{EVIL}"\n```',
    f'```mermaid\ngantt\ntitle P\nsection A\nTask :a1, 2024-01-01, 3d\nclick a1 href "{EVIL}"\n```',
    f'```mermaid\nsequenceDiagram\nAlice->>Bob: hi\nlink Alice: Dash @ {EVIL}\n```',
    # reference definitions and footnotes
    f"[c1]: {EVIL}", f"[^1]: {EVIL}", "[^1]", f"[C1]: {EVIL}", f"[ref]: {EVIL}", "[ref]",
    # other near-links
    "www.evil.example/x", "(www.evil.example)", "*www.evil.example*", "x.www.evil.example",
    "evil.example/x", "http://evil.example", "<https://evil.example/x>", "<ops@evil.example>",
    f"[x]({EVIL})", f"![x]({EVIL_IMAGE})", f"![x]({LINK})", f"[x]({IMAGE})", "[x](/relative)", "[x](#top)",
    "&lt;https://evil.example/x&gt;", "https:/evil.example", "https://", "www.", "\\<https://evil.example/x>",
    "`", "``", "```", "~~~", "\n    ", "\n\t", "\n> ", "\n- ", "\n1. ", "|", "\n|---|", "<", ">", "\\", "&",
    f"{LINK}/../../evil", f"{LINK}#x", f"{LINK}?", f"{LINK}.", f"{LINK})", f"({LINK})", f"{LINK}&lt;",
]  # fmt: skip


@st.composite
def answer_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A clean answer, and the same answer with one or two tricky fragments spliced in."""
    clean = text = draw(clean_answers())
    for _ in range(draw(st.integers(1, 2))):
        trick = draw(st.sampled_from(TRICKS))
        at = draw(st.integers(0, len(text)))
        separator = draw(st.sampled_from(["", " ", "\n", "\n\n"]))
        text = text[:at] + separator + trick + separator + text[at:]
    return clean, text
