"""Through the whole graph: a draft that fails Validation never yields a sources list.

The Writer always returns the same adversarial draft and the Critic always passes, so
only the Validation gate stands between the draft and the source cards.
"""

from __future__ import annotations

from typing import Any

import pytest

from askai_graph import Settings, build_graph
from askai_graph.state import STATE_KEYS
from tests.fakes import PASSING, replies, retriever, url

EVIL = "https://evil.example/x"

ADVERSARIAL = [
    ("unknown_inline_link", f"Caching is covered in [Page 1]({url(1)}) and [this]({EVIL})."),
    ("javascript_link", f"See [Page 1]({url(1)}) and [more](&#106;avascript:alert(1))."),
    ("unused_reference_definition", f"See [Page 1]({url(1)}).\n\n[hidden]: {EVIL}\n"),
    ("raw_html_anchor_to_a_retrieved_url", f'See <a href="{url(1)}">Page 1</a>.'),
    ("bare_unknown_url", f"See [Page 1]({url(1)}), mirrored at {EVIL}."),
    ("trailing_slash", f"See [Page 1]({url(1)}/)."),
    ("userinfo", "See [Page 1](https://site.example@evil.example/posts/1)."),
    ("link_hidden_from_mistletoe", f"See [Page 1]({url(1)}).\n\n```\n```foo\n```\n[x]({EVIL})\n```\n```\n"),
    ("unclosed_fence", f"See [Page 1]({url(1)}).\n\n```python\nprint(1)\n"),
    ("mermaid_click", f'See [Page 1]({url(1)}).\n\n```mermaid\ngraph TD\n  A-->B\n  click A "{EVIL}"\n```\n'),
]


def run(draft: str) -> dict[str, Any]:
    """Run the graph with a Writer that always returns ``draft`` and a Critic that always passes."""
    graph = build_graph(
        writer=replies(draft), critic=replies(PASSING), retriever=retriever(1, 2, 3), settings=Settings()
    )
    return graph.invoke({"question": "How does caching work?"}, output_keys=STATE_KEYS)


@pytest.mark.parametrize("draft", [d for _, d in ADVERSARIAL], ids=[i for i, _ in ADVERSARIAL])
def test_invalid_draft_never_yields_sources(draft: str) -> None:
    graph = build_graph(
        writer=replies(draft), critic=replies(PASSING), retriever=retriever(1, 2, 3), settings=Settings()
    )
    final = graph.invoke({"question": "How does caching work?"}, output_keys=STATE_KEYS)
    assert final["validation"] is not None and not final["validation"].ok
    assert final["sources"] == []
    assert final["outcome"] == "fallback"


def test_the_same_graph_shows_sources_for_a_valid_draft() -> None:
    draft = f"Caching is covered in [Page 1]({url(1)})."
    graph = build_graph(
        writer=replies(draft), critic=replies(PASSING), retriever=retriever(1, 2, 3), settings=Settings()
    )
    final = graph.invoke({"question": "How does caching work?"}, output_keys=STATE_KEYS)
    assert final["outcome"] == "accepted"
    assert [source.url for source in final["sources"]][0] == url(1)
