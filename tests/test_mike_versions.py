"""An MkDocs site versioned with mike, indexed from mike's built branch (issue #39).

The fixture is written here: the root of a ``gh-pages`` branch holding ``versions.json``,
one built MkDocs site per version (each built with the site's one ``site_url``, so its
canonical links and sitemap name no version), an alias folder ``latest/`` (a copy) and
the branch's redirect home page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askai_graph import load_corpus
from askai_graph.cli import main
from askai_graph.indexing import build_index
from askai_graph.indexing.sources import open_source
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.retrieval.scope import SiteVariants

BASE = "https://lumen.example/"
QUESTION = "How do I set the cache size in Lumen?"
PAGE = """<!doctype html><html><head><title>{title} - Lumen</title>
<link rel="canonical" href="https://lumen.example/{path}"></head>
<body><nav><a href="/">Home</a></nav><main><article><h1 id="{anchor}">{title}</h1>
<p>{text}</p></article></main></body></html>"""
SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://lumen.example/</loc></url><url><loc>https://lumen.example/cache/</loc></url>
</urlset>"""
CACHE = {
    "1.1": "Set the cache size in Lumen with the cache_size option in lumen.toml; it counts megabytes.",
    "1.0": "Set the cache size in Lumen with the LUMEN_CACHE environment variable; it counts entries.",
}


def built_site(folder: Path, version: str) -> None:
    (folder / "cache").mkdir(parents=True)
    home = "Lumen serves pictures from a folder quickly, with a cache in front of the disk and a small web server."
    (folder / "index.html").write_text(PAGE.format(title="Lumen", path="", anchor="lumen", text=home))
    (folder / "cache" / "index.html").write_text(
        PAGE.format(title="Caching", path="cache/", anchor="caching", text=CACHE[version])
    )
    (folder / "404.html").write_text(
        PAGE.format(
            title="Not found",
            path="404.html",
            anchor="nf",
            text="The page you asked for is not in this version of the site.",
        )
    )
    (folder / "sitemap.xml").write_text(SITEMAP)


def branch(root: Path, versions: list[dict[str, object]] | None = None) -> Path:
    listed = versions or [
        {"version": "1.1", "title": "1.1", "aliases": ["latest"]},
        {"version": "1.0", "title": "1.0", "aliases": []},
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / "versions.json").write_text(json.dumps(listed))
    for entry in listed:
        built_site(root / str(entry["version"]), str(entry["version"]))
    built_site(root / "latest", "1.1")  # mike's alias: a copy, never indexed
    (root / "index.html").write_text('<meta http-equiv="refresh" content="0; url=latest/">')
    return root


def pages(root: Path, **options: str) -> dict[str, tuple[str, str]]:
    found = {}
    for unit in open_source(root, BASE, **options).units:  # type: ignore[arg-type]
        page = unit.parse()  # type: ignore[union-attr]
        if not hasattr(page, "reason"):
            found[page.url] = (page.version, page.doc)  # type: ignore[union-attr]
    return found


def test_each_versions_built_pages_are_indexed_at_its_folder_with_its_label(tmp_path: Path) -> None:
    assert pages(branch(tmp_path / "gh-pages")) == {
        "https://lumen.example/1.1/": ("1.1", "index.html"),
        "https://lumen.example/1.1/cache/": ("1.1", "cache/index.html"),
        "https://lumen.example/1.0/": ("1.0", "index.html"),
        "https://lumen.example/1.0/cache/": ("1.0", "cache/index.html"),
    }


def test_the_manifest_records_the_versions_the_latest_alias_as_default_and_the_aliases(tmp_path: Path) -> None:
    build_index(branch(tmp_path / "gh-pages"), tmp_path / "index", base_url=BASE)
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert (manifest["versions"], manifest["default_version"]) == (["1.1", "1.0"], "1.1")
    assert manifest["version_aliases"] == {"latest": "1.1"}


def test_without_a_latest_alias_the_first_listed_version_is_the_default(tmp_path: Path) -> None:
    listed: list[dict[str, object]] = [
        {"version": "1.0", "title": "1.0", "aliases": ["stable"]},
        {"version": "1.1", "title": "1.1", "aliases": []},
    ]
    build_index(branch(tmp_path / "gh-pages", listed), tmp_path / "index", base_url=BASE)
    manifest = json.loads((tmp_path / "index" / "askai-index.json").read_text())
    assert manifest["default_version"] == "1.0"


def test_a_readers_alias_names_its_version(tmp_path: Path) -> None:
    out = tmp_path / "index"
    build_index(branch(tmp_path / "gh-pages"), out, base_url=BASE)
    retriever = BM25Retriever(corpus=load_corpus(out), cache_dir=tmp_path / "cache")
    assert SiteVariants.from_manifest(retriever.corpus.index.manifest).version("latest") == "1.1"
    found = [d.metadata["source_url"] for d in retriever.invoke(QUESTION, version="latest")]
    assert found[0] == "https://lumen.example/1.1/cache/"
    assert [d.metadata["source_url"] for d in retriever.invoke(QUESTION, version="1.0")][0] == (
        "https://lumen.example/1.0/cache/"
    )


def test_default_version_may_name_an_alias(tmp_path: Path) -> None:
    listed: list[dict[str, object]] = [
        {"version": "1.1", "title": "1.1", "aliases": ["latest"]},
        {"version": "1.0", "title": "1.0", "aliases": ["lts"]},
    ]
    build_index(branch(tmp_path / "gh-pages", listed), tmp_path / "index", base_url=BASE, default_version="lts")
    assert json.loads((tmp_path / "index" / "askai-index.json").read_text())["default_version"] == "1.0"


def test_a_mike_branch_without_a_base_url_is_one_line_and_a_non_zero_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(branch(tmp_path / "gh-pages")), "--out", str(tmp_path / "i")]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "give --base-url" in err


def test_cli_index_prints_each_mike_version_with_its_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = branch(tmp_path / "gh-pages")
    assert main(["index", str(root), "--base-url", BASE, "--out", str(tmp_path / "i"), "-q"]) == 0
    assert "  versions: 1.1 (2 pages, default), 1.0 (2 pages)\n" in capsys.readouterr().out
