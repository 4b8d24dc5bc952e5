"""A refused answer keeps its words and loses every link and retrieved URL."""

from __future__ import annotations

import pytest

from askai_graph.text.unlinking import unlinked

PAGE = "https://docs.example.com/guide/caching"
IMAGE = "https://docs.example.com/img/cache.png"


@pytest.mark.parametrize(
    ("answer", "plain"),
    [
        (f"See [the guide]({PAGE}).", "See the guide."),
        (f'See [the guide]({PAGE} "Caching").', "See the guide."),
        (f"![diagram]({IMAGE}) shows it.", "diagram shows it."),
        (f"See <{PAGE}> now.", "See  now."),
        (f"See {PAGE} now.", "See  now."),  # a bare URL, which a renderer would autolink
        (f"See [the guide][g].\n\n[g]: {PAGE}\n", "See [the guide][g].\n\n"),
        ("Run `pip install askai` first.", "Run `pip install askai` first."),
    ],
)
def test_links_become_their_text_and_no_retrieved_url_is_left(answer: str, plain: str) -> None:
    assert unlinked(answer, [PAGE, IMAGE]) == plain
