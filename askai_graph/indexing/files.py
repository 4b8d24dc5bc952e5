"""Walk a source folder and read its page files, turning every problem into a ``Skip``.

Walking only lists and ``stat``s: a file is read when its size or modification time
differ from the previous index (the way ``git status`` avoids re-hashing a checkout),
and then its SHA-256 decides whether its content really changed. Nothing here raises
for a bad file; each comes back as a ``Skip`` naming the file and the reason.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_FILE_BYTES = 10_000_000
# Folders no site generator publishes from: dependencies and caches.
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


@dataclass(frozen=True)
class FileEntry:
    """A page file found by the walk, not read yet."""

    rel: str
    """Path relative to the source folder, with ``/`` separators."""
    path: str
    """Path to open."""
    stamp: str
    """``size:mtime_ns``; an unchanged stamp means the file was not touched."""
    max_bytes: int
    """Larger files are skipped unread."""

    def read(self) -> PageFile | Skip:
        """Read the file, or say why it cannot be used."""
        try:
            with open(self.path, "rb") as handle:
                data = handle.read(self.max_bytes + 1)
        except OSError as exc:
            return Skip(self.rel, f"unreadable ({exc.strerror or exc})")
        if len(data) > self.max_bytes:
            return Skip(self.rel, f"larger than {self.max_bytes} bytes")
        if not data.strip():
            return Skip(self.rel, "empty file")
        problem = text_problem(data)
        if problem:
            return Skip(self.rel, problem)
        return PageFile(self.rel, data, hashlib.sha256(data).hexdigest())


def walk(root: Path, suffixes: tuple[str, ...], max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Iterator[FileEntry | Skip]:
    """Yield every page file under ``root`` whose name ends in one of ``suffixes``, in path order.

    Hidden files and folders (``.git``), ``node_modules`` and files named ``_*`` other
    than Hugo's ``_index.md`` (Docusaurus partials) are not pages and are passed over.
    A symlink is followed only when its target is inside the source.
    """
    real_root = os.path.realpath(root)
    yield from _walk(str(root), "", real_root, suffixes, max_bytes)


def _walk(
    folder: str, prefix: str, real_root: str, suffixes: tuple[str, ...], max_bytes: int
) -> Iterator[FileEntry | Skip]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        yield Skip(prefix.rstrip("/") or ".", f"unreadable folder ({exc.strerror or exc})")
        return
    files: list[os.DirEntry[str]] = []
    dirs: list[os.DirEntry[str]] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else files).append(entry)
    for entry in files:
        name = entry.name
        if not name.lower().endswith(suffixes) or (name.startswith("_") and not name.startswith("_index.")):
            continue
        rel = prefix + name
        if entry.is_symlink() and not _inside(entry.path, real_root):
            yield Skip(rel, "symlink points outside the source")
            continue
        try:
            info = entry.stat()
        except OSError as exc:
            yield Skip(rel, f"unreadable ({exc.strerror or exc})")
            continue
        if not stat.S_ISREG(info.st_mode):
            # Opening a FIFO blocks until a writer comes, a device may never end: never opened.
            yield Skip(rel, f"not a regular file ({_file_kind(info.st_mode)})")
            continue
        if info.st_size > max_bytes:
            yield Skip(rel, f"larger than {max_bytes} bytes")
            continue
        yield FileEntry(rel, entry.path, f"{info.st_size}:{info.st_mtime_ns}", max_bytes)
    for entry in dirs:
        if entry.name in _IGNORED_DIRS:
            continue
        if entry.is_symlink():
            # Inside the source its target is indexed where it really is; outside, never.
            if not _inside(entry.path, real_root):
                yield Skip(prefix + entry.name, "symlinked folder points outside the source")
            continue
        yield from _walk(entry.path, prefix + entry.name + "/", real_root, suffixes, max_bytes)


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):  # fmt: skip
        if test(mode):
            return kind
    return "not a file"


def text_problem(data: bytes) -> str | None:
    """Return why ``data`` is not UTF-8 text, or ``None`` when it is."""
    if b"\x00" in data[:8192]:
        return "binary file (contains NUL bytes)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    return None


def _inside(path: str, real_root: str) -> bool:
    target = os.path.realpath(path)
    return target == real_root or target.startswith(real_root.rstrip(os.sep) + os.sep)
