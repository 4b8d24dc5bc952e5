"""The public surface: exports and the signatures of the documented Python API contracts."""

from __future__ import annotations

import inspect
import subprocess
import sys

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



def loaded_after(statements: str, modules: list[str]) -> list[str]:
    """Return which of ``modules`` a new process has loaded after ``statements`` (this one has them all)."""
    script = f"import sys; {statements}; print(','.join(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return [name for name in out.strip().split(",") if name]


def test_importing_the_package_loads_none_of_its_dependencies() -> None:
    assert loaded_after("import askai_graph", ["langgraph", "langchain_core", "bm25s", "numpy", "mistletoe"]) == []


def test_askai_help_loads_no_search_web_or_markdown_library() -> None:
    statements = "import askai_graph.cli as cli; cli.parser().format_help()"
    assert loaded_after(statements, ["bm25s", "numpy", "fastapi", "mistletoe"]) == []


def test_a_public_name_is_imported_on_first_use() -> None:
    assert loaded_after("import askai_graph; askai_graph.build_graph", ["langgraph"]) == ["langgraph"]


def test_askai_ask_loads_no_mcp_sdk_bm25s_scipy_or_chat_model_classes() -> None:
    statements = (
        "import contextlib, io; from askai_graph.cli import main; quiet = contextlib.redirect_stdout(io.StringIO());"
        " quiet.__enter__(); status = main(['ask', 'How does BM25 score documents?']);"
        " quiet.__exit__(None, None, None); assert status == 0"
    )
    heavy = ["mcp", "bm25s", "scipy", "fastapi", "langchain_core.language_models.chat_models",
             "askai_graph.evaluation.runner", "askai_graph.stores.runlog"]
    assert loaded_after(statements, heavy) == []
