"""Real builds of the plugin fixture site (``tests/data/plugins``) with MkDocs and Sphinx, in subprocesses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

PLUGIN_SITE = Path(__file__).parent / "data" / "plugins"


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
