"""``llms.txt`` and ``llms-full.txt``: written by ``askai index``, served by ``askai serve``, in catalog order."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from askai_graph import Settings
from askai_graph.indexing import IndexReader, build_index
from askai_graph.indexing.llmstxt import LLMS_FULL_TXT, LLMS_TXT, is_home, llms_full_txt, llms_txt, site_pages
from askai_graph.indexing.loader import corpus_for
from askai_graph.retrieval.corpus import Page
from askai_graph.server import create_app

DATA = Path(__file__).parent / "data"
_ITEM = re.compile(r"^- \[(?P<title>(?:\\.|[^\]])*)\]\((?P<url>[^)\s]+)\)(?:: (?P<summary>.*))?$", re.MULTILINE)


def listed(text: str) -> list[str]:
    """The page URLs an ``llms.txt`` lists, in order."""
    return [match["url"] for match in _ITEM.finditer(text)]


def built(tmp_path: Path) -> Path:
    out = tmp_path / "index"
    build_index(DATA / "sites/mkdocs", out, base_url="https://docs.example/")
    return out


def test_askai_index_writes_llms_txt_in_the_catalogs_order(tmp_path: Path) -> None:
    out = built(tmp_path)
    reader = IndexReader(out)
    catalog = [page for _, page in reader.catalog(1000)]
    text = (out / LLMS_TXT).read_text("utf-8")
    assert listed(text) == [page.url for page in catalog]
    assert len(catalog) > 3, "precondition: a site of several pages"


def test_llms_txt_has_the_llmstxt_org_layout(tmp_path: Path) -> None:
    lines = (built(tmp_path) / LLMS_TXT).read_text("utf-8").splitlines()
    assert lines[0].startswith("# ") and lines[1] == "" and lines[2].startswith("> ")
    headings = [line for line in lines[3:] if line.startswith("#")]
    assert headings and all(line.startswith("## ") for line in headings), "pages are listed under H2 sections"
    items = [line for line in lines if line.startswith("- ")]
    assert all(_ITEM.fullmatch(item) for item in items)


def test_llms_full_txt_holds_every_pages_text_in_the_same_order(tmp_path: Path) -> None:
    out = built(tmp_path)
    full = (out / LLMS_FULL_TXT).read_text("utf-8")
    pages = [page for _, page in IndexReader(out).catalog(1000)]
    positions = [full.index(f"Source: {page.url}\n") for page in pages]
    assert positions == sorted(positions)
    assert all(page.body.strip()[:200] in full for page in pages)


def test_the_files_streamed_from_the_index_equal_those_rendered_from_its_pages(tmp_path: Path) -> None:
    out = built(tmp_path)
    pages = [page for _, page in IndexReader(out).catalog(1000)]
    assert (out / LLMS_TXT).read_text("utf-8") == llms_txt(pages)
    assert (out / LLMS_FULL_TXT).read_text("utf-8") == llms_full_txt(pages)


@pytest.mark.parametrize("url", [
    "https://docs.example", "https://docs.example/", "https://docs.example/?next=/a", "https://docs.example#top/x",
    "https://docs.example?q", "http://docs.example:8080/", "https://docs.example/a", "https://docs.example/a/",
    "https://docs.example//", "https://docs.example/index.html", "mailto:someone", "/", "",
])
def test_the_home_page_is_the_url_whose_path_is_empty_or_a_slash(url: str) -> None:
    assert is_home(url) == (urlsplit(url).path in ("", "/"))


def test_a_title_or_summary_holding_markup_stays_plain_text() -> None:
    page = Page(title="Setup](https://evil.example/x) [more", url="https://docs.example/a", summary="See <b>this</b>")
    text = llms_txt([page])
    assert listed(text) == ["https://docs.example/a"]
    assert "<b>" not in text and "](https://evil.example" not in text


def test_askai_serve_serves_both_for_the_bundled_site(settings: Settings) -> None:
    with TestClient(create_app(settings=settings)) as client:
        index, full = client.get("/llms.txt"), client.get("/llms-full.txt")
    assert index.status_code == full.status_code == 200
    assert index.headers["content-type"] == full.headers["content-type"] == "text/plain; charset=utf-8"
    pages = site_pages(corpus_for(settings))
    assert listed(index.text) == [page.url for page in pages]
    assert all(f"Source: {page.url}\n" in full.text for page in pages)


def test_askai_serve_serves_the_files_askai_index_wrote(tmp_path: Path, settings: Settings) -> None:
    out = built(tmp_path)
    (out / LLMS_TXT).write_text("# Written by askai index\n", "utf-8")  # so the test tells written from generated
    with TestClient(create_app(settings=settings.model_copy(update={"corpus": out}))) as client:
        assert client.get("/llms.txt").text == "# Written by askai index\n"
        assert client.get("/llms-full.txt").text == (out / LLMS_FULL_TXT).read_text("utf-8")


@pytest.mark.parametrize(
    ("generator", "config_name", "config"),
    [
        ("mkdocs", "mkdocs.yml", "site_name: Vault Docs\nsite_url: https://docs.example/\n"),
        ("docusaurus", "docusaurus.config.js",
         "export default {\n  title: 'Vault Docs',\n  url: 'https://docs.example',\n  baseUrl: '/',\n"
         "  themeConfig: { navbar: { title: 'Home' } },\n};\n"),
    ],
)  # fmt: skip
def test_llms_txt_is_titled_with_the_sites_name_from_its_config(
    tmp_path: Path, generator: str, config_name: str, config: str
) -> None:
    import shutil

    shutil.copytree(DATA / "sites" / generator, tmp_path / "site" / "docs")
    (tmp_path / "site" / config_name).write_text(config)
    build_index(tmp_path / "site" / "docs", tmp_path / "index")
    for name in (LLMS_TXT, LLMS_FULL_TXT):
        assert (tmp_path / "index" / name).read_text("utf-8").splitlines()[0] == "# Vault Docs"
