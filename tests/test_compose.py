"""compose.yaml (the deployments of docs/deployment.md) names every image by a pinned version.

No Docker engine runs the file here; this keeps it honest: a floating tag (``latest``,
no tag, or a bare major such as ``redis:7``) would make the same file deploy different
software next month.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parent.parent / "compose.yaml"
PINNED = re.compile(r"^[\w./-]+(:(?P<tag>[\w.-]+))?(@sha256:[0-9a-f]{64})?$")


def images(service: dict[str, Any]) -> list[str]:
    """The images a service runs or builds from (``image``, and the ``FROM`` lines of an inline Dockerfile)."""
    found = [service["image"]] if "image" in service else []
    inline = service.get("build", {}).get("dockerfile_inline", "")
    found += re.findall(r"^FROM\s+(\S+)", inline, flags=re.MULTILINE)
    return found


def pinned(image: str) -> bool:
    """A digest, or a tag carrying at least ``major.minor`` (never ``latest``)."""
    match = PINNED.match(image)
    if match is None:
        return False
    tag = match["tag"] or ""
    return "@sha256:" in image or (tag != "latest" and re.search(r"\d+\.\d+", tag) is not None)


def test_every_service_runs_a_pinned_image() -> None:
    services: dict[str, dict[str, Any]] = yaml.safe_load(COMPOSE.read_text())["services"]
    unpinned = {name: image for name, service in services.items() for image in images(service) if not pinned(image)}
    assert all(images(service) for service in services.values())
    assert unpinned == {}


@pytest.mark.parametrize(
    ("image", "ok"),
    [
        ("redis:7.4.2-bookworm", True),
        ("langchain/langgraph-api:0.16.7-py3.11", True),
        (f"postgres@sha256:{'a' * 64}", True),
        ("redis", False),
        ("redis:latest", False),
        ("redis:7", False),
    ],
)
def test_pinned_tells_versions_from_floating_tags(image: str, ok: bool) -> None:
    assert pinned(image) is ok
