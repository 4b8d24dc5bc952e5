"""The public surface: exports and the signatures of the documented Python API contracts."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import askai_graph
from askai_graph.indexing import build_index
from askai_graph.indexing.loader import bundled_site

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


def loaded_after(statements: str, modules: list[str], env: dict[str, str] | None = None) -> list[str]:
    """Return which of ``modules`` a new process (with ``env`` added) has loaded after ``statements``."""
    script = f"import sys; {statements}; print(','.join(m for m in {modules!r} if m in sys.modules))"
    environment = os.environ | (env or {})
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environment)
    return [name for name in out.stdout.strip().split(",") if name]


def test_importing_the_package_loads_none_of_its_dependencies() -> None:
    assert loaded_after("import askai_graph", ["langgraph", "langchain_core", "bm25s", "numpy", "mistletoe"]) == []


def test_askai_help_loads_no_search_web_or_markdown_library() -> None:
    statements = "import askai_graph.cli as cli; cli.parser().format_help()"
    other_commands = ["askai_graph.evaluation.command", "askai_graph.reporting.command", "askai_graph.indexing"]
    assert loaded_after(statements, ["bm25s", "numpy", "fastapi", "mistletoe", "yaml", *other_commands]) == []


def test_a_public_name_is_imported_on_first_use() -> None:
    assert loaded_after("import askai_graph; askai_graph.build_graph", ["langgraph"]) == ["langgraph"]


ASK = (
    "import contextlib, io; from askai_graph.cli import main; quiet = contextlib.redirect_stdout(io.StringIO());"
    " quiet.__enter__(); status = main(['ask', 'How does BM25 score documents?']);"
    " quiet.__exit__(None, None, None); assert status == 0"
)
# What answering a question never needs: the server, the chat-model classes, the other
# commands (evaluation, run-log report, indexing and crawling), the embedding models.
NOT_FOR_ASK = [
    "mcp",
    "bm25s",
    "scipy",
    "fastapi",
    "langchain_core.language_models.chat_models",
    "askai_graph.evaluation.command",
    "askai_graph.evaluation.runner",
    "askai_graph.reporting.command",
    "askai_graph.stores.runlog",
    "askai_graph.indexing.crawl_options",
    "askai_graph.indexing.crawl",
    "askai_graph.retrieval.embeddings",
    "askai_graph.retrieval.hybrid",
]
# The readers of source pages: a built index, and the bundled site, are read as parsed.
PAGE_READERS = [
    "yaml",
    "tomllib",
    "trafilatura",
    "lxml",
    "askai_graph.indexing.sources",
    "askai_graph.indexing.markdown",
    "askai_graph.indexing.html",
]


def test_askai_ask_on_the_bundled_site_loads_only_what_answering_needs() -> None:
    assert loaded_after(ASK, NOT_FOR_ASK + PAGE_READERS) == []


def test_askai_ask_on_a_built_index_reads_no_source_pages(tmp_path: Path) -> None:
    build_index(bundled_site(), tmp_path / "index")
    assert loaded_after(ASK, NOT_FOR_ASK + PAGE_READERS, env={"ASKAI_CORPUS": str(tmp_path / "index")}) == []
