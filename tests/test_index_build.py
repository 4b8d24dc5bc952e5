"""``askai index``: incremental by content hash, atomic, strict, and served fast by ASKAI_CORPUS=DIR."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from askai_graph import Settings, build_graph, load_corpus
from askai_graph.cli import main
from askai_graph.indexing import StrictIndexError, build_index, sources, writer
from askai_graph.indexing.build import STAGING_MARKER
from askai_graph.indexing.store import is_built_index
from askai_graph.retrieval.pages import BM25Retriever

SITES = Path(__file__).parent / "data" / "sites"
BASE = "https://trail.example/"


@pytest.fixture
def hugo(tmp_path: Path) -> Path:
    source = tmp_path / "hugo"
    shutil.copytree(SITES / "hugo", source)
    return source


def test_first_build_parses_every_file_and_reports_all_posts_added(hugo: Path, tmp_path: Path) -> None:
    summary = build_index(hugo, tmp_path / "index", base_url=BASE)
    assert (summary.posts, summary.parsed, len(summary.added)) == (7, 8, 7)
    assert (summary.changed, summary.removed) == ([], [])


def test_unchanged_rebuild_parses_nothing_and_keeps_the_fingerprint(hugo: Path, tmp_path: Path) -> None:
    first = build_index(hugo, tmp_path / "index", base_url=BASE)
    again = build_index(hugo, tmp_path / "index", base_url=BASE)
    assert (again.parsed, again.added, again.changed, again.removed) == (0, [], [], [])
    assert again.fingerprint == first.fingerprint
    assert again.skips == first.skips  # the draft is still reported, from the stored reason


def test_incremental_rebuild_parses_only_the_changed_file(
    hugo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = build_index(hugo, tmp_path / "index", base_url=BASE)
    page = hugo / "posts" / "first-aid-kit.md"
    page.write_text(page.read_text().replace("foil blanket", "foil blanket and a whistle"))
    parsed: list[str] = []
    real_parse = sources.FileUnit.parse

    def recording_parse(unit: sources.FileUnit) -> Any:
        parsed.append(unit.key)
        return real_parse(unit)

    monkeypatch.setattr(sources.FileUnit, "parse", recording_parse)
    second = build_index(hugo, tmp_path / "index", base_url=BASE)
    assert parsed == ["posts/first-aid-kit.md"]
    assert second.changed == ["https://trail.example/posts/first-aid-kit/"]
    assert (second.added, second.removed, second.posts) == ([], [], 7)
    assert second.fingerprint != first.fingerprint
    docs = BM25Retriever(corpus=load_corpus(tmp_path / "index"), k=1).invoke("whistle")
    assert [d.metadata["source_url"] for d in docs] == ["https://trail.example/posts/first-aid-kit/"]


def test_removed_and_added_files_are_reported(hugo: Path, tmp_path: Path) -> None:
    build_index(hugo, tmp_path / "index", base_url=BASE)
    (hugo / "posts" / "winter-layers.md").unlink()
    (hugo / "posts" / "maps.md").write_text("---\ntitle: Maps\n---\n\nFold a paper map so the route is on top.\n")
    summary = build_index(hugo, tmp_path / "index", base_url=BASE)
    assert summary.removed == ["https://trail.example/posts/winter-layers/"]
    assert summary.added == ["https://trail.example/posts/maps/"]
    assert summary.parsed == 1
    urls = {post.url for post in load_corpus(tmp_path / "index").posts}
    assert "https://trail.example/posts/winter-layers/" not in urls
    assert "https://trail.example/posts/maps/" in urls


def test_a_new_base_url_reindexes_every_page(hugo: Path, tmp_path: Path) -> None:
    build_index(hugo, tmp_path / "index", base_url=BASE)
    summary = build_index(hugo, tmp_path / "index", base_url="https://new.example/")
    assert summary.parsed == 8
    assert all(post.url.startswith("https://new.example/") for post in load_corpus(tmp_path / "index").posts)


def test_failed_build_leaves_the_previous_index_in_place(
    hugo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "index"
    first = build_index(hugo, out, base_url=BASE)
    (hugo / "posts" / "maps.md").write_text("---\ntitle: Maps\n---\n\nFold a paper map.\n")

    def crash(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(writer, "build_bm25", crash)
    with pytest.raises(OSError, match="disk full"):
        build_index(hugo, out, base_url=BASE)
    assert load_corpus(out).fingerprint == first.fingerprint
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hugo", "index"]  # no staging folder left behind


def test_strict_build_fails_on_a_skipped_file_and_keeps_the_previous_index(tmp_path: Path) -> None:
    source = tmp_path / "messy"
    shutil.copytree(SITES / "messy", source)
    out = tmp_path / "index"
    first = build_index(source, out)
    (source / "good-one.md").write_text((source / "good-one.md").read_text().replace("fine", "changed"))
    with pytest.raises(StrictIndexError, match="skipped and --strict is set") as raised:
        build_index(source, out, strict=True)
    assert len(raised.value.summary.errors) == 10
    assert load_corpus(out).fingerprint == first.fingerprint


def test_a_source_with_no_usable_page_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "empty.md").write_text("")
    with pytest.raises(ValueError, match=r"no posts found \(empty.md: empty file\)"):
        build_index(tmp_path / "src", tmp_path / "index")
    assert not (tmp_path / "index").exists()


def test_out_folder_that_is_not_an_index_is_never_overwritten(hugo: Path, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="exists and is not an askai index"):
        build_index(hugo, tmp_path / "docs", base_url=BASE)
    assert (tmp_path / "docs" / "keep.txt").read_text() == "mine"


def test_built_index_is_served_without_its_source(hugo: Path, tmp_path: Path, index_cache: Path) -> None:
    build_index(hugo, tmp_path / "index", base_url=BASE)
    shutil.rmtree(hugo)  # ASKAI_CORPUS=DIR never re-reads the source
    graph = build_graph(settings=Settings(corpus=tmp_path / "index", index_cache_dir=index_cache))
    final = graph.invoke({"question": "What should a first aid kit for a day hike contain?"})
    assert final["outcome"] == "accepted"
    assert final["sources"][0].url == "https://trail.example/posts/first-aid-kit/"


def test_jsonl_source_indexes_like_a_folder(tmp_path: Path) -> None:
    path = tmp_path / "site.jsonl"
    path.write_text(
        '{"title": "A", "url": "https://s.example/a", "content": "Alpha text about kites."}\n'
        '{"title": "B", "url": "https://s.example/b", "content": "Beta text about boats."}\n'
    )
    assert build_index(path, tmp_path / "index").posts == 2
    path.write_text(path.read_text() + '{"title": "C", "url": "https://s.example/c", "content": "Gamma."}\n')
    summary = build_index(path, tmp_path / "index")
    assert (summary.parsed, summary.added) == (1, ["https://s.example/c"])


def test_cli_index_prints_counts_changes_and_each_skip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "index"
    assert main(["index", str(SITES / "messy"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("indexed 2 posts (2 passages) from a docs source into ")
    assert "added 2, changed 0, removed 0 since the last index" in text
    assert "skipped 10 files" in text
    assert "  skipped binary.md: binary file (contains NUL bytes)\n" in text
    assert f"serve it: ASKAI_CORPUS={out} askai ask" in text


def test_cli_index_quiet_prints_the_totals_and_skips_but_no_page(
    hugo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(hugo), "--base-url", BASE, "--out", str(tmp_path / "index"), "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("indexed ") and lines[1].startswith("  added ")
    assert not [line for line in lines if line.startswith(("  added: ", "  note ", "serve it: "))], lines
    assert lines[-1].startswith("  skipped ")


def test_cli_index_strict_exits_non_zero_with_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(SITES / "messy"), "--out", str(tmp_path / "index"), "--strict"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "askai: error: 10 file(s) skipped and --strict is set; the previous index is kept\n"
    assert "skipped empty.md: empty file" in captured.out
    assert not (tmp_path / "index").exists()


def test_cli_index_of_a_missing_source_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(tmp_path / "nope"), "--out", str(tmp_path / "index")]) == 1
    assert capsys.readouterr().err.startswith("askai: error: ")


def test_cli_ask_over_a_built_index(
    hugo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(hugo), "--base-url", BASE, "--out", str(tmp_path / "index"), "-q"]) == 0
    monkeypatch.setenv("ASKAI_CORPUS", str(tmp_path / "index"))
    capsys.readouterr()
    assert main(["ask", "How do I treat water from a stream?"]) == 0
    assert "  - Finding and treating water on the trail <https://trail.example/posts/water-on-the-trail/>" in (
        capsys.readouterr().out
    )


def test_source_folder_as_corpus_derives_urls_from_askai_site_url(
    hugo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASKAI_CORPUS", str(hugo))
    monkeypatch.setenv("ASKAI_SITE_URL", BASE)
    assert main(["ask", "How do I treat water from a stream?"]) == 0
    assert "<https://trail.example/posts/water-on-the-trail/>" in capsys.readouterr().out


def test_a_touched_but_unchanged_file_is_read_and_hashed_but_not_parsed(hugo: Path, tmp_path: Path) -> None:
    build_index(hugo, tmp_path / "index", base_url=BASE)
    page = hugo / "posts" / "first-aid-kit.md"
    page.write_text(page.read_text())  # new mtime, same bytes
    summary = build_index(hugo, tmp_path / "index", base_url=BASE)
    assert (summary.parsed, summary.changed) == (0, [])


def test_a_renamed_file_keeps_its_url_and_the_index_matches_a_fresh_build(hugo: Path, tmp_path: Path) -> None:
    build_index(hugo, tmp_path / "index", base_url=BASE)
    text = (hugo / "posts" / "first-aid-kit.md").read_text()
    (hugo / "posts" / "first-aid-kit.md").unlink()
    (hugo / "posts" / "kit.md").write_text(text.replace("---\n\n", "url: /posts/first-aid-kit/\n---\n\n", 1))
    incremental = build_index(hugo, tmp_path / "index", base_url=BASE)
    fresh = build_index(hugo, tmp_path / "fresh", base_url=BASE)
    # Same post at the same URL, from another file: parsed, but nothing changed for readers.
    assert (incremental.parsed, incremental.added, incremental.changed, incremental.removed) == (1, [], [], [])
    for folder in ("index", "fresh"):
        corpus = load_corpus(tmp_path / folder)
        assert sorted(p.url for p in corpus.posts) == sorted(p.url for p in load_corpus(tmp_path / "fresh").posts)
        (top,) = BM25Retriever(corpus=corpus, k=1).invoke("blister plasters")
        assert top.metadata["source_url"] == "https://trail.example/posts/first-aid-kit/"
    assert fresh.posts == incremental.posts and fresh.passages == incremental.passages


def test_an_open_index_keeps_serving_what_it_opened_after_a_rebuild(hugo: Path, tmp_path: Path) -> None:
    build_index(hugo, tmp_path / "index", base_url=BASE)
    running = BM25Retriever(corpus=load_corpus(tmp_path / "index"), k=1)
    page = hugo / "posts" / "first-aid-kit.md"
    page.write_text(page.read_text().replace("blister plasters", "moleskin"))
    build_index(hugo, tmp_path / "index", base_url=BASE)
    (top,) = running.invoke("blister plasters")  # the old index, consistently, until a restart
    assert "blister plasters" in top.page_content
    (fresh,) = BM25Retriever(corpus=load_corpus(tmp_path / "index"), k=1).invoke("moleskin")
    assert "moleskin" in fresh.page_content


def test_a_fifo_named_like_a_page_is_skipped_unopened(hugo: Path, tmp_path: Path) -> None:
    # Opening a FIFO blocks until something writes to it: a build that opened it would hang.
    os.mkfifo(hugo / "posts" / "pipe.md")
    summary = build_index(hugo, tmp_path / "index", base_url=BASE)
    assert [(s.where, s.reason) for s in summary.skips if s.where == "posts/pipe.md"] == [
        ("posts/pipe.md", "not a regular file (a FIFO)")
    ]
    assert summary.posts == 7


def test_a_killed_builds_temp_folder_is_removed_by_the_next_build(hugo: Path, tmp_path: Path) -> None:
    out = tmp_path / "index"
    _killed_build(hugo, out, at="swap")
    (left,) = _staged(tmp_path)  # the whole staging folder, marker and all
    build_index(hugo, out, base_url=BASE)
    assert not left.exists()
    assert _staged(tmp_path) == []


def test_a_running_builds_temp_folder_is_kept(hugo: Path, tmp_path: Path) -> None:
    out = tmp_path / "index"
    with subprocess.Popen(
        _build_command(hugo, out, "hold"), env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as running:
        assert running.stdout is not None and running.stdin is not None
        assert running.stdout.readline() == "staged\n"  # it waits at the swap until told to go on
        (live,) = _staged(tmp_path)
        build_index(hugo, out, base_url=BASE)
        assert _staged(tmp_path) == [live]
        running.stdin.close()
        assert running.wait() == 9


def test_an_old_index_left_aside_by_a_killed_swap_is_removed_by_the_next_build(hugo: Path, tmp_path: Path) -> None:
    out = tmp_path / "index"
    build_index(hugo, out, base_url=BASE)
    _killed_build(hugo, out, at="removal")  # killed between the swap's renames and its removal of the old index
    (aside,) = (p for p in tmp_path.iterdir() if p.name.startswith(".index-old-"))
    build_index(hugo, out, base_url=BASE)
    assert not aside.exists()
    assert is_built_index(out)


def test_copies_of_a_finished_index_beside_it_survive_the_next_build(hugo: Path, tmp_path: Path) -> None:
    out = tmp_path / "docs"
    assert main(["index", str(hugo), "--base-url", BASE, "--out", str(out), "-q"]) == 0
    copies = [tmp_path / name for name in
              (".docs-2024-backup2", f".docs-{_exited_pid()}-backup2", ".docs-old-20241201-snapshot")]
    for copy in copies:
        subprocess.run(["cp", "-a", str(out), str(copy)], check=True)
    before = {copy.name: _contents(copy) for copy in copies}
    assert main(["index", str(hugo), "--base-url", BASE, "--out", str(out), "-q"]) == 0
    assert {copy.name: _contents(copy) for copy in copies} == before


def test_copies_of_an_index_an_earlier_version_built_survive_the_next_build(hugo: Path, tmp_path: Path) -> None:
    out = tmp_path / "docs"
    build_index(hugo, out, base_url=BASE)
    (out / ".askai-staging").write_text("docs")  # the marker earlier versions left in a finished index
    copy = tmp_path / f".docs-{_exited_pid()}-backup"
    subprocess.run(["cp", "-a", str(out), str(copy)], check=True)
    before = _contents(copy)
    build_index(hugo, out, base_url=BASE)
    assert _contents(copy) == before


def test_a_copy_of_a_killed_builds_temp_folder_is_kept(hugo: Path, tmp_path: Path) -> None:
    out = tmp_path / "index"
    _killed_build(hugo, out, at="swap")
    (left,) = _staged(tmp_path)
    copy = tmp_path / f".index-{_exited_pid()}-copy"
    subprocess.run(["cp", "-a", str(left), str(copy)], check=True)
    before = _contents(copy)
    build_index(hugo, out, base_url=BASE)
    assert not left.exists()
    assert _contents(copy) == before


def test_index_out_keeps_a_users_folders_beside_it(hugo: Path, tmp_path: Path) -> None:
    backup, previous = tmp_path / ".docs-2024-backup", tmp_path / ".docs-previous"
    backup.mkdir()
    (backup / "important.txt").write_text("notes")
    previous.mkdir()
    two_hours_ago = time.time() - 7200
    os.utime(previous, (two_hours_ago, two_hours_ago))
    assert main(["index", str(hugo), "--base-url", BASE, "--out", str(tmp_path / "docs"), "-q"]) == 0
    assert (backup / "important.txt").read_text() == "notes"
    assert previous.is_dir()


def test_a_dead_builds_name_without_the_marker_is_kept(hugo: Path, tmp_path: Path) -> None:
    unmarked = tmp_path / f".index-{_exited_pid()}-abcd1234"  # a user's folder that only looks like one
    unmarked.mkdir()
    (unmarked / "pages.sqlite3").write_text("mine")
    build_index(hugo, tmp_path / "index", base_url=BASE)
    assert (unmarked / "pages.sqlite3").read_text() == "mine"


def test_a_marked_folder_holding_anything_else_is_kept(hugo: Path, tmp_path: Path) -> None:
    _killed_build(hugo, tmp_path / "index", at="swap")
    (used,) = _staged(tmp_path)
    (used / "important.txt").write_text("notes")  # not a file a build writes
    build_index(hugo, tmp_path / "index", base_url=BASE)
    assert (used / "important.txt").read_text() == "notes"


def test_a_folder_marked_for_another_out_is_kept(hugo: Path, tmp_path: Path) -> None:
    _killed_build(hugo, tmp_path / "index", at="swap")
    (other,) = _staged(tmp_path)
    marker = other / STAGING_MARKER
    marker.write_text(json.dumps({**json.loads(marker.read_text()), "out": "index-2"}))
    build_index(hugo, tmp_path / "index", base_url=BASE)
    assert other.is_dir()


_KILLED_BUILD = """
import os, sys
from pathlib import Path
from askai_graph.indexing import build
source, out, base_url, at = sys.argv[1:]
if at == "swap":
    build._swap = lambda staging, out: os._exit(9)
elif at == "hold":
    def hold(staging, out):
        print("staged", flush=True)
        sys.stdin.read()
        os._exit(9)
    build._swap = hold
else:
    build.shutil.rmtree = lambda *args, **kwargs: os._exit(9)
build.build_index(Path(source), Path(out), base_url=base_url)
"""


def _killed_build(source: Path, out: Path, *, at: str) -> None:
    """Run a build in another process that dies (no clean-up) at the swap or at the removal of the old index."""
    assert subprocess.run(_build_command(source, out, at), env=_env(), check=False).returncode == 9


def _build_command(source: Path, out: Path, at: str) -> list[str]:
    return [sys.executable, "-c", _KILLED_BUILD, str(source), str(out), BASE, at]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}


def _staged(folder: Path) -> list[Path]:
    """The folders a build of ``folder/index`` made beside it."""
    return [p for p in folder.iterdir() if p.name.startswith(".index-")]


def _contents(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder`` by relative path, with its bytes (``None`` for a folder)."""
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


def _exited_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_cli_index_prints_file_names_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "site"
    shutil.copytree(SITES / "hugo", source)
    forged = "evil\n  skipped ok.md: \x1b[2Jforged.md"
    (source / "posts" / forged).write_bytes(b"\x00binary")
    assert main(["index", str(source), "--base-url", BASE, "--out", str(tmp_path / "index")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "  skipped posts/evil\\n  skipped ok.md: \\x1b[2Jforged.md: binary file (contains NUL bytes)\n" in out
