"""Real builds of the plugin fixture sites with MkDocs, Sphinx and Docusaurus, in subprocesses.

``tests/data/plugins`` holds pages the tests write a config beside; ``tests/builds``
holds whole sites (a Sphinx project, a Docusaurus site with its lock file). The readers
here look at a built page as a reader's browser shows it, and at the index the plugin
wrote, so a test can hold one against the other.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import lxml.html
import yaml
from markdown_it import MarkdownIt

PLUGIN_SITE = Path(__file__).parent / "data" / "plugins"
BUILDS = Path(__file__).parent / "builds"
ROOT = Path(__file__).parent.parent


def clean_env() -> dict[str, str]:
    """The environment of a build: no ASKAI_* variable of the test run."""
    return {k: v for k, v in os.environ.items() if not k.startswith("ASKAI_")}


def mkdocs_project(root: Path, *, plugin: object = "askai", **config: object) -> Path:
    """Write an MkDocs project of the fixture pages under ``root``; return its ``mkdocs.yml``."""
    if not (root / "docs").exists():
        shutil.copytree(PLUGIN_SITE / "docs", root / "docs")
    settings = {
        "site_name": "Lantern",
        "site_url": "https://lantern.example/",
        "nav": [
            {"Home": "index.md"},
            {"Guide": [{"Install": "guide/install.md"}, "guide/ssl.md"]},
            {"Reference": "reference.md"},
        ],
        "plugins": ["search", plugin],
        **config,
    }
    path = root / "mkdocs.yml"
    path.write_text(yaml.safe_dump(settings, sort_keys=False), "utf-8")
    return path


def mkdocs_build(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build`` on ``config`` into its ``site/`` folder."""
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d", str(config.parent / "site"), *extra]
    return subprocess.run(command, cwd=config.parent, env=clean_env(), capture_output=True, text=True, timeout=300)


def sphinx_project(root: Path, conf: str) -> Path:
    """Write a Sphinx project of the fixture pages under ``root`` (``conf`` ends its ``conf.py``); return its folder."""
    source = root / "source"
    if not source.exists():
        shutil.copytree(PLUGIN_SITE / "rst", source)
    (source / "conf.py").write_text('project = "Lantern"\nextensions = ["askai_graph.sphinx"]\n' + conf, "utf-8")
    return source


def sphinx_build(source: Path, builder: str, out: Path) -> subprocess.CompletedProcess[str]:
    """Run ``sphinx-build -b builder`` on ``source`` into ``out``."""
    command = [sys.executable, "-m", "sphinx", "-b", builder, "-q", str(source), str(out)]
    return subprocess.run(command, env=clean_env(), capture_output=True, text=True, timeout=300)


def shown_code(html: str) -> list[str]:
    """Return the text of each ``<pre>`` block of a built page as a browser shows it.

    A ``<br>`` is a line break (Prism writes no newline characters), the numbers of
    Sphinx's ``:linenos:`` are no part of the code (readers cannot select them), and the
    newline ending the last line is dropped. Every other character is kept, trailing
    spaces included.
    """
    root = lxml.html.document_fromstring(html)
    blocks = []
    for pre in root.iter("pre"):
        for number in [node for node in pre.iter("span") if "linenos" in str(node.get("class") or "").split()]:
            number.drop_tree()
        for br in pre.iter("br"):
            br.tail = "\n" + (br.tail or "")
        blocks.append(str(pre.text_content()).removesuffix("\n"))
    return blocks


def indexed_code(markdown: str) -> list[str]:
    """Return the text of each fenced code block of an indexed page, as a CommonMark reader takes it."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [token.content.removesuffix("\n") for token in tokens if token.type == "fence"]


def widget_count(html: str) -> tuple[int, int]:
    """Return how many ``<askai-widget>`` elements and widget scripts a built page has."""
    root = lxml.html.document_fromstring(html)
    scripts = [node for node in root.iter("script") if node.get("data-askai-script") is not None]
    return sum(1 for _ in root.iter("askai-widget")), len(scripts)
