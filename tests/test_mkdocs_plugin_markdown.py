"""The MkDocs plugin's index reads each page as ``askai index`` reads the source tree.

A real ``mkdocs build`` (Material, the Markdown extensions a real site's pages are
written for) of a page with a titled admonition, a collapsible block, annotated code, raw ``<h3>`` headings
inside an admonition and content tabs; its index is compared with ``askai index`` of the
same docs tree. Reading the rendered HTML instead cut such a page into other sections,
set admonition titles apart from their bodies as plain lines, lost the tabs' names, and
answered fewer questions on a real site (docs/benchmarks.md, issue #38).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from askai_graph.indexing import build_index
from askai_graph.indexing.store import IndexReader
from askai_graph.retrieval.corpus import Page
from askai_graph.retrieval.passages import split_sections
from tests.sites import PLUGIN_SITE, mkdocs_build, mkdocs_project

pytestmark = pytest.mark.integration

TUNING = "https://lantern.example/guide/tuning/"
LIMITS = "https://lantern.example/guide/limits/"
LIMITS_TABLE = "| setting | most |\n|---|---|\n| `pool_size` | 1024 |\n"
MATERIAL = {
    "theme": {"name": "material", "features": ["content.code.annotate"]},
    "nav": [{"Home": "index.md"}, {"Guide": [{"Tuning": "guide/tuning.md"}, {"Limits": "guide/limits.md"}]}],
    "markdown_extensions": [
        "admonition",
        "pymdownx.details",
        "pymdownx.superfences",
        "attr_list",
        "md_in_html",
        {"toc": {"permalink": True}},
        {"pymdownx.highlight": {"pygments_lang_class": True}},
        {"pymdownx.tabbed": {"alternate_style": True}},
        {"pymdownx.snippets": {"base_path": ["snippets"]}},
    ],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project folder of the fixture pages, built by mkdocs with the plugin and indexed by ``askai index``."""
    root = tmp_path_factory.mktemp("material")
    shutil.copytree(PLUGIN_SITE / "material", root / "docs")
    (root / "snippets").mkdir()
    (root / "snippets" / "limits-table.md").write_text(LIMITS_TABLE, "utf-8")
    result = mkdocs_build(mkdocs_project(root, **MATERIAL))  # type: ignore[arg-type]
    assert result.returncode == 0, result.stderr
    build_index(root / "docs", root / "tree-index")
    return root


def indexed(index: Path) -> dict[str, Page]:
    return {post.url: post for post in IndexReader(index).posts}


@pytest.fixture(scope="module")
def both(built: Path) -> tuple[Page, Page]:
    """The tuning page as the plugin indexed it, and as ``askai index`` of the same tree did."""
    return indexed(built / "site" / "askai" / "index")[TUNING], indexed(built / "tree-index")[TUNING]


def test_the_plugin_cuts_a_page_into_the_sections_askai_index_does(both: tuple[Page, Page]) -> None:
    plugin, tree = both
    # A collapsible block's summary (``??? info "Defaults"``) and raw <h3> inside an admonition are
    # headings only in the rendered HTML: neither starts a section of its own.
    assert [s.heading for s in split_sections(plugin.body)] == [s.heading for s in split_sections(tree.body)]
    assert [s.heading for s in split_sections(plugin.body)] == ["Tuning", "Connection pools", "Timeouts"]


def test_an_admonition_title_stays_with_its_body(both: tuple[Page, Page]) -> None:
    plugin, _ = both
    assert "**Pool sizing for bursty traffic**\n\nRaise `pool_size` when many clients connect at once" in plugin.body


def test_code_in_content_tabs_keeps_each_tabs_name(both: tuple[Page, Page]) -> None:
    plugin, _ = both
    timeouts = next(s.text for s in split_sections(plugin.body) if s.heading == "Timeouts")
    assert "**YAML**\n\n```yaml\nupstream:\n  connect_timeout: 5s\n```" in timeouts
    assert '**TOML**\n\n```toml\n[upstream]\nconnect_timeout = "5s"\n```' in timeouts


def test_the_plugin_index_holds_the_text_askai_index_holds(both: tuple[Page, Page]) -> None:
    plugin, tree = both
    assert plugin.body == tree.body
    assert plugin.anchors == tree.anchors
    assert plugin.summary == tree.summary == "Pool sizes and timeouts for busy upstreams."
    assert (plugin.title, plugin.section) == ("Tuning", "Guide")  # the nav's, from MkDocs


def test_a_snippet_include_resolves_against_the_sites_snippets_base_path(built: Path) -> None:
    limits = indexed(built / "site" / "askai" / "index")[LIMITS]
    assert "| `pool_size` | 1024 |" in limits.body and "--8<--" not in limits.body
