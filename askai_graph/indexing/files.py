"""Walk a source folder and read its page files, turning every problem into a ``Skip``.

A page file is read once: its bytes give the content hash (what incremental indexing
compares) and, when the hash is new, the text the page parser reads. Nothing here
raises for a bad file; each comes back as a ``Skip`` naming the file and the reason.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_FILE_BYTES = 10_000_000
# Folders no site generator publishes from: VCS metadata, dependencies, build caches.
_IGNORED_DIRS = frozenset({"node_modules", "__pycache__", "site-packages"})


@dataclass(frozen=True)
class Skip:
    """A source file (or record) left out of the index, and why."""

    where: str
    """The file's path relative to the source (``file.jsonl:LINE`` for a record)."""
    reason: str
    """One line saying what is wrong with it."""
    draft: bool = False
    """A page marked ``draft: true``: left out on purpose, not an input error."""


@dataclass(frozen=True)
class PageFile:
    """One readable page file of the source."""

    rel: str
    """Path relative to the source folder, with ``/`` separators."""
    data: bytes
    """The file's bytes."""
    digest: str
    """SHA-256 of ``data``; unchanged digest means unchanged page."""

    def text(self) -> str:
        """Return the file's text (already checked to be UTF-8)."""
        return self.data.decode("utf-8")


def walk(root: Path, suffixes: tuple[str, ...], max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Iterator[PageFile | Skip]:
    """Yield every page file under ``root`` whose name ends in one of ``suffixes``, in path order.

    Hidden files and folders (``.git``), ``node_modules`` and files named ``_*`` other
    than Hugo's ``_index.md`` (Docusaurus partials) are not pages and are passed over.
    """
    real_root = root.resolve()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _IGNORED_DIRS)
        here = Path(folder)
        for name in list(dirs):
            path = here / name
            if path.is_symlink():
                dirs.remove(name)
                if not _inside(path, real_root):
                    yield Skip(_rel(path, root), "symlinked folder points outside the source")
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(suffixes):
                continue
            if name.startswith("_") and not name.startswith("_index."):
                continue
            yield read_page(here / name, root, real_root, max_bytes)


def read_page(path: Path, root: Path, real_root: Path, max_bytes: int) -> PageFile | Skip:
    """Read one page file, or say why it cannot be used."""
    rel = _rel(path, root)
    if path.is_symlink() and not _inside(path, real_root):
        return Skip(rel, "symlink points outside the source")
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return Skip(rel, f"larger than {max_bytes} bytes")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        return Skip(rel, f"unreadable ({exc.strerror or exc})")
    if not data.strip():
        return Skip(rel, "empty file")
    problem = text_problem(data)
    if problem:
        return Skip(rel, problem)
    return PageFile(rel, data, hashlib.sha256(data).hexdigest())


def text_problem(data: bytes) -> str | None:
    """Return why ``data`` is not UTF-8 text, or ``None`` when it is."""
    if b"\x00" in data[:8192]:
        return "binary file (contains NUL bytes)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    return None


def _inside(path: Path, real_root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(real_root)
    except (OSError, RuntimeError):  # a symlink loop
        return False


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
