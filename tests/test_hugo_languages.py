"""A Hugo site's languages, indexed as Hugo builds them (issue #39).

Each fixture is a Hugo site written here (no Hugo binary is run): translated by
content folder (``content/<lang>/``) or by file name (``page.fr.md``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from askai_graph.cli import main
from askai_graph.indexing.sources import open_source

HOME = "# Heron\n\nThe heron handbook covers flight and feeding.\n"
FLIGHT = "---\ntitle: Flight\n---\n\nHerons fly with their necks folded back.\n"
VOL = "---\ntitle: Vol\n---\n\nLes hérons volent le cou replié.\n"
VUELO = "---\ntitle: Vuelo\n---\n\nLas garzas vuelan con el cuello plegado.\n"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def pages(source: Path) -> dict[str, tuple[str, str, str]]:
    found = {}
    for unit in open_source(source, None).units:
        page = unit.parse()  # type: ignore[union-attr]
        if not hasattr(page, "reason"):
            found[page.url] = (page.version, page.locale, page.doc)  # type: ignore[union-attr]
    return found


FOLDERS_CONFIG = """baseURL = "https://heron.example/"
defaultContentLanguage = "en"
[languages.en]
weight = 1
contentDir = "content/en"
[languages.fr]
weight = 2
contentDir = "content/fr"
[languages.es]
weight = 3
contentDir = "content/es"
"""


def folders_site(root: Path, config: str = FOLDERS_CONFIG) -> Path:
    write(
        root,
        {
            "hugo.toml": config,
            "content/en/_index.md": HOME,
            "content/en/handbook/flight.md": FLIGHT,
            "content/fr/handbook/flight.md": VOL,
            "content/es/handbook/flight.md": VUELO,
        },
    )
    return root / "content"


def test_each_language_folder_is_indexed_with_its_locale_the_default_at_the_site_root(tmp_path: Path) -> None:
    assert pages(folders_site(tmp_path)) == {
        "https://heron.example/": ("", "en", "_index.md"),
        "https://heron.example/handbook/flight/": ("", "en", "handbook/flight.md"),
        "https://heron.example/fr/handbook/flight/": ("", "fr", "handbook/flight.md"),
        "https://heron.example/es/handbook/flight/": ("", "es", "handbook/flight.md"),
    }


def test_default_content_language_in_subdir_serves_the_default_under_its_code(tmp_path: Path) -> None:
    config = FOLDERS_CONFIG.replace(
        'defaultContentLanguage = "en"', 'defaultContentLanguage = "en"\ndefaultContentLanguageInSubdir = true'
    )
    found = pages(folders_site(tmp_path, config))
    assert found["https://heron.example/en/handbook/flight/"] == ("", "en", "handbook/flight.md")
    assert "https://heron.example/handbook/flight/" not in found


def test_default_content_language_is_the_one_at_the_root_and_first(tmp_path: Path) -> None:
    config = FOLDERS_CONFIG.replace('defaultContentLanguage = "en"', 'defaultContentLanguage = "fr"')
    found = pages(folders_site(tmp_path, config))
    assert found["https://heron.example/handbook/flight/"] == ("", "fr", "handbook/flight.md")
    assert found["https://heron.example/en/handbook/flight/"] == ("", "en", "handbook/flight.md")


def test_language_folders_without_a_languages_table_are_the_languages_and_sections_are_not(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "guessed",
        {
            "config.yaml": "baseURL: https://heron.example/\n",
            "content/en/handbook/flight.md": FLIGHT,
            "content/es/handbook/flight.md": VUELO,
        },
    )
    assert pages(tmp_path / "guessed" / "content") == {
        "https://heron.example/handbook/flight/": ("", "en", "handbook/flight.md"),
        "https://heron.example/es/handbook/flight/": ("", "es", "handbook/flight.md"),
    }
    # A content folder whose sections are not all named like languages has no languages.
    write(
        tmp_path / "sections",
        {
            "hugo.toml": 'baseURL = "https://heron.example/"\n',
            "content/en/flight.md": FLIGHT,
            "content/handbook/feeding.md": "# Feeding\n\nHerons eat fish.\n",
        },
    )
    assert {locale for _, locale, _ in pages(tmp_path / "sections" / "content").values()} == {""}


def test_translations_by_file_name_are_pages_of_their_language(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "hugo.yaml": "baseURL: https://heron.example/\nlanguages:\n  en: {weight: 1}\n  es: {weight: 2}\n",
            "content/_index.md": HOME,
            "content/handbook/flight.md": FLIGHT,
            "content/handbook/flight.es.md": VUELO,
        },
    )
    assert pages(tmp_path / "content") == {
        "https://heron.example/": ("", "en", "_index.md"),
        "https://heron.example/handbook/flight/": ("", "en", "handbook/flight.md"),
        "https://heron.example/es/handbook/flight/": ("", "es", "handbook/flight.md"),
    }


def test_a_language_with_its_own_base_url_is_served_there(tmp_path: Path) -> None:
    config = FOLDERS_CONFIG.replace(
        'contentDir = "content/fr"', 'contentDir = "content/fr"\nbaseURL = "https://heron.example.fr"'
    )
    found = pages(folders_site(tmp_path, config))
    assert found["https://heron.example.fr/handbook/flight/"] == ("", "fr", "handbook/flight.md")


def test_cli_index_prints_each_hugo_language_with_its_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(folders_site(tmp_path / "site")), "--out", str(tmp_path / "i"), "-q"]) == 0
    assert "  locales: en (2 pages, default), fr (1 pages), es (1 pages)\n" in capsys.readouterr().out
