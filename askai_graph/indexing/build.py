"""``askai index``: build a site index incrementally and swap it in atomically.

Only new and changed units of the source are parsed (``writer.IndexWriter``). The new
index is written into a temporary folder beside ``out`` and renamed into place only once
complete: a failed or interrupted run leaves the previous index untouched.
"""

from __future__ import annotations

import datetime as dt
import glob
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from askai_graph.indexing.crawlstate import STATE as CRAWL_STATE
from askai_graph.indexing.files import DEFAULT_MAX_FILE_BYTES, Skip
from askai_graph.indexing.frontmatter import DEFAULT_MAX_FRONT_MATTER_BYTES
from askai_graph.indexing.llmstxt import LLMS_FULL_TXT, LLMS_TXT
from askai_graph.indexing.sources import Source, open_source
from askai_graph.indexing.store import (
    BM25_DIR,
    DATABASE,
    DOCS,
    EMBEDDINGS,
    FORMAT,
    MANIFEST,
    POSTS,
    VERSION,
    IndexReader,
    is_built_index,
)
from askai_graph.indexing.writer import IndexSummary, IndexWriter
from askai_graph.retrieval.corpus import CorpusError
from askai_graph.retrieval.passages import DEFAULT_PASSAGE_CHARS

if TYPE_CHECKING:  # langchain-core costs about a second to import; an index built without a model never needs it
    from langchain_core.embeddings import Embeddings

__all__ = ["IndexSummary", "StrictIndexError", "build_index", "check_out", "previous_index", "write_source"]


class StrictIndexError(CorpusError):
    """``--strict`` was given and some files were skipped; the previous index is kept."""

    def __init__(self, message: str, summary: IndexSummary) -> None:
        """Carry the run's ``summary`` so the skip report can still be printed."""
        super().__init__(message)
        self.summary = summary


def build_index(
    source: Path,
    out: Path,
    *,
    base_url: str | None = None,
    trailing_slash: bool | None = None,
    strict: bool = False,
    progress: bool = False,
    passage_chars: int = DEFAULT_PASSAGE_CHARS,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_front_matter_bytes: int = DEFAULT_MAX_FRONT_MATTER_BYTES,
    embeddings: Embeddings | None = None,
    embeddings_model: str | None = None,
    version_label: str | None = None,
    locale: str | None = None,
    default_version: str | None = None,
) -> IndexSummary:
    """Index ``source`` (docs tree, built HTML site or JSONL) into the folder ``out``.

    ``base_url`` and ``trailing_slash`` (``None``: as the site's generator config says)
    override what a docs tree's generator config says; ``version_label``, ``locale`` and
    ``default_version`` what it says of its versions and languages (``variants``).

    With ``embeddings`` (named ``embeddings_model``, e.g. ``embeddings.model_key(settings)``)
    every passage gets a vector for dense and hybrid retrieval; an update embeds only
    the passages of new and changed pages unless the model changed.

    Raises:
        CorpusError: the source is unusable or holds no post, or ``out`` exists and is
            not an index. ``StrictIndexError`` when ``strict`` and a file was skipped.
    """
    check_out(out)
    src = open_source(
        source, base_url, max_file_bytes=max_file_bytes, max_front_matter_bytes=max_front_matter_bytes,
        trailing_slash=trailing_slash, version_label=version_label, locale=locale, default_version=default_version,
    )
    return write_source(
        src, out, str(source.resolve()), base_url=base_url, strict=strict, progress=progress,
        passage_chars=passage_chars, embeddings=embeddings, embeddings_model=embeddings_model,
    )


def write_source(
    src: Source,
    out: Path,
    source_name: str,
    *,
    base_url: str | None = None,
    strict: bool = False,
    progress: bool = False,
    passage_chars: int = DEFAULT_PASSAGE_CHARS,
    embeddings: Embeddings | None = None,
    embeddings_model: str | None = None,
) -> IndexSummary:
    """Index the units of ``src`` into the folder ``out`` (see ``build_index``), swapping it in when complete.

    Raises:
        CorpusError: no post, or ``out`` is not an index. ``StrictIndexError`` as ``build_index``.
    """
    started = time.perf_counter()
    if embeddings is not None and not embeddings_model:
        raise ValueError("embeddings need a model name (embeddings_model) to be stored under")
    check_out(out)
    context = json.dumps([src.context, passage_chars, VERSION])
    previous = _previous(out, context)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(out)
    # The builder's pid in the name: a later run can tell a dead build's folder from a live one;
    # the marker inside tells a folder this program made from a user's of a similar name.
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-{os.getpid()}-", dir=out.parent))
    _mark(staging, out)
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private; an index is as readable as any output
    try:
        summary = IndexSummary(out=out, kind=src.kind, embeddings_model=embeddings_model if embeddings else None)
        writer = IndexWriter(staging, previous, summary, passage_chars, embeddings, progress, src.site_name)
        summary = _write(writer, src.units, progress and not src.own_progress)
        summary.notes, summary.report, summary.warnings = list(src.notes), list(src.report), list(src.warnings)
        summary.variants = src.variants.manifest() if src.variants is not None else None
        if strict and summary.errors:
            message = f"{len(summary.errors)} file(s) skipped and --strict is set; the previous index is kept"
            raise StrictIndexError(message, summary)
        summary.seconds = time.perf_counter() - started
        _write_manifest(staging, summary, source_name, base_url, context)
        if src.save is not None:
            src.save(staging)
        _swap(staging, out)
        return summary
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def check_out(out: Path) -> None:
    """Raise ``CorpusError`` unless ``out`` is a new or empty folder, or an earlier index."""
    if out.exists() and not is_built_index(out) and any(out.iterdir()):
        raise CorpusError(f"{out}: exists and is not an askai index; choose another --out")


def previous_index(out: Path, source_context: str, passage_chars: int) -> IndexReader | None:
    """Return the index at ``out`` if a build of a source with ``source_context`` can update it."""
    return _previous(out, json.dumps([source_context, passage_chars, VERSION]))


def remove_stale_staging(out: Path) -> list[Path]:
    """Remove the temporary folders that killed builds of ``out`` left beside it; return them.

    A build removes its own folder when it fails or is interrupted, but a process that is
    killed (SIGKILL, out of memory, a power cut) cannot, and each such folder holds a
    whole index. Only a folder a build made is removed: its name is one a build gives
    (``.OUT-PID-…``), the process named in it is gone, it holds the staging marker naming
    ``out``, this very folder (its name and inode) and nothing but files an index is made
    of. A finished index carries no marker (it is removed before the swap), and a copy of
    a marked folder (``cp -a``) has another inode: neither, nor anything else beside
    ``out`` (a user's ``.docs-2024-backup2``, a folder of another program), is removed.
    """
    named = re.compile(rf"^\.{re.escape(out.name)}-(?:old-)?(\d+)-[0-9a-z_]+$")
    removed = []
    for folder in out.parent.glob(f".{glob.escape(out.name)}-*"):
        match = named.match(folder.name)
        if match is None or folder.is_symlink() or not folder.is_dir():
            continue
        pid = int(match.group(1))
        if pid != os.getpid() and not _alive(pid) and _made_here(folder, out):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


STAGING_MARKER = ".askai-building"
"""The file a build writes first into each folder it makes and removes before the swap.

It names ``--out`` and the folder itself (its name, device and inode). Builds before
this one wrote ``.askai-staging`` holding only the ``--out`` name, and left it in the
finished index; such a folder, or a copy of one, is never taken for a build's.
"""

# What a build writes into its folder, and so all a folder it may remove can hold.
_INDEX_ENTRIES = frozenset(
    {STAGING_MARKER, MANIFEST, DATABASE, f"{DATABASE}-journal", f"{DATABASE}-wal", f"{DATABASE}-shm", BM25_DIR,
     DOCS, POSTS, EMBEDDINGS, LLMS_TXT, LLMS_FULL_TXT, CRAWL_STATE}
)


def _mark(folder: Path, out: Path) -> None:
    (folder / STAGING_MARKER).write_text(json.dumps(_identity(folder, out)), "utf-8")


def _identity(folder: Path, out: Path) -> dict[str, Any]:
    # A copy (``cp -a``, rsync, a restored backup) gets a new inode and a moved folder a new
    # name: either makes the marker name another folder, so only the one a build made matches.
    status = folder.stat()
    return {"out": out.name, "folder": folder.name, "device": status.st_dev, "inode": status.st_ino}


def _made_here(folder: Path, out: Path) -> bool:
    try:
        if json.loads((folder / STAGING_MARKER).read_text("utf-8")) != _identity(folder, out):
            return False
        return all(entry.name in _INDEX_ENTRIES for entry in folder.iterdir())
    except (OSError, ValueError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive, and not ours to judge
    return True


def _previous(out: Path, context: str) -> IndexReader | None:
    if not is_built_index(out):
        return None
    try:
        reader = IndexReader(out)
    except CorpusError:
        return None
    # Another base URL, sitemap or passage size changes every page: start afresh.
    return reader if reader.manifest.get("context") == context else None


def _write(builder: IndexWriter, units: Any, progress: bool) -> IndexSummary:
    from tqdm import tqdm

    for unit in tqdm(units, desc="indexing", unit=" files", disable=not progress, delay=1.0, file=sys.stderr):
        if isinstance(unit, Skip):
            builder.summary.skips.append(unit)
        else:
            builder.add(unit)
    return builder.finish()


def _write_manifest(staging: Path, summary: IndexSummary, source: str, base_url: str | None, context: str) -> None:
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "fingerprint": summary.fingerprint,
        "posts": summary.posts,
        "passages": summary.passages,
        "kind": summary.kind,
        "source": source,
        "base_url": base_url,
        "context": context,
        "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "embeddings": {"model": summary.embeddings_model, "dimensions": summary.dimensions, "dtype": "float16"}
        if summary.embeddings_model
        else None,
        "skipped": [{"file": s.where, "reason": s.reason, "draft": s.draft} for s in summary.skips],
        "notes": [{"file": n.where, "note": n.reason} for n in summary.notes],
        **(summary.variants or {}),
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=1), "utf-8")


def _swap(staging: Path, out: Path) -> None:
    # Two renames: the old index moves aside, the new one takes its name. A reader that
    # opened the old one keeps its open files (and memory maps) until it restarts.
    # The aside name is new (a random suffix), so no folder of that name is ever replaced.
    aside = None
    (staging / STAGING_MARKER).unlink()  # the finished index, and so any copy of it, carries no marker
    if out.exists():
        aside = out.with_name(f".{out.name}-old-{os.getpid()}-{secrets.token_hex(4)}")
        out.rename(aside)
        _mark(aside, out)  # so a build killed before the removal below leaves a folder the next one may remove
    staging.rename(out)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
