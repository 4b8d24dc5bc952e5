"""``askai serve --site DIR``: a built site and its index on one origin, tried in a real browser.

The MkDocs fixture site is built for the address the server will listen on
(``site_url``), so the answer's cards link to the site's own pages, served by the same
process as the widget and the API.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser import ask
from tests.live import AskaiServe, free_port
from tests.sites import clean_env, mkdocs_build, mkdocs_project

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


def serve_env(index_cache: Path) -> dict[str, str]:
    return {"ASKAI_INDEX_CACHE_DIR": str(index_cache), "ASKAI_DATABASE_URL": f"sqlite:///{index_cache / 'site.db'}"}


@pytest.fixture(scope="module")
def material_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root, port = tmp_path_factory.mktemp("material"), free_port()
    config = mkdocs_project(root, theme={"name": "material"}, site_url=f"http://127.0.0.1:{port}/")
    result = mkdocs_build(config)
    assert result.returncode == 0, result.stderr
    return root / "site", port


def test_the_site_the_widget_and_the_api_share_one_origin(
    material_site: tuple[Path, int], index_cache: Path, tmp_path: Path
) -> None:
    site, port = material_site
    with AskaiServe(serve_env(index_cache), tmp_path / "serve.log", "--site", str(site), port=port) as base:
        home = httpx.get(f"{base}/")
        assert home.status_code == 200 and "<askai-widget" in home.text and "Lantern" in home.text
        assert httpx.get(f"{base}/guide/ssl/").status_code == 200
        assert httpx.get(f"{base}/widget.js").headers["content-type"].startswith("text/javascript")
        assert httpx.get(f"{base}/no/such/page/").status_code == 404
        health = httpx.get(f"{base}/healthz").json()
        assert health["posts"] == 5


def test_a_reader_asks_on_a_built_page_and_gets_cards_to_the_sites_own_pages(
    material_site: tuple[Path, int], index_cache: Path, tmp_path: Path, page: Any
) -> None:
    site, port = material_site
    with AskaiServe(serve_env(index_cache), tmp_path / "serve.log", "--site", str(site), port=port) as base:
        page.goto(f"{base}/guide/install/")
        page.locator("[data-askai-open]").click()
        ask(page, "How do I turn certificate verification off?")
        expect(page.locator("[data-askai]")).to_have_attribute("data-state", "done")
        cards = page.locator("a[data-askai-source]")
        expect(cards).to_have_count(1)
        href = cards.first.get_attribute("href")
        assert href is not None and href.startswith(f"{base}/guide/ssl/")
        page.goto(href)
        expect(page.locator("h1")).to_have_text("Certificate verification")


@pytest.mark.parametrize("missing", ["folder", "index"])
def test_a_site_without_its_index_is_a_one_line_error(tmp_path: Path, index_cache: Path, missing: str) -> None:
    site = tmp_path / "site"
    if missing == "index":
        site.mkdir()
        (site / "index.html").write_text("<h1>Home</h1>")
    command = [sys.executable, "-m", "askai_graph", "serve", "--port", "0", "--site", str(site)]
    result = subprocess.run(command, env=clean_env() | serve_env(index_cache), capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"askai: error: --site {site}"), result.stderr
    assert ("not a folder" if missing == "folder" else "no index in") in lines[0]


def test_the_widget_follows_materials_dark_scheme_not_the_systems(tmp_path: Path, page: Any) -> None:
    from starlette.staticfiles import StaticFiles

    from tests.live import LiveServer

    config = mkdocs_project(tmp_path, theme={"name": "material", "palette": {"scheme": "slate"}})
    assert mkdocs_build(config).returncode == 0
    page.emulate_media(color_scheme="light")  # the reader's system is light; the site is dark
    with LiveServer(StaticFiles(directory=tmp_path / "site", html=True)) as base:
        page.goto(f"{base}/guide/ssl/")
        background = page.locator("askai-widget").evaluate("e => getComputedStyle(e).getPropertyValue('--askai-bg')")
    assert background.strip() == "#17191c"  # the widget's dark palette
