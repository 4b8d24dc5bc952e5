"""A value a reader pastes (an e-mail, a key, an IP) changes nothing: it is no search term and no gap."""

from __future__ import annotations

import pytest

from askai_graph import Settings, build_graph
from askai_graph.state import STATE_KEYS
from askai_graph.text.masking import searchable


def test_pasted_values_and_mask_labels_are_taken_out_of_the_words_read() -> None:
    text = "Key sk-proj-abcdefghijklmnop1234 fails on 192.168.1.20 for jane.doe@example.com [email] today"
    assert searchable(text) == "Key fails on for today"


@pytest.mark.parametrize(
    ("question", "pasted"),
    [
        ("How does BM25 score documents?", "(jane.doe@example.com)"),
        ("How do I run the llama.cpp OpenAI-compatible server?", "192.168.1.20"),
        ("What is mean reciprocal rank?", "sk-proj-abcdefghijklmnop1234"),
        ("Why do Server-Sent Events need heartbeats?", "172.16.4.9, ops@example.org"),
    ],
)
def test_the_same_question_with_a_pasted_value_gets_the_same_outcome(
    settings: Settings, question: str, pasted: str
) -> None:
    graph = build_graph(settings=settings)
    plain = graph.invoke({"question": question}, output_keys=STATE_KEYS)
    with_value = graph.invoke({"question": f"{question} {pasted}"}, output_keys=STATE_KEYS)
    assert plain["outcome"] == "accepted"
    assert with_value["outcome"] == plain["outcome"]
    assert with_value["answer"] == plain["answer"]
    assert [source.url for source in with_value["sources"]] == [source.url for source in plain["sources"]]
