"""The gate against the renderers readers use: if it accepts a draft, nothing else goes live.

Every draft is validated, and every accepted one is rendered by the Node harness
(``tests/renderers``: markdown-it in three configurations, marked GFM, micromark + GFM,
commonmark.js, and Mermaid on the diagrams each of them emits), which reads back every
live ``a[href]``/``img[src]`` (and any other URL attribute) with an HTML parser and
resolves it by browser URL rules against a page URL. Property: each one resolves to a
retrieved URL of the right kind (post links for links, image metadata for images).

Drafts: the CommonMark 0.31.2 and GFM spec examples, as written and with their URLs
substituted by allowed and unretrieved ones, plus generated answers (``answers``), clean
and adversarial, from fixed seeds. The clean ones also measure false rejects: a clean
answer whose renderings make only allowed URLs live should pass (target: at most 1%);
so should a spec draft written with retrieved URLs only whose renderings make nothing
else live, unless it breaks a rule about the answer's form (``FORM_CODES``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from askai_graph.evidence.results import HeadingAnchor, SearchResult
from askai_graph.retrieval.anchoring import anchor_citations
from askai_graph.validation import Code, validate_draft
from tests.answers import ALLOWED_IMAGES, ALLOWED_LINKS, EVIL, IMAGE, LINK, RESULTS, answer_pairs
from tests.render_harness import HarnessUnavailable, RendererHarness, Rendering

GENERATED = 800
"""Generated answers (fixed seed), each clean and with tricks spliced in."""
MAX_FALSE_REJECT_RATE = 0.01
T = TypeVar("T")

# URL-shaped text in the spec examples: link and definition destinations, autolinks,
# HTML attribute values, bare URLs (any scheme, protocol-relative, www.) and e-mail addresses.
_SPEC_URL = re.compile(
    r"(?<=\]\()[^\s)>]+|(?<=\]\(<)[^>\n]+|(?<=\]: )[^\s]+|(?<=\]:\n)[^\s]+"
    r"|(?<=<)[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*(?=>)"
    r"|(?<=href=\")[^\"]*|(?<=src=\")[^\"]*"
    r"|(?i:\b[a-z][a-z0-9+.\-]*://|(?<![:/])//|\bwww\.)[^\s<>\"'`)\]]+"
    r"|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"
)
_SUBSTITUTES = {"link": LINK, "image": IMAGE, "evil": EVIL}


@pytest.fixture(scope="module")
def answers() -> list[tuple[str, str]]:
    """Generated (clean, adversarial) answer pairs."""
    return generate(answer_pairs(), GENERATED)


@pytest.fixture(scope="module")
def harness() -> Iterator[RendererHarness]:
    try:
        running = RendererHarness()
    except HarnessUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    with running:
        yield running


def spec_drafts(harness: RendererHarness) -> list[tuple[str, str]]:
    """Each spec example as written and with every URL replaced by each substitute."""
    examples = harness.ask({"op": "examples"})
    drafts = []
    for example in examples["commonmark"] + examples["gfm"]:
        markdown = example["markdown"]
        drafts.append((example["id"], markdown))
        if _SPEC_URL.search(markdown):
            for name, url in _SUBSTITUTES.items():
                drafts.append((f"{example['id']}-{name}", _SPEC_URL.sub(url, markdown)))
    return drafts


def generate(strategy: st.SearchStrategy[T], count: int) -> list[T]:
    """``count`` examples of ``strategy``, the same on every run."""
    found: list[T] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: T) -> None:
        found.append(example)

    collect()
    return found


def describe(leaks: list[tuple[str, Rendering]]) -> str:
    lines = []
    for draft, rendering in leaks[:8]:
        urls = ", ".join(sorted({f"{u.renderer}:{u.kind}:{u.href}" for u in rendering.leaks()}))
        lines.append(f"{draft!r}\n    -> {urls}")
    return f"{len(leaks)} accepted drafts leak:\n" + "\n".join(lines)


def accepted_leaks(harness: RendererHarness, drafts: list[str]) -> tuple[int, list[tuple[str, Rendering]]]:
    """Validate each draft; render the accepted ones; return (accepted count, leaking drafts)."""
    accepted = [d for d in drafts if validate_draft(d, RESULTS).ok]
    renderings = harness.render_many((d, ALLOWED_LINKS, ALLOWED_IMAGES) for d in accepted)
    for rendering in renderings:
        assert not rendering.errors, rendering.errors
    return len(accepted), [(d, r) for d, r in zip(accepted, renderings, strict=True) if r.leaks()]


def report(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], key: str, figures: dict) -> None:
    """Print the figures and keep them in pytest's cache (``.pytest_cache``), when it is on."""
    cache = getattr(request.config, "cache", None)  # absent under ``-p no:cacheprovider``
    if cache is not None:
        cache.set(f"askai/renderer_differential/{key}", figures)
    with capsys.disabled():
        print(f"\n[renderer differential] {key}: {figures}")


def test_harness_covers_every_renderer_configuration(harness: RendererHarness) -> None:
    rendering = harness.render(f'[a]({LINK})\n\n```mermaid\ngraph TD\n  A-->B\n  click A "{EVIL}"\n```\n', [LINK], [])
    renderers = {url.renderer for url in rendering.live}
    assert renderers == {
        "markdown-it-commonmark", "markdown-it-linkify", "markdown-it-widget", "marked-gfm", "micromark-gfm",
        "commonmark-js", "mermaid",
    }  # fmt: skip
    assert [u.href for u in rendering.leaks()] == [EVIL]


def test_spec_examples_the_gate_accepts_render_only_allowed_urls(
    harness: RendererHarness, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    drafts = [markdown for _, markdown in spec_drafts(harness)]
    accepted, leaks = accepted_leaks(harness, drafts)
    report(request, capsys, "spec", {"drafts": len(drafts), "accepted": accepted, "leaks": len(leaks)})
    assert not leaks, describe(leaks)


def test_generated_answers_the_gate_accepts_render_only_allowed_urls(
    harness: RendererHarness,
    answers: list[tuple[str, str]],
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    drafts = [adversarial for _, adversarial in answers]
    accepted, leaks = accepted_leaks(harness, drafts)
    report(request, capsys, "generated", {"drafts": len(drafts), "accepted": accepted, "leaks": len(leaks)})
    assert not leaks, describe(leaks)


def test_clean_answers_are_rarely_rejected(
    harness: RendererHarness,
    answers: list[tuple[str, str]],
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    drafts = [clean for clean, _ in answers]
    renderings = harness.render_many((d, ALLOWED_LINKS, ALLOWED_IMAGES) for d in drafts)
    # Only answers that really use nothing but allowed URLs, under every renderer, count.
    clean = [d for d, r in zip(drafts, renderings, strict=True) if not r.leaks()]
    rejected = [(d, validate_draft(d, RESULTS)) for d in clean]
    rejected = [(d, r) for d, r in rejected if not r.ok]
    rate = len(rejected) / len(clean)
    codes = Counter(e.code for _, r in rejected for e in r.errors)
    figures = {"drafts": len(drafts), "clean": len(clean), "rejected": len(rejected), "rate": round(rate, 4)}
    report(request, capsys, "false_rejects", {**figures, "codes": dict(codes)})
    examples = "\n".join(f"{d!r}\n    -> {[(e.code, e.url) for e in r.errors]}" for d, r in rejected[:6])
    assert rate <= MAX_FALSE_REJECT_RATE, f"{len(rejected)} of {len(clean)} clean answers rejected:\n{examples}"
    assert len(clean) >= 0.9 * len(drafts), "the clean generator makes unretrieved URLs live too often"


# Rules about an answer's form, not its URLs: a draft failing one is refused whatever it
# links (raw HTML, an unclosed fence, link syntax shown literally...), so it is no false reject.
FORM_CODES = frozenset({
    Code.EMPTY_DRAFT, Code.DRAFT_TOO_LONG, Code.CONTROL_CHARACTER, Code.UNCLOSED_FENCE, Code.BROKEN_LINK_SYNTAX,
    Code.RAW_HTML, Code.UNCLOSED_MERMAID_BLOCK, Code.UNKNOWN_MERMAID_TYPE, Code.MERMAID_CALLBACK,
})  # fmt: skip


def written_with_allowed_urls(drafts: list[tuple[str, str]]) -> list[str]:
    """The spec drafts whose URLs are all retrieved ones: the substituted link and image variants,
    and the examples with no URL-shaped text (an unused ``[foo]: /url`` writes an unretrieved URL)."""
    return [d for i, d in drafts if i.endswith(("-link", "-image")) or (i[-1].isdigit() and not _SPEC_URL.search(d))]


def test_spec_drafts_written_with_allowed_urls_are_rarely_rejected(
    harness: RendererHarness, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    drafts = written_with_allowed_urls(spec_drafts(harness))
    renderings = harness.render_many((d, ALLOWED_LINKS, ALLOWED_IMAGES) for d in drafts)
    # The renderers decide: a draft counts when no configuration makes anything else live.
    reports = [(d, validate_draft(d, RESULTS)) for d, r in zip(drafts, renderings, strict=True) if not r.leaks()]
    form = [(d, r) for d, r in reports if {e.code for e in r.errors} & FORM_CODES]
    judged = [(d, r) for d, r in reports if not {e.code for e in r.errors} & FORM_CODES]
    rejected = [(d, r) for d, r in judged if not r.ok]
    rate = len(rejected) / len(judged)
    codes = Counter(e.code for _, r in rejected for e in r.errors)
    form_codes = Counter(e.code for _, r in form for e in r.errors if e.code in FORM_CODES)
    figures = {"drafts": len(drafts), "live_allowed_only": len(reports), "form_rejected": len(form),
               "judged": len(judged), "rejected": len(rejected), "rate": round(rate, 4), "codes": dict(codes),
               "form_codes": dict(form_codes)}  # fmt: skip
    report(request, capsys, "spec_false_rejects", figures)
    examples = "\n".join(f"{d!r}\n    -> {[(e.code, e.url) for e in r.errors]}" for d, r in rejected[:6])
    assert rate <= MAX_FALSE_REJECT_RATE, f"{len(rejected)} of {len(judged)} spec drafts rejected:\n{examples}"


# The same pages with headings, one of them with its anchors: what card links are made from.
SECTIONED = [
    RESULTS[0].model_copy(
        update={
            "content": "# Caching\n\nCaching keeps finished answers.\n\n## Keys\n\nKeys are the questions, normalised.",
            "anchors": (HeadingAnchor(heading="Caching", id="caching"), HeadingAnchor(heading="Keys", id="keys")),
        }
    ),
    RESULTS[1].model_copy(update={"content": "A cache (computing) stores data so later requests are faster."}),
    RESULTS[2].model_copy(update={"content": "## Semantic cache\n\nA semantic cache matches a paraphrase."}),
]


def test_the_cards_anchor_urls_of_accepted_answers_link_only_into_retrieved_pages(
    harness: RendererHarness,
    answers: list[tuple[str, str]],
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A card links to anchor_url: every one Validation accepts, resolved by browser URL rules,
    # must be a retrieved page (a fragment is the only difference allowed).
    anchors: set[str] = set()
    for draft in [d for pair in answers for d in pair]:
        citations = anchor_citations(draft, SECTIONED)
        if validate_draft(draft, SECTIONED, citations=citations).ok:
            anchors.update(citation.anchor_url for citation in citations)
    rendering = harness.render("\n\n".join(f"[card](<{anchor}>)" for anchor in sorted(anchors)), ALLOWED_LINKS, [])
    links = [url for url in rendering.live if url.kind == "link"]
    outside = [u.href for u in links if u.resolved is None or u.resolved.split("#")[0] not in rendering.allowed_links]
    headings = sum("#:~:text=" not in anchor for anchor in anchors)
    figures = {"anchor_urls": len(anchors), "headings": headings, "links": len(links), "outside": len(outside)}
    report(request, capsys, "anchor_urls", figures)
    assert links and headings and len(anchors) > headings, "both kinds of anchor must be exercised"
    assert not outside, outside[:5]


QUOTED = "https://en.example.org/wiki/Don't_Panic"
PIPED = "https://fonts.example.com/css?family=A|B"
PARENS = "https://en.example.org/wiki/Cache_(computing)"
GRID_RESULTS = [
    SearchResult(title="Towel", source_url=QUOTED, content="."),
    SearchResult(title="Fonts", source_url=PIPED, content="."),
    SearchResult(title="Cache", source_url=PARENS, content="."),
]
GRID_LINKS = [QUOTED, PIPED, PARENS]
# Shapes an independent grid of drafts x renderer configurations found leaking through the gate.
GRID_LEAKS = [
    f"See {QUOTED}' now.",  # linkify-it pairs the quotes: ".../Don't_Panic'"
    f"See '{QUOTED}' now.",
    f"| a | b |\n|---|---|\n| <{PIPED}> | c |\n",  # the cell ends at "|": ".../css?family=A" goes live
    # marked starts a text run, and so a www. link, after an escape or a link (found by a table fuzz)
    "See \\`www.evil.example now.",
    "See \\\\www.evil.example now.",
    f"See [towel]({QUOTED})www.evil.example now.",
    "| a | b |\n|---|---|\n| x |www.evil.example |\n",  # www. at a cell's start (marked, micromark)
    # marked ends a list item at a lazy "``` y`" line (no fence to CommonMark): the code span stays open
    "- `x ```\nhttps://evil.example/x\n``` y` 3\n",
    # marked pairs emphasis before a link whose text holds brackets: the URL's "_" closes it (bench/render_grid.py)
    f"See _[a [b] c]({PARENS})_ now.",
    f"See __[the [cache] page]({PARENS})__ now.",
]
GRID_CONTROLS = [
    f"See {QUOTED} now.",
    f"Fonts: <{PIPED}>.",
    f"| a | b |\n|---|---|\n| [towel]({QUOTED}) | c |\n",
    f"See [a [b] c]({PARENS}) now.",
    f"See _[cache]({PARENS})_ now.",
    f"See *[a [b] c]({PARENS})* now.",
]


@pytest.mark.parametrize("draft", GRID_LEAKS)
def test_a_shape_the_grid_found_leaking_is_rejected(harness: RendererHarness, draft: str) -> None:
    rendering = harness.render(draft, GRID_LINKS, [])
    assert rendering.leaks(), "no renderer leaks this draft any more: the row proves nothing"
    assert not validate_draft(draft, GRID_RESULTS).ok


@pytest.mark.parametrize("draft", GRID_CONTROLS)
def test_its_look_alike_that_leaks_nowhere_is_accepted(harness: RendererHarness, draft: str) -> None:
    assert not harness.render(draft, GRID_LINKS, []).leaks()
    assert validate_draft(draft, GRID_RESULTS).ok, validate_draft(draft, GRID_RESULTS).errors
