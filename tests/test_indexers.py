"""Each kind of source a real site comes as: URLs, titles, summaries, images and the skip report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from askai_graph.indexing import Skip, scan_source
from askai_graph.indexing.frontmatter import FrontMatterError, split_front_matter
from askai_graph.indexing.urls import page_url

SITES = Path(__file__).parent / "data" / "sites"


def titles(site: str, base_url: str | None) -> dict[str, str]:
    return {post.url: post.title for post in scan_source(SITES / site, base_url).items}


def test_mkdocs_tree_urls_follow_the_folders_and_titles_the_first_heading() -> None:
    assert titles("mkdocs", "https://docs.example/") == {
        "https://docs.example/": "Quaystone documentation",
        "https://docs.example/guide/": "User guide",
        "https://docs.example/guide/configuration/": "Configuring workers",
        "https://docs.example/guide/install/": "Installing Quaystone",
        "https://docs.example/reference/cli/": "Command reference",
    }


def test_docusaurus_tree_honours_slug_and_drops_number_prefixes_and_partials() -> None:
    assert titles("docusaurus", "https://tern.example/docs/") == {
        "https://tern.example/docs/": "Introduction to Tern",
        "https://tern.example/docs/tutorial/create-a-vault/": "Create a vault",
        "https://tern.example/docs/tutorial/sharing/": "Share the vault with your team",
        "https://tern.example/docs/reference/export/": "Export variables",
        "https://tern.example/docs/reference/rotate/": "Rotate a passphrase",
    }


def test_hugo_tree_reads_toml_and_yaml_front_matter_and_skips_drafts() -> None:
    scan = scan_source(SITES / "hugo", "https://trail.example/")
    posts = {post.url: post for post in scan.items}
    assert posts["https://trail.example/posts/choosing-boots/"].date == "2024-08-21"
    assert posts["https://trail.example/posts/weather-turns/"].date == "2022-06-15T08:30:00"
    assert posts["https://trail.example/"].title == "Trail Notes"
    assert scan.skips == [Skip("posts/new-trail-guide.md", "draft: true", draft=True)]
    assert not any("unfinished" in post.title for post in scan.items)


def test_docs_page_summary_images_and_body_links_become_absolute() -> None:
    posts = {p.url: p for p in scan_source(SITES / "mkdocs", "https://docs.example/").items}
    install = posts["https://docs.example/guide/install/"]
    assert install.summary == "Install Quaystone with pip and check that the worker starts."
    assert [(i.url, i.alt) for i in install.images] == [
        ("https://docs.example/img/worker-start.png", "Worker start-up screen")
    ]
    assert "![Worker start-up screen](https://docs.example/img/worker-start.png)" in install.body
    # No description: the summary is the page's first sentence.
    assert posts["https://docs.example/guide/"].summary.startswith("The user guide walks through installing")


def test_mdx_import_lines_are_not_page_text() -> None:
    posts = {p.url: p for p in scan_source(SITES / "docusaurus", "https://tern.example/").items}
    assert "import Tabs" not in posts["https://tern.example/tutorial/sharing/"].body


def test_built_html_site_uses_canonical_urls_description_and_main_content_only() -> None:
    scan = scan_source(SITES / "html", "https://lantern.example/")
    posts = {post.url: post for post in scan.items}
    assert set(posts) == {
        "https://lantern.example/",
        "https://lantern.example/guide/install/",
        "https://lantern.example/about.html",  # no canonical link: the URL it is served at
    }
    install = posts["https://lantern.example/guide/install/"]
    assert install.title == "Installing Lantern"
    assert install.summary == "Download the Lantern binary and put it on your path."
    assert install.date == "2024-02-03"
    assert [(i.url, i.alt) for i in install.images] == [
        ("https://lantern.example/img/terminal.png", "Terminal showing the Lantern version")
    ]
    assert "## Check the installation" in install.body
    for boilerplate in ("Privacy policy", "Copyright", "Blog"):
        assert all(boilerplate not in post.body for post in scan.items)
    assert scan.skips == [Skip("404.html", "the site's 404 page")]


def test_html_page_without_canonical_or_base_url_is_skipped_with_the_reason() -> None:
    scan = scan_source(SITES / "html", None)
    assert {s.where: s.reason for s in scan.skips}["about.html"].startswith("no <link rel=canonical>")


def test_jsonl_records_are_read_line_by_line_and_bad_lines_named(tmp_path: Path) -> None:
    path = tmp_path / "site.jsonl"
    path.write_text(
        '{"title": "A", "url": "https://s.example/a", "content": "Body."}\n'
        "not json\n\n"
        '{"title": "B", "url": "mailto:b@s.example"}\n'
        '{"title": "A again", "url": "https://s.example/a"}\n'
    )
    scan = scan_source(path, None)
    assert [(p.title, p.body) for p in scan.items] == [("A", "Body.")]
    assert [(s.where, s.reason) for s in scan.skips] == [
        ("site.jsonl:2", "not JSON (Expecting value)"),
        ("site.jsonl:4", "url 'mailto:b@s.example' is not an absolute http(s) URL"),
        ("site.jsonl:5", "duplicate url https://s.example/a (already used by site.jsonl:1)"),
    ]


def test_messy_folder_skips_every_bad_file_with_one_reason_each(tmp_path: Path) -> None:
    source = tmp_path / "messy"
    shutil.copytree(SITES / "messy", source)
    outside = tmp_path / "secret.md"
    outside.write_text("---\ntitle: Secret\nurl: https://messy.example/secret/\n---\n\nOutside the source.\n")
    (source / "escape.md").symlink_to(outside)
    (source / "dangling.md").symlink_to(source / "nowhere.md")
    (tmp_path / "elsewhere").mkdir()
    (source / "linked-folder").symlink_to(tmp_path / "elsewhere")
    scan = scan_source(source, None)
    assert sorted(p.url for p in scan.items) == ["https://messy.example/one/", "https://messy.example/two/"]
    reasons = {skip.where: skip.reason for skip in scan.skips}
    assert reasons == {
        "bad-yaml.md": "front matter is not valid YAML (did not find expected ',' or ']' at line 3)",
        "binary.md": "binary file (contains NUL bytes)",
        "dangling.md": "unreadable (No such file or directory)",
        "empty.md": "empty file",
        "escape.md": "symlink points outside the source",
        "ftp-url.md": "url 'ftp://messy.example/file' is not an absolute http(s) URL",
        "huge-front-matter.md": "front matter is longer than 65536 bytes",
        "latin1.md": "not UTF-8 (byte 0xe9 at offset 14)",
        "linked-folder": "symlinked folder points outside the source",
        "not-a-mapping.md": "front matter is not a mapping of keys to values",
        "repeat-of-good-one.md": "duplicate url https://messy.example/one/ (already used by good-one.md)",
        "script-url.md": "url 'javascript:alert(1)' is not an absolute http(s) URL",
        "unclosed.md": "front matter is not closed by '---'",
    }


def test_file_over_the_size_limit_is_skipped_unread(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_text("---\ntitle: Big\nurl: https://s.example/big\n---\n" + "word " * 500)
    scan = scan_source(tmp_path, None, max_file_bytes=1000)
    assert [(s.where, s.reason) for s in scan.skips] == [("big.md", "larger than 1000 bytes")]


def test_yaml_front_matter_is_loaded_safely() -> None:
    with pytest.raises(FrontMatterError, match="not valid YAML"):
        split_front_matter("---\nx: !!python/object/apply:os.system ['true']\n---\nbody")


@pytest.mark.parametrize(
    ("rel", "meta", "expected"),
    [
        ("guide/install.md", {}, "https://s.example/guide/install/"),
        ("guide/index.md", {}, "https://s.example/guide/"),
        ("guide/_index.md", {}, "https://s.example/guide/"),
        ("README.md", {}, "https://s.example/"),
        ("_posts/2024-05-01-hello.md", {}, "https://s.example/_posts/hello/"),
        ("02-usage/01-basics.md", {}, "https://s.example/usage/basics/"),
        ("a/b.md", {"slug": "custom"}, "https://s.example/a/custom/"),
        ("a/b.md", {"slug": "/top"}, "https://s.example/top/"),
        ("a/b.md", {"url": "/about/"}, "https://s.example/about/"),
        ("a/b.md", {"permalink": "https://other.example/x"}, "https://other.example/x"),
        ("a/b c.md", {}, "https://s.example/a/b%20c/"),
    ],
)
def test_page_urls_are_derived_like_site_generators_do(rel: str, meta: dict[str, str], expected: str) -> None:
    assert page_url(rel, meta, "https://s.example/") == expected


def test_body_images_of_another_host_are_not_image_metadata(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "---\ntitle: A\nurl: https://s.example/a/\n---\n\n![chart](/img/chart.png)\n\n![pixel](https://evil.example/p.png)\n"
    )
    (post,) = scan_source(tmp_path, None).items
    assert [image.url for image in post.images] == ["https://s.example/img/chart.png"]


def test_a_built_site_with_a_stray_readme_is_still_a_built_site(tmp_path: Path) -> None:
    shutil.copytree(SITES / "html", tmp_path / "site")
    (tmp_path / "site" / "README.md").write_text("# Deploy notes\n\nThis folder is the output of the build.\n")
    scan = scan_source(tmp_path / "site", "https://lantern.example/")
    assert "https://lantern.example/guide/install/" in {post.url for post in scan.items}


def test_jsonl_order_and_date_fields_are_read_leniently(tmp_path: Path) -> None:
    path = tmp_path / "site.jsonl"
    path.write_text('{"title": "A", "url": "https://s.example/a", "order": "2", "date": "2024-05-01T10:00:00Z"}\n')
    (post,) = scan_source(path, None).items
    assert (post.weight, post.date) == (2.0, "2024-05-01T10:00:00")


def test_indexed_titles_summaries_and_alt_text_are_plain_text(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "---\ntitle: \"Invoice \u202egpj.exe <b>now</b>\"\nurl: https://s.example/a/\n---\n\n"
        "![Chart\u200b <img src=x onerror=alert(1)>](/img/c.png)\n\nThe body text of the page.\n"
    )
    (post,) = scan_source(tmp_path, None).items
    assert post.title == "Invoice gpj.exe now"
    assert post.images[0].alt == "Chart"


def test_built_html_code_blocks_stay_fenced_with_their_language() -> None:
    from askai_graph.indexing.html import parse_html_page

    html = (
        '<html><head><title>Run</title></head><body><main><h1>Run</h1>'
        "<p>Start the worker from a shell before you open the dashboard.</p>"
        '<pre><code class="language-bash">quaystone start\nquaystone status</code></pre>'
        "<p>Or start it from Python code inside your own application process.</p>"
        '<div class="highlight-python"><div class="highlight">'
        "<pre>import quaystone\nquaystone.start()</pre></div></div>"
        "</main></body></html>"
    )
    post = parse_html_page("run/index.html", html, "https://docs.example/", None)
    assert not isinstance(post, Skip)
    assert "```bash\nquaystone start\nquaystone status\n```" in post.body
    assert "```python\nimport quaystone\nquaystone.start()\n```" in post.body
