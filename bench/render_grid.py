"""The Validation gate against the renderers on a grid of drafts: leaks and false rejects.

Independent of the differential test's generators: every URL form a Markdown answer can
carry (bare, autolink, inline link and image, angle-bracket destination, reference,
www.) x every context it can sit in (prose, emphasis, code span, quotes, brackets,
list, quote, heading, table cell, after an escape or a link) x the punctuation that
may follow it, once with a retrieved URL and once with an unretrieved one. Each draft
is validated and rendered by the Node harness (markdown-it x3, marked, micromark,
commonmark.js, Mermaid). A *leak* is an accepted draft some renderer makes an
unretrieved URL live in; a *false reject* is a rejected draft that every renderer
renders with retrieved URLs only, refused for no rule about the answer's form.

    .venv/bin/python bench/render_grid.py [--show N]

Prints the counts, the false-reject share of rejections, the first leaks and the first
N false rejects (figures, not a test: the differential test is the one that fails).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from askai_graph.validation import validate_draft  # noqa: E402
from tests.answers import (  # noqa: E402
    ALLOWED_IMAGES,
    ALLOWED_LINKS,
    EVIL,
    EVIL_IMAGE,
    IMAGE,
    LINK,
    LINK2,
    LINK3,
    RESULTS,
)
from tests.render_harness import RendererHarness  # noqa: E402
from tests.test_renderer_differential import FORM_CODES  # noqa: E402

FORMS = [
    "{u}",
    "<{u}>",
    "[the guide]({u})",
    "[the guide](<{u}>)",
    '[the guide]({u} "Guide")',
    "![diagram]({i})",
    "[the guide][g]",
    "[![diagram]({i})]({u})",
]
CONTEXTS = [
    "See {x} for details.",
    "See *{x}* now.",
    "See **{x}** now.",
    "See _{x}_ now.",
    "See ~~{x}~~ now.",
    "Run `cmd` and see {x} now.",
    "See '{x}' now.",
    'See "{x}" now.',
    "See ({x}) now.",
    "See [{x}] now.",
    "- first\n- see {x}\n- last",
    "1. see {x}",
    "> see {x}",
    "## Read {x}",
    "| a | b |\n|---|---|\n| {x} | c |",
    "| a | b |\n|---|---|\n| c | see {x} |",
    "See \\* {x} now.",
    "See [the guide]({l}) and {x} now.",
    "Term: {x}; more text.",
    "{x}",
]
TRAILING = ["", ".", ",", ")", "!", "?", ":", "'s"]


URLS = [(True, (LINK, IMAGE)), (True, (LINK2, IMAGE)), (True, (LINK3, IMAGE)), (False, (EVIL, EVIL_IMAGE))]


def grid() -> list[tuple[str, bool]]:
    """Every draft of the grid, and whether it was written with retrieved URLs only."""
    drafts = []
    for allowed, (url, image) in URLS:
        for form in FORMS:
            for context in CONTEXTS:
                for trailing in TRAILING:
                    draft = context.format(x=form.format(u=url, i=image) + trailing, l=LINK2)
                    if "[g]" in form:  # its reference definition goes at the end of the draft
                        draft += f"\n\n[g]: {url}"
                    drafts.append((draft, allowed))
    return list(dict.fromkeys(drafts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=10, help="false rejects to print")
    args = parser.parse_args()
    drafts = grid()
    with RendererHarness() as harness:
        renderings = harness.render_many((d, ALLOWED_LINKS, ALLOWED_IMAGES) for d, _ in drafts)
    leaks, false_rejects, rejected, form = [], [], 0, 0
    codes: Counter[str] = Counter()
    for (draft, _), rendering in zip(drafts, renderings, strict=True):
        report = validate_draft(draft, RESULTS)
        live_elsewhere = bool(rendering.leaks())
        if report.ok:
            if live_elsewhere:
                leaks.append(draft)
            continue
        rejected += 1
        found = {e.code for e in report.errors}
        if found & FORM_CODES:
            form += 1
        elif not live_elsewhere:
            false_rejects.append((draft, report))
            codes.update(found)
    share = len(false_rejects) / rejected if rejected else 0.0
    print(f"drafts {len(drafts)}  accepted {len(drafts) - rejected}  rejected {rejected} (form rules {form})")
    print(f"leaks {len(leaks)}  false rejects {len(false_rejects)} = {share:.1%} of rejections  codes {dict(codes)}")
    for draft in leaks[:5]:
        print(f"LEAK {draft!r}")
    for draft, report in false_rejects[: args.show]:
        print(f"FALSE REJECT {draft!r}\n    -> {[(e.code, e.message) for e in report.errors]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
