"""The public surface: exports and the signatures of the documented Python API contracts."""

from __future__ import annotations

import inspect

import askai_graph

CONTRACT = {
    "build_graph",
    "validate_draft",
    "should_expose_retrieved_links",
    "SearchResult",
    "ImageRef",
    "ValidationReport",
    "Critique",
    "Settings",
}


def test_contract_names_are_exported() -> None:
    assert CONTRACT <= set(askai_graph.__all__)


def test_every_export_exists_and_all_is_sorted() -> None:
    assert all(hasattr(askai_graph, name) for name in askai_graph.__all__)
    assert askai_graph.__all__ == sorted(askai_graph.__all__)


def test_build_graph_takes_the_documented_keyword_arguments() -> None:
    params = inspect.signature(askai_graph.build_graph).parameters
    assert list(params) == ["writer", "critic", "retriever", "settings", "checkpointer"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None for p in params.values())


def test_validation_report_items_carry_code_and_message() -> None:
    report = askai_graph.validate_draft("See [x](https://nowhere.example/).", [])
    assert report.ok is False
    assert report.errors[0].code and report.errors[0].message
