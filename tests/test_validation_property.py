"""Properties of the gate over generated drafts.

1. A draft citing only retrieved URLs, in any mix of link forms, is accepted; the same
   draft with any one URL mutated (one character, a trailing slash, a case change) is
   rejected.
2. Nothing hides: whenever a generated adversarial draft is accepted, a CommonMark
   renderer (markdown-it-py) links and embeds only retrieved URLs and emits no raw HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from askai_graph.evidence.results import ImageRef, SearchResult
from askai_graph.validation import validate_draft

SEGMENT = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", min_size=1, max_size=8).filter(
    lambda s: s[0] != "-" and s[-1] != "-"
)
HOST = st.tuples(st.lists(SEGMENT, min_size=1, max_size=2), st.sampled_from(["com", "example", "io"])).map(
    lambda parts: ".".join([*parts[0], parts[1]])
)
TAIL = st.sampled_from(["", "/", "?page=2", "#part", "/index.html"])
URL = st.builds(
    lambda scheme, host, path, tail: f"{scheme}://{host}/{'/'.join(path)}{tail}",
    st.sampled_from(["https", "http"]),
    HOST,
    st.lists(SEGMENT, min_size=1, max_size=3),
    TAIL,
)
IMAGE = URL.map(lambda url: url.split("?")[0].split("#")[0].rstrip("/") + ".png")


@dataclass
class Occurrence:
    """One use of a URL in the draft: ``render(url)`` gives its Markdown text."""

    url: str
    render: Callable[[str], str]


LINK_FORMS: list[Callable[[str, int], Occurrence]] = [
    lambda u, i: Occurrence(u, lambda x: f"See [post {i}]({x})."),
    lambda u, i: Occurrence(u, lambda x: f'See [post {i}]({x} "Page {i}").'),
    lambda u, i: Occurrence(u, lambda x: f"See [post {i}](<{x}>)."),
    lambda u, i: Occurrence(u, lambda x: f"Source: <{x}>"),
    lambda u, i: Occurrence(u, lambda x: f"Read {x} for details."),
    lambda u, i: Occurrence(u, lambda x: f"Read more ({x})."),
    lambda u, i: Occurrence(u, lambda x: f"- *item with [post {i}]({x})*"),
    lambda u, i: Occurrence(u, lambda x: f"> quoted [post {i}]({x})"),
    lambda u, i: Occurrence(u, lambda x: f"| post |\n|---|\n| [p{i}]({x}) |"),
    lambda u, i: Occurrence(u, lambda x: f'```mermaid\ngraph TD\n  A{i}-->B\n  click A{i} "{x}"\n```'),
    lambda u, i: Occurrence(u, lambda x: f"See [post {i}][ref{i}].\n\n[ref{i}]: {x}"),
    lambda u, i: Occurrence(u, lambda x: f"See [ref{i}][].\n\n[ref{i}]: <{x}>"),
    lambda u, i: Occurrence(u, lambda x: f"See [ref{i}].\n\n[ref{i}]: {x} 'title'"),
]
IMAGE_FORMS: list[Callable[[str, int], Occurrence]] = [
    lambda u, i: Occurrence(u, lambda x: f"![figure {i}]({x})"),
    lambda u, i: Occurrence(u, lambda x: f"![figure {i}][img{i}]\n\n[img{i}]: {x}"),
]


@st.composite
def cited_drafts(draw: st.DrawFn) -> tuple[list[SearchResult], list[Occurrence]]:
    links = draw(st.lists(URL, min_size=1, max_size=4, unique=True))
    images = draw(st.lists(IMAGE, max_size=2, unique=True))
    results = [
        SearchResult(title=f"Page {n}", source_url=url, content="text", images=tuple(ImageRef(url=i) for i in images))
        for n, url in enumerate(links)
    ]
    uses = draw(st.lists(st.tuples(st.sampled_from(links), st.sampled_from(LINK_FORMS)), min_size=1, max_size=6))
    occurrences = [form(url, n) for n, (url, form) in enumerate(uses)]
    if images:
        picks = draw(st.lists(st.tuples(st.sampled_from(images), st.sampled_from(IMAGE_FORMS)), max_size=2))
        occurrences += [form(url, 100 + n) for n, (url, form) in enumerate(picks)]
    return results, draw(st.permutations(occurrences))


def render(occurrences: list[Occurrence]) -> str:
    return "\n\n".join(o.render(o.url) for o in occurrences) + "\n"


def mutate(url: str, how: str, position: int) -> str:
    """One small edit: a changed character, a trailing slash, or a case change."""
    if how == "slash":
        return url + "/"
    start = url.index("://") + 3
    index = start + position % (len(url) - start)
    if how == "case":
        letters = [i for i in range(len(url)) if url[i].isalpha()]
        index = letters[position % len(letters)]
        return url[:index] + url[index].swapcase() + url[index + 1 :]
    replacement = "q" if url[index] != "q" else "z"
    return url[:index] + replacement + url[index + 1 :]


@settings(max_examples=200, deadline=None)
@given(cited_drafts())
def test_draft_citing_only_retrieved_urls_is_accepted(case: tuple[list[SearchResult], list[Occurrence]]) -> None:
    results, occurrences = case
    report = validate_draft(render(occurrences), results)
    assert report.ok, report.errors


@settings(max_examples=200, deadline=None)
@given(cited_drafts(), st.data(), st.sampled_from(["char", "slash", "case"]), st.integers(0, 200))
def test_mutating_any_one_url_is_rejected(
    case: tuple[list[SearchResult], list[Occurrence]], data: st.DataObject, how: str, position: int
) -> None:
    results, occurrences = case
    target = data.draw(st.integers(0, len(occurrences) - 1))
    mutated = mutate(occurrences[target].url, how, position)
    allowed = {r.source_url for r in results} | {i.url for r in results for i in r.images}
    assume(mutated not in allowed)
    occurrences[target] = Occurrence(mutated, occurrences[target].render)
    assert not validate_draft(render(occurrences), results).ok


# --- nothing hides from the gate -----------------------------------------------------------

GOOD = "https://site.example/posts/1"
GOOD_IMAGE = "https://site.example/img/1.png"
EVIL = "https://evil.example/x"
RESULTS = [SearchResult(title="Page 1", source_url=GOOD, content="x", images=(ImageRef(url=GOOD_IMAGE),))]
RENDERER = MarkdownIt("commonmark").enable(["table", "strikethrough"])

PIECES = [
    f"[a]({GOOD})", f"[a]({EVIL})", f"![i]({GOOD_IMAGE})", f"![i]({EVIL})", f"<{GOOD}>", f"<{EVIL}>",
    "[a][r]", "[r]", f"[r]: {EVIL}", f"[r]: {GOOD}", "[R]", "`", "``", "```", "~~~", "```foo", "``` a`b",
    "[", "]", "(", ")", "<", ">", "\\", "*", "_", "**", "~~", "!", "&#106;avascript:alert(1)", "&#104;ttps://evil.example",
    "javascript:alert(1)", "<a href='x'>", "</a>", "<!--", "-->", "|", "|---|", "\n", "\n", "\n\n", "\n> ", "\n- ",
    "\n1. ", "\n    ", "\n\t", "\n   ", " ", " ", "text", "\\[", "\\]", "&amp;", "&lt;", "\\``", ") ", "\n) ",
    "\n\t> ", "\n    > ", "<javascript:x`>`", f"[![i]({EVIL})]({GOOD})", f"\n[R]:\n{EVIL}", "\n===", "\n---", "<!-->",
]  # fmt: skip
ADVERSARIAL = st.lists(st.sampled_from(PIECES), min_size=1, max_size=25).map("".join)


def live_urls(markdown: str) -> tuple[set[str], bool]:
    """URLs markdown-it links or embeds, and whether it emits raw HTML."""
    urls, has_html = set(), False
    stack = RENDERER.parse(markdown)
    while stack:
        token = stack.pop()
        if token.type in ("html_block", "html_inline"):
            has_html = True
        for name in ("href", "src"):
            value = token.attrGet(name)
            if value is not None:
                urls.add(str(value))
        stack.extend(token.children or [])
    return urls, has_html


@settings(max_examples=200, deadline=None)
@given(ADVERSARIAL)
def test_an_accepted_draft_renders_only_retrieved_urls(markdown: str) -> None:
    if not validate_draft(markdown, RESULTS).ok:
        return
    urls, has_html = live_urls(markdown)
    assert not has_html
    assert urls <= {RENDERER.normalizeLink(GOOD), RENDERER.normalizeLink(GOOD_IMAGE)}
