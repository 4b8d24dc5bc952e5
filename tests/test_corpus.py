"""Loading a site's posts: the bundled sample, folders, JSONL, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from askai_graph import CorpusError, load_corpus

POST = '---\ntitle: "A"\nurl: https://s.example/a\nsummary: "S"\n---\nBody text.\n'


def test_bundled_sample_site_has_at_least_24_posts_with_unique_urls() -> None:
    corpus = load_corpus()
    assert len(corpus.posts) >= 24
    assert len({p.url for p in corpus.posts}) == len(corpus.posts)
    assert all(p.title and p.summary and p.body for p in corpus.posts)
    assert any(p.images for p in corpus.posts)


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
        ({"a.md": "no front matter"}, "missing front matter"),
        ({"a.md": "---\ntitle: A\n"}, "not closed"),
        ({"a.md": "---\ntitle: [unclosed\n---\n"}, "not valid YAML"),
        ({"a.md": '---\ntitle: "A"\n---\nbody'}, "missing or empty 'url'"),
        ({"a.md": POST, "b.md": POST}, "duplicate url"),
        ({}, "no posts found"),
        ({"a.md": POST.replace('summary: "S"', "images: [{alt: x}]")}, "images.0.url"),
        ({"a.md": POST.replace("https://s.example/a", "/posts/a")}, "not an absolute http"),
        ({"a.md": POST.replace('summary: "S"', "images: [{url: img/a.png}]")}, "not an absolute http"),
    ],
)
def test_malformed_folder_is_a_clear_error(tmp_path: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(CorpusError, match=message):
        load_corpus(tmp_path)


def test_bad_jsonl_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "site.jsonl"
    path.write_text('{"title": "A", "url": "https://s.example/a"}\nnot json\n')
    with pytest.raises(CorpusError, match=r"site.jsonl:2: not JSON"):
        load_corpus(path)


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not a folder of Markdown posts or a .jsonl file"):
        load_corpus(tmp_path / "nope")
