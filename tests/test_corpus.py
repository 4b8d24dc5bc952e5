"""Loading a site's posts: the bundled sample, folders, JSONL, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askai_graph import CorpusError, load_corpus
from askai_graph.indexing.loader import bundled_site
from askai_graph.indexing.sources import scan_source

POST = '---\ntitle: "A"\nurl: https://s.example/a\nsummary: "S"\n---\nBody text.\n'


def test_bundled_sample_site_has_at_least_24_posts_with_unique_urls() -> None:
    corpus = load_corpus()
    assert len(corpus.posts) >= 24
    assert len({p.url for p in corpus.posts}) == len(corpus.posts)
    assert all(p.title and p.summary and p.body for p in corpus.posts)
    assert any(p.images for p in corpus.posts)


def test_the_bundled_pages_are_the_sample_site_as_its_markdown_parses_now() -> None:
    parsed = scan_source(bundled_site(), base_url=None)
    assert parsed.skips == []
    bundled = load_corpus()
    assert list(bundled.posts) == parsed.items, "stale askai_graph/sample_site.jsonl: run scripts/bundled_pages.py"
    assert bundled.fingerprint == load_corpus(bundled_site()).fingerprint


def test_markdown_folder_loads_front_matter_and_body(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(POST)
    (tmp_path / "notes.txt").write_text("ignored")
    (post,) = load_corpus(tmp_path).posts
    assert (post.title, post.url, post.summary, post.body) == ("A", "https://s.example/a", "S", "Body text.")


def test_jsonl_file_loads_posts(tmp_path: Path) -> None:
    path = tmp_path / "site.jsonl"
    record = {
        "title": "A",
        "url": "https://s.example/a",
        "content": "Body.",
        "images": [{"url": "https://s.example/i.png"}],
    }
    path.write_text(json.dumps(record) + "\n\n")
    (post,) = load_corpus(path).posts
    assert (post.body, post.images[0].url) == ("Body.", "https://s.example/i.png")


def test_fingerprint_changes_when_a_post_changes(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(POST)
    before = load_corpus(tmp_path).fingerprint
    (tmp_path / "a.md").write_text(POST.replace("Body", "New body"))
    assert load_corpus(tmp_path).fingerprint != before


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.md": "no front matter"}, "no 'url' in front matter and no base URL"),
        ({"a.md": "---\ntitle: A\n"}, "not closed"),
        ({"a.md": "---\ntitle: [unclosed\n---\n"}, "not valid YAML"),
        ({"a.md": '---\ntitle: "A"\n---\nbody'}, "no 'url' in front matter"),
        ({}, ""),
        ({"a.md": POST.replace('summary: "S"', "images: [{alt: x}]")}, "each image needs a 'url'"),
        ({"a.md": POST.replace("https://s.example/a", "ftp://s.example/a")}, "not an absolute http"),
        ({"a.md": POST.replace('summary: "S"', "images: [{url: 'data:image/png,x'}]")}, "not an absolute http"),
    ],
)
def test_folder_without_a_usable_post_is_a_clear_error(tmp_path: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(CorpusError, match=f"no posts found.*{message}"):
        load_corpus(tmp_path)


def test_bad_file_beside_good_ones_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "a.md").write_text(POST)
    (tmp_path / "b.md").write_text(POST)
    (tmp_path / "c.md").write_text("---\ntitle: [unclosed\n---\n")
    assert [post.url for post in load_corpus(tmp_path).posts] == ["https://s.example/a"]
    assert "skipped b.md: duplicate url https://s.example/a (already used by a.md)" in caplog.text
    assert "skipped c.md: front matter is not valid YAML" in caplog.text


def test_path_url_in_front_matter_is_joined_to_the_site_url(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(POST.replace("https://s.example/a", "/posts/a/"))
    (post,) = load_corpus(tmp_path, base_url="https://s.example/blog/").posts
    assert post.url == "https://s.example/blog/posts/a/"


def test_bad_jsonl_line_is_skipped_and_named(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "site.jsonl"
    path.write_text('{"title": "A", "url": "https://s.example/a"}\nnot json\n')
    assert len(load_corpus(path).posts) == 1
    assert "skipped site.jsonl:2: not JSON" in caplog.text


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not a built index, a docs or HTML folder, or a .jsonl file"):
        load_corpus(tmp_path / "nope")


def test_relative_front_matter_image_resolves_against_the_page_url(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(POST.replace('summary: "S"', "images: [{url: /img/a.png, alt: A}]"))
    (post,) = load_corpus(tmp_path).posts
    assert [(i.url, i.alt) for i in post.images] == [("https://s.example/img/a.png", "A")]


def test_a_file_name_is_shown_escaped_when_a_tree_is_loaded_directly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "a.md").write_text(POST)
    forged = "c\x1b]8;;evil.example\x07\nWARNING fake line.md"
    (tmp_path / forged).write_text("---\ntitle: [unclosed\n---\n")
    load_corpus(tmp_path)
    [record] = [record for record in caplog.records if "skipped" in record.getMessage()]
    shown = record.getMessage()
    assert "\x1b" not in shown and "\n" not in shown and "\x07" not in shown
    assert "skipped c\\x1b]8;;evil.example\\x07\\nWARNING fake line.md: front matter" in shown
