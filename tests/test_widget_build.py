"""The committed widget build: current with web/'s sources, within budget, licensed, served without Node."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

from askai_graph.server.routes.web import STATIC_DIR

WEB = Path(__file__).parent.parent / "web"
MANIFEST = json.loads((STATIC_DIR / "build.json").read_text())
BUDGET_GZIP_BYTES = 60 * 1024


def sources_hash() -> str:
    """The hash web/build.mjs records: sorted ``path NUL sha256(content)`` lines of every build input."""
    paths = ["build.mjs", "package.json", "package-lock.json"] + [f"src/{p.name}" for p in (WEB / "src").iterdir()]
    lines = [f"{path}\0{hashlib.sha256((WEB / path).read_bytes()).hexdigest()}\n" for path in sorted(paths)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def test_the_committed_build_is_current_with_the_web_sources() -> None:
    assert MANIFEST["sources_sha256"] == sources_hash(), "web/ changed since the last build: run 'make web'"


def test_every_built_file_is_the_one_the_build_wrote() -> None:
    edited = [
        name
        for name, digest in MANIFEST["files"].items()
        if hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest() != digest
    ]
    assert not edited, f"edited by hand since the build: {edited}; run 'make web'"


def test_no_unrecorded_file_ships() -> None:
    shipped = {p.relative_to(STATIC_DIR).as_posix() for p in STATIC_DIR.rglob("*") if p.is_file()}
    assert shipped - {"build.json"} == set(MANIFEST["files"])


def test_first_load_javascript_is_within_budget() -> None:
    size = len(gzip.compress((STATIC_DIR / "widget.js").read_bytes(), compresslevel=9))
    assert size <= BUDGET_GZIP_BYTES, f"widget.js is {size} bytes gzipped; the budget is {BUDGET_GZIP_BYTES}"


def test_mermaid_is_a_separate_lazily_imported_file() -> None:
    widget = (STATIC_DIR / "widget.js").read_text()
    assert "mermaid/mermaid.esm.min.mjs" in widget  # the dynamic import's target
    assert (STATIC_DIR / "mermaid" / "mermaid.esm.min.mjs").is_file()
    assert "securityLevel" in widget and '"strict"' in widget


def test_every_shipped_npm_package_has_its_license_beside_the_build() -> None:
    lock = json.loads((WEB / "package-lock.json").read_text())
    shipped = {
        f"{path.split('node_modules/')[-1]}@{info['version']}"
        for path, info in lock["packages"].items()
        if path and not info.get("dev") and not info.get("optional")
    }
    licenses = (STATIC_DIR / "THIRD_PARTY_LICENSES.txt").read_text()
    assert {"markdown-it@15.0.3", "eventsource-parser@3.1.1", "mermaid@11.14.0"} <= shipped
    missing = sorted(package for package in shipped if f"\n{package} (" not in licenses)
    assert not missing


def test_no_asset_is_loaded_from_a_cdn() -> None:
    for name in ("index.html", "widget.js"):
        text = (STATIC_DIR / name).read_text()
        for cdn in ("cdn.jsdelivr", "unpkg.com", "cdnjs", "esm.sh", "fonts.googleapis"):
            assert cdn not in text
