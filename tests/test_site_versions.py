"""A docs site's versions and languages, indexed as its generator publishes them.

The fixture sites under ``tests/data/versions`` are written for these tests: a
Docusaurus site with ``versions.json`` (2.0 and 1.0, plus ``next``) and a Spanish
translation lacking one page; an MkDocs site with a folder per language (FastAPI's
layout); an MkDocs site with mkdocs-static-i18n's ``page.fr.md`` suffixes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askai_graph.cli import main
from askai_graph.indexing import build_index, scan_source
from askai_graph.retrieval.corpus import CorpusError

SITES = Path(__file__).parent / "data" / "versions"
DOCUSAURUS = SITES / "docusaurus" / "docs"
MKDOCS = SITES / "mkdocs" / "docs" / "en" / "docs"
SUFFIX = SITES / "suffix"


def pages(source: Path, base_url: str | None = None, **options: str) -> dict[str, tuple[str, str, str]]:
    from askai_graph.indexing.sources import open_source

    found = {}
    for unit in open_source(source, base_url, **options).units:  # type: ignore[arg-type]
        page = unit.parse()  # type: ignore[union-attr]
        if not hasattr(page, "reason"):
            found[page.url] = (page.version, page.locale, page.doc)  # type: ignore[union-attr]
    return found


def test_docusaurus_versions_and_locales_are_indexed_where_docusaurus_serves_them() -> None:
    assert pages(DOCUSAURUS) == {
        # docs/ is next; the latest release (versions.json's first) is served at /docs/.
        "https://gizmo.example/docs/next/intro": ("next", "en", "intro.md"),
        "https://gizmo.example/docs/next/fake-timers": ("next", "en", "timers.md"),
        "https://gizmo.example/docs/intro": ("2.0", "en", "intro.md"),
        "https://gizmo.example/docs/fake-timers": ("2.0", "en", "timers.md"),
        "https://gizmo.example/docs/1.0/intro": ("1.0", "en", "intro.md"),
        "https://gizmo.example/docs/1.0/fake-timers": ("1.0", "en", "timers.md"),
        # i18n/es/docusaurus-plugin-content-docs/{current,version-2.0}: the locale after the base URL.
        "https://gizmo.example/es/docs/next/intro": ("next", "es", "intro.md"),
        "https://gizmo.example/es/docs/intro": ("2.0", "es", "intro.md"),
    }


def test_each_docusaurus_version_is_ordered_by_its_own_versioned_sidebar() -> None:
    by_url = {page.url: page for page in scan_source(DOCUSAURUS, None).items}
    old = by_url["https://gizmo.example/docs/1.0/fake-timers"]
    latest = by_url["https://gizmo.example/docs/fake-timers"]
    assert (old.section, old.weight) == ("Getting started", 0.0)
    assert (latest.section, latest.weight) == ("Basics", 1.0)


def test_the_index_manifest_lists_the_versions_and_locales_and_their_defaults(tmp_path: Path) -> None:
    build_index(DOCUSAURUS, tmp_path / "index")
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert (manifest["versions"], manifest["default_version"]) == (["2.0", "1.0", "next"], "2.0")
    assert (manifest["locales"], manifest["default_locale"]) == (["en", "es"], "en")


def test_default_version_flag_names_the_version_readers_get(tmp_path: Path) -> None:
    build_index(DOCUSAURUS, tmp_path / "index", default_version="1.0")
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert manifest["default_version"] == "1.0"


def test_a_default_version_the_site_does_not_have_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"--default-version '3\.0' is not a version of the site"):
        build_index(DOCUSAURUS, tmp_path / "index", default_version="3.0")


def test_version_label_names_the_docs_folders_version() -> None:
    found = pages(DOCUSAURUS, version_label="3.0-beta")
    assert found["https://gizmo.example/docs/3.0-beta/intro"] == ("3.0-beta", "en", "intro.md")


def test_mkdocs_language_folders_are_published_under_the_language() -> None:
    assert pages(MKDOCS) == {
        "https://lumen.example/": ("", "en", "index.md"),
        "https://lumen.example/install/": ("", "en", "install.md"),
        "https://lumen.example/config/": ("", "en", "config.md"),
        "https://lumen.example/es/": ("", "es", "index.md"),
        "https://lumen.example/es/install/": ("", "es", "install.md"),
        "https://lumen.example/ja/install/": ("", "ja", "install.md"),
    }


def test_a_translation_folder_takes_the_default_languages_nav_titles() -> None:
    by_url = {page.url: page for page in scan_source(MKDOCS, None).items}
    assert by_url["https://lumen.example/es/install/"].title == "Installing"
    assert by_url["https://lumen.example/es/install/"].weight == 1.0


def test_mkdocs_static_i18n_suffixes_are_pages_of_their_language() -> None:
    assert pages(SUFFIX) == {
        "https://prism.example/": ("", "en", "index.md"),
        "https://prism.example/guide/": ("", "en", "guide.md"),
        "https://prism.example/fr/": ("", "fr", "index.md"),
    }


def test_flags_label_a_site_that_names_no_version_or_language(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "start.md").write_text("# Start\n\nStart the engine with the key.\n")
    found = pages(tmp_path / "docs", "https://engine.example/", version_label="4.1", locale="de")
    assert found == {"https://engine.example/start/": ("4.1", "de", "start.md")}


def test_a_malformed_locale_flag_is_one_line_and_a_non_zero_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(MKDOCS), "--out", str(tmp_path / "i"), "--locale", "es;rm"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--locale 'es;rm' is not a language code" in err


def test_cli_index_prints_each_version_and_locale_with_its_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(DOCUSAURUS), "--out", str(tmp_path / "i"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "  versions: 2.0 (3 pages, default), 1.0 (2 pages), next (3 pages)\n" in out
    assert "  locales: en (6 pages, default), es (2 pages)\n" in out
