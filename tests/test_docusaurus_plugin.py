"""The Docusaurus plugin (``web/docusaurus-plugin/``): its node tests and its askai step.

A real build of a Docusaurus site with the plugin: ``tests/test_docusaurus_site.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from askai_graph.indexing.store import IndexReader
from tests.sites import clean_env

pytestmark = pytest.mark.integration

PLUGIN = Path(__file__).resolve().parent.parent / "web" / "docusaurus-plugin"
SITE_HTML = """<!doctype html><html><head><title>{title}</title><link rel="canonical" href="{url}"></head>
<body><nav>Menu</nav><main><article><h1>{title}</h1><p>{text}</p></article></main></body></html>"""


def node(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env() | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["node", "-e", script, *args], cwd=PLUGIN, env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_node_tests_pass() -> None:
    result = subprocess.run(["node", "--test", "test/"], cwd=PLUGIN, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_its_dark_mode_palettes_are_the_widgets_own() -> None:
    from askai_graph.plugins.widget import DARK, LIGHT

    result = node("console.log(JSON.stringify(require('.').palettes))")
    assert json.loads(result.stdout) == {"LIGHT": LIGHT, "DARK": DARK}


def test_post_build_runs_askai_index_on_the_build_output(tmp_path: Path) -> None:
    build = tmp_path / "build"
    for rel, title, text in [
        ("index.html", "Lantern", "Lantern is a small HTTP proxy that caches responses on disk."),
        ("docs/ssl/index.html", "Certificate verification", "Set verify_tls to false to turn verification off."),
    ]:
        (build / rel).parent.mkdir(parents=True, exist_ok=True)
        url = "https://lantern.example/" + rel.removesuffix("index.html")
        (build / rel).write_text(SITE_HTML.format(title=title, url=url, text=text))
    askai = str(Path(sys.executable).parent / "askai")
    script = ("const p = require('.'); const out = p.writeIndex(p.checkOptions({command: process.argv[1]}), "
              "process.argv[2], 'https://lantern.example/'); console.log(JSON.stringify(out));")
    result = node(script, askai, str(build))
    assert result.returncode == 0, result.stderr
    first, last = result.stdout.strip().splitlines()
    assert first.startswith("askai: indexed 2 posts")
    assert json.loads(last) == str(build / "askai" / "index")
    urls = sorted(post.url for post in IndexReader(build / "askai" / "index").posts)
    assert urls == ["https://lantern.example/", "https://lantern.example/docs/ssl/"]

