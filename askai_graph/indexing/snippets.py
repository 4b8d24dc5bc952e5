"""Snippet includes: put the included file where the page names it, or drop the line with a note.

Two forms are read, as MkDocs sites write them:

- ``--8<-- "path"`` (pymdownx.snippets), on a line of its own, inside or outside a code
  fence; the file's text replaces the line as it is (inside a fence it is code already);
- ``{* path hl[3] *}`` (FastAPI's include of a source file); the file becomes a fenced
  code block whose language comes from the file's extension, options ignored, under a
  bold line naming the tab the site shows it in (``**Python 3.10+**`` for a
  ``…_py310.py`` file), so a quoted block keeps its tab's name.

A path is looked up against the page's folder, the docs root and the folders the site
resolves snippets from (the config's folder and the repository above it). A file is
used only when it exists inside the docs repository (the nearest folder above the docs
root holding ``.git`` or a license file, else the config's folder) and is small;
otherwise the include is dropped and a ``Skip`` note says which and why: a page is never
indexed with the raw include line as its text, and never reads a file outside its
repository.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from askai_graph.indexing.files import Skip

MAX_SNIPPET_BYTES = 200_000
_DASHES = re.compile(r"^(\s*)-{1,}8<-{1,}\s+[\"']([^\"']+)[\"']\s*$")
_BRACES = re.compile(r"^(\s*)\{\*\s*(\S+)(?:\s+[^*]*)?\s*\*\}\s*$")
# FastAPI keeps one file per Python version (``tutorial001_py310.py``) and shows each in a
# tab titled by that version.
_PY_VERSION = re.compile(r"_py3(\d+)$")
_LANGUAGES = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".tsx": "tsx",
    ".jsx": "jsx", ".sh": "bash", ".toml": "toml", ".yml": "yaml", ".yaml": "yaml", ".json": "json",
    ".html": "html", ".css": "css", ".sql": "sql", ".rs": "rust", ".go": "go", ".txt": "text",
}


@dataclass
class Snippets:
    """Resolves includes for the pages of one docs tree and collects the notes of dropped ones."""

    docs_root: Path
    """The docs root (pages' paths are relative to it)."""
    search: Sequence[Path]
    """Further folders a relative snippet path may be resolved against."""
    boundary: Path
    """Files outside this folder are never read."""
    notes: list[Skip] = field(default_factory=list)
    """One note per include dropped in this run."""

    def expand(self, rel: str, body: str) -> str:
        """Return ``body`` of the page at ``rel`` with its includes replaced (or dropped)."""
        if "8<" not in body and "{*" not in body:
            return body
        out: list[str] = []
        for line in body.split("\n"):
            match = _DASHES.match(line) or _BRACES.match(line)
            if match is None:
                out.append(line)
                continue
            indent, target = match.group(1), match.group(2)
            text = self._read(rel, target)
            if text is None:
                continue
            if match.re is _BRACES:
                language = _LANGUAGES.get(Path(target).suffix.lower(), "")
                text = f"```{language}\n{text.rstrip()}\n```"
                version = _PY_VERSION.search(Path(target).stem)
                if version:
                    text = f"**Python 3.{version.group(1)}+**\n\n{text}"
            out.extend(indent + part if part else part for part in text.rstrip("\n").split("\n"))
        return "\n".join(out)

    def _read(self, rel: str, target: str) -> str | None:
        page_folder = (self.docs_root / rel).parent
        candidates = [(folder / target).resolve() for folder in (page_folder, self.docs_root, *self.search)]
        found = next((path for path in candidates if path.is_file()), None)
        if found is None:
            self.notes.append(Skip(rel, f"snippet {target} not found; include dropped"))
            return None
        if not found.is_relative_to(self.boundary.resolve()):
            self.notes.append(Skip(rel, f"snippet {target} is outside the docs repository; include dropped"))
            return None
        try:
            data = found.read_bytes()
        except OSError as exc:
            self.notes.append(Skip(rel, f"snippet {target} unreadable ({exc.strerror or exc}); include dropped"))
            return None
        if len(data) > MAX_SNIPPET_BYTES:
            self.notes.append(Skip(rel, f"snippet {target} is larger than {MAX_SNIPPET_BYTES} bytes; include dropped"))
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.notes.append(Skip(rel, f"snippet {target} is not UTF-8; include dropped"))
            return None


# A project's top folder keeps its license file: a checkout exported without ``.git``
# (``git archive``, a release tarball, a docs snapshot) still has one there.
_ROOT_MARKERS = (".git", "LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING")


def repository_root(start: Path, fallback: Path) -> Path:
    """Return the nearest folder at or above ``start`` holding ``.git`` or a license file, else ``fallback``."""
    for folder in (start.resolve(), *start.resolve().parents):
        if any((folder / marker).exists() for marker in _ROOT_MARKERS):
            return folder
    return fallback.resolve()
