"""Python side of the Node renderer harness (``tests/renderers/render.mjs``).

One Node process renders every draft with the Markdown renderers chat front ends ship
and answers, per renderer, with each URL the page would make live, resolved by browser
URL rules against a page URL. Drafts go over stdin as JSON lines and come back in order,
so thousands of drafts cost one process start.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HARNESS = Path(__file__).parent / "renderers"
PAGE_URL = "https://answers.page.example/help/ask?q=caching"
"""The page the answer is shown on: relative URLs resolve against it, as in a browser."""

INSTALL_HINT = (
    "the renderer differential test needs Node.js 20+ and npm (Debian: apt-get install nodejs npm), "
    "then `npm ci --prefix tests/renderers` (make test runs it)"
)


class HarnessUnavailable(RuntimeError):
    """Node, npm or the harness's packages are missing."""


@dataclass(frozen=True)
class LiveUrl:
    """One URL a renderer made live."""

    renderer: str
    kind: str
    """``link``, ``image``, ``anchor`` (in-page ``#...``) or ``other`` (iframe, form...)."""
    href: str
    """The attribute value as the renderer wrote it."""
    resolved: str | None
    """``new URL(href, page).href``, or ``None`` when a browser could not parse it."""


@dataclass(frozen=True)
class Rendering:
    """Every renderer's live URLs for one draft, and the allowed URLs resolved alike."""

    live: tuple[LiveUrl, ...]
    allowed_links: frozenset[str]
    allowed_images: frozenset[str]
    errors: dict[str, str]

    def leaks(self) -> list[LiveUrl]:
        """Live URLs that do not resolve to an allowed URL of their kind.

        In-page anchors (``href="#..."``, e.g. GFM footnote references) navigate nowhere
        else; URLs a browser cannot parse are dead; everything else must be allowed.
        """
        bad = []
        for url in self.live:
            if url.kind == "anchor" or url.resolved is None:
                continue
            allowed = self.allowed_images if url.kind == "image" else self.allowed_links if url.kind == "link" else ()
            if url.resolved not in allowed:
                bad.append(url)
        return bad


class RendererHarness:
    """A running ``node render.mjs``; use as a context manager."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None or shutil.which("npm") is None:
            raise HarnessUnavailable("node/npm not found: " + INSTALL_HINT)
        if not (HARNESS / "node_modules" / "mermaid").is_dir():
            raise HarnessUnavailable("tests/renderers/node_modules is missing: " + INSTALL_HINT)
        self._process = subprocess.Popen(
            [node, str(HARNESS / "render.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def __enter__(self) -> RendererHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the Node process."""
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout:
            self._process.stdout.close()

    def _ask_many(self, requests: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Send every request (from a thread, so neither pipe fills up) and yield the answers."""
        assert self._process.stdin is not None and self._process.stdout is not None
        stdin = self._process.stdin

        def write() -> None:
            for request in requests:
                stdin.write(json.dumps(request) + "\n")
            stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        for _ in requests:
            line = self._process.stdout.readline()
            if not line:
                raise HarnessUnavailable(f"the renderer harness exited (code {self._process.poll()})")
            answer = json.loads(line)
            if "error" in answer:
                raise RuntimeError(f"renderer harness: {answer['error']}")
            yield answer
        writer.join()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request, one answer."""
        return next(iter(list(self._ask_many([request]))))

    def render_many(self, drafts: Iterable[tuple[str, Iterable[str], Iterable[str]]]) -> list[Rendering]:
        """Render each ``(markdown, allowed links, allowed images)``; answers in order."""
        requests = [
            {"op": "render", "markdown": md, "page": PAGE_URL, "allowed": {"link": list(links), "image": list(images)}}
            for md, links, images in drafts
        ]
        return [_rendering(answer) for answer in self._ask_many(requests)]

    def render(self, markdown: str, links: Iterable[str], images: Iterable[str]) -> Rendering:
        """Render one draft."""
        return self.render_many([(markdown, links, images)])[0]


def _rendering(answer: dict[str, Any]) -> Rendering:
    live = tuple(
        LiveUrl(renderer, kind, href, resolved)
        for renderer, urls in answer["live"].items()
        for kind, href, resolved in urls
    )
    allowed = answer["allowed"]
    return Rendering(live, frozenset(allowed["link"]), frozenset(allowed["image"]), answer["errors"])
