"""When the ranking cannot tell the best section from the next, the answer quotes each under its heading."""

from __future__ import annotations

from askai_graph.models.offline.writer import ExtractiveWriter
from askai_graph.models.writing import DraftRequest
from askai_graph.nodes.research import to_search_results
from tests.fakes import post, url

TIED = """# Timeouts

## Connect timeout

Set the connect timeout with the `connect` argument so that a slow server cannot stall the client for long.

## Read timeout

Set the read timeout with the `read` argument so that a slow server cannot stall the client for long.

## Proxies

Route every request through a proxy with the `proxy` argument when the network requires one.
"""

CLEAR = """# Timeouts

## Connect timeout

Set the connect timeout with the `connect` argument so that a slow server cannot stall the client for long.

## Proxies

Route every request through a proxy with the `proxy` argument when the network requires one.
"""


def draft(question: str, *pages: str) -> str:
    results = to_search_results([post(n, text) for n, text in enumerate(pages, start=1)], top_k=10)
    return ExtractiveWriter().write(DraftRequest(question=question, search_results=results))


def test_sections_the_ranking_cannot_tell_apart_are_each_quoted_under_their_heading() -> None:
    answer = draft("How do I stop a slow server from stalling the client with a timeout?", TIED)
    assert "Connect timeout: " in answer and "Read timeout: " in answer
    assert answer.count(f"]({url(1)})") == 2  # each with its own citation
    assert "proxy" not in answer


def test_a_clear_best_section_is_quoted_alone() -> None:
    answer = draft("How do I stop a slow server from stalling the client with a timeout?", CLEAR)
    assert "`connect`" in answer and "proxy" not in answer
