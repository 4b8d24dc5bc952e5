"""The gate's contract: public surface, fail-closed robustness, determinism, thread safety."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import askai_graph.validation as validation
from askai_graph.validation import (
    ALL_CODES,
    DEFAULT_MERMAID_DIAGRAM_TYPES,
    ValidationIssue,
    ValidationReport,
    validate_draft,
)
from tests.test_validation_rules import REJECTED, RESULTS
from tests.test_validation_valid import VALID

# The exact allowlist of Mermaid 11.14 diagram keywords, as documented in docs/ARCHITECTURE.md.
MERMAID_11_14_TYPES = """flowchart graph sequenceDiagram classDiagram classDiagram-v2 stateDiagram
stateDiagram-v2 erDiagram journey gantt pie quadrantChart requirementDiagram gitGraph C4Context C4Container
C4Component C4Dynamic C4Deployment mindmap timeline kanban sankey-beta sankey xychart-beta xychart block-beta
block packet-beta packet architecture-beta radar-beta treemap treemap-beta venn-beta ishikawa-beta ishikawa
wardley-beta treeView-beta""".split()


def test_public_exports() -> None:
    assert set(validation.__all__) >= {
        "validate_draft",
        "ValidationReport",
        "ValidationIssue",
        "DEFAULT_MERMAID_DIAGRAM_TYPES",
        "ALL_CODES",
    }
    assert isinstance(validate_draft("Hello.", RESULTS), ValidationReport)


def test_default_mermaid_types_are_the_pitfalls_allowlist() -> None:
    assert isinstance(DEFAULT_MERMAID_DIAGRAM_TYPES, frozenset)
    assert sorted(DEFAULT_MERMAID_DIAGRAM_TYPES) == sorted(MERMAID_11_14_TYPES)


def test_codes_are_unique_snake_case_strings() -> None:
    assert len(set(ALL_CODES)) == len(ALL_CODES)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", code) for code in ALL_CODES)


def test_every_reported_code_is_a_declared_code() -> None:
    for _, draft, _ in REJECTED:
        assert {issue.code for issue in validate_draft(draft, RESULTS).errors} <= set(ALL_CODES)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_string_gets_a_report_never_an_exception(draft: str) -> None:
    report = validate_draft(draft, RESULTS)
    assert all(isinstance(issue, ValidationIssue) for issue in report.errors)


@pytest.mark.parametrize("draft", [None, 42, b"bytes"], ids=["none", "int", "bytes"])
def test_non_string_draft_fails_closed(draft: object) -> None:
    report = validate_draft(draft, RESULTS)  # type: ignore[arg-type]
    assert [issue.code for issue in report.errors] == ["unparseable_markdown"]


def test_internal_error_fails_closed_and_keeps_earlier_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(lines: object) -> None:
        raise RuntimeError("scanner bug")

    monkeypatch.setattr(validation, "scan_blocks", broken)
    report = validate_draft("Text\x01 here", RESULTS)
    assert [issue.code for issue in report.errors] == ["control_character", "unparseable_markdown"]


@pytest.mark.parametrize("prefix", ["> ", "- ", "["], ids=["quotes", "lists", "brackets"])
def test_pathological_nesting_is_rejected_or_passes_without_raising(prefix: str) -> None:
    report = validate_draft(prefix * 3000 + "[x](https://evil.example/x)", RESULTS)
    assert not report.ok


def test_reports_are_deterministic() -> None:
    for _, draft, _ in REJECTED:
        assert validate_draft(draft, RESULTS) == validate_draft(draft, RESULTS)


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Switch threads very often, so unsynchronised parsing would interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.usefixtures("busy_switching")
def test_concurrent_validation_matches_serial_validation() -> None:
    drafts = [draft * 2 for _, draft, _ in REJECTED] + [draft * 2 for _, draft in VALID]
    serial = {draft: validate_draft(draft, RESULTS) for draft in drafts}
    work = drafts * 12
    random.Random(7).shuffle(work)
    with ThreadPoolExecutor(max_workers=8) as pool:
        reports = list(pool.map(lambda draft: validate_draft(draft, RESULTS), work))
    assert [report == serial[draft] for draft, report in zip(work, reports, strict=True)] == [True] * len(work)
