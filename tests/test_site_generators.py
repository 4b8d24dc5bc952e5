"""Docs trees read the way their generator builds them: MkDocs, Docusaurus, Hugo.

The fixture sites under ``tests/data/generators`` are written for these tests: each holds
the generator syntax real sites use (nav titles, snippet includes, admonitions, attribute
lists, content tabs, MDX in ``.md``, sidebars with ids that differ from file names).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from askai_graph.indexing import build_index, scan_source
from askai_graph.indexing.docusaurus import find_docusaurus
from askai_graph.indexing.mkdocs import find_mkdocs
from askai_graph.indexing.sources import open_source
from askai_graph.indexing.store import IndexReader
from askai_graph.retrieval.corpus import Page

SITES = Path(__file__).parent / "data" / "generators"
MKDOCS_DOCS = SITES / "mkdocs" / "docs"
DOCUSAURUS_DOCS = SITES / "docusaurus" / "docs"


def posts(source: Path, base_url: str | None = None) -> dict[str, Page]:
    return {post.url: post for post in scan_source(source, base_url).items}


def by_file(source: Path, base_url: str | None = None, **options: bool | None) -> dict[str, Page]:
    src = open_source(source, base_url, **options)  # type: ignore[arg-type]
    found = {}
    for unit in src.units:
        result = unit.parse()  # type: ignore[union-attr]
        if isinstance(result, Page):
            found[unit.where] = result  # type: ignore[union-attr]
    return found


# MkDocs


def test_mkdocs_site_url_is_the_default_base_url() -> None:
    assert sorted(posts(MKDOCS_DOCS)) == [
        "https://lantern.example/",
        "https://lantern.example/guide/",
        "https://lantern.example/guide/clients/",
        "https://lantern.example/guide/ssl/",
        "https://lantern.example/orphan/",
        "https://lantern.example/reference/",
    ]


def test_mkdocs_base_url_flag_overrides_site_url() -> None:
    assert "https://mirror.example/v2/guide/ssl/" in posts(MKDOCS_DOCS, "https://mirror.example/v2/")


def test_mkdocs_nav_title_wins_over_the_first_heading() -> None:
    assert posts(MKDOCS_DOCS)["https://lantern.example/guide/clients/"].title == "Clients"


def test_mkdocs_title_is_not_a_hash_comment_inside_a_code_fence() -> None:
    # The page's nav title is "Home"; the H1 (not the shell comment) is what a nav-less read finds.
    assert posts(MKDOCS_DOCS)["https://lantern.example/"].title == "Home"
    from askai_graph.indexing.markup import first_h1

    assert first_h1((MKDOCS_DOCS / "index.md").read_text()) == "Lantern"


def test_mkdocs_attribute_lists_leave_titles_and_headings() -> None:
    ssl = posts(MKDOCS_DOCS)["https://lantern.example/guide/ssl/"]
    assert ssl.title == "Enabling and disabling verification"
    assert "{" not in ssl.body and "# Enabling and disabling verification\n" in ssl.body + "\n"


def test_mkdocs_front_matter_title_wins_over_the_nav() -> None:
    page = posts(MKDOCS_DOCS)["https://lantern.example/reference/"]
    assert page.title == "Settings reference"  # no front matter title: the nav's


def test_mkdocs_catalog_follows_the_nav_order_and_sections(tmp_path: Path) -> None:
    build_index(MKDOCS_DOCS, tmp_path / "index")
    listed = IndexReader(tmp_path / "index").catalog(10)
    assert [(post.title, post.section) for _, post in listed] == [
        ("Home", ""),
        ("The Lantern guide", "The Lantern guide"),
        ("Clients", "The Lantern guide"),
        ("Enabling and disabling verification", "The Lantern guide"),
        ("Settings reference", "Reference"),
        ("An orphan page", ""),  # not in the nav: after every page it lists
    ]


def test_mkdocs_snippet_include_inside_the_repository_is_resolved_as_code() -> None:
    body = posts(MKDOCS_DOCS)["https://lantern.example/guide/clients/"].body
    assert "```python\nfrom lantern import Client\n\nclient = Client(keep_alive=True)\n```" in body
    assert "```python\nfrom lantern import Settings\n\nsettings = Settings(port=8443)\n```" in body
    assert "{*" not in body and "8<" not in body


def test_mkdocs_missing_snippet_is_dropped_with_a_note(tmp_path: Path) -> None:
    summary = build_index(MKDOCS_DOCS, tmp_path / "index")
    assert [(n.where, n.reason) for n in summary.notes] == [
        ("guide/clients.md", "snippet ../../docs_src/client/missing_example.py not found; include dropped")
    ]
    assert summary.skips == []


def test_mkdocs_snippet_outside_the_repository_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "secret.py").write_text("TOKEN = 'do-not-index'\n")
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "mkdocs.yml").write_text("site_url: https://s.example/\n")
    (site / "docs" / "index.md").write_text("# Home\n\nIncluded below.\n\n{* ../../secret.py *}\n")
    summary = build_index(site / "docs", tmp_path / "index")
    page = next(iter(IndexReader(tmp_path / "index").posts))
    assert "do-not-index" not in page.body
    reasons = [n.reason for n in summary.notes]
    assert reasons == ["snippet ../../secret.py is outside the docs repository; include dropped"]


def test_a_braces_include_of_a_python_version_file_is_labelled_with_its_tab(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "docs_src").mkdir()
    (site / ".git").mkdir()
    (site / "docs_src" / "tutorial001_py310.py").write_text("app = Lantern(strict=True)\n")
    (site / "mkdocs.yml").write_text("site_url: https://s.example/\n")
    page = "# Home\n\nStart the app:\n\n{* ../docs_src/tutorial001_py310.py hl[1] *}\n"
    (site / "docs" / "index.md").write_text(page)
    build_index(site / "docs", tmp_path / "index")
    body = next(iter(IndexReader(tmp_path / "index").posts)).body
    assert "**Python 3.10+**\n\n```python\napp = Lantern(strict=True)\n```" in body


def test_a_checkout_without_git_is_bounded_by_its_license_file(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "docs" / "en" / "docs").mkdir(parents=True)
    (project / "docs_src").mkdir()
    (project / "LICENSE").write_text("MIT\n")
    (project / "docs_src" / "app.py").write_text("app = Lantern()\n")
    (project / "docs" / "en" / "mkdocs.yml").write_text("site_url: https://s.example/\n")
    page = "# Home\n\nStart the app:\n\n{* ../../docs_src/app.py *}\n"
    (project / "docs" / "en" / "docs" / "index.md").write_text(page)
    summary = build_index(project / "docs" / "en" / "docs", tmp_path / "index")
    assert summary.notes == []
    assert "```python\napp = Lantern()\n```" in next(iter(IndexReader(tmp_path / "index").posts)).body


def test_mkdocs_admonition_and_tab_bodies_keep_their_code_blocks_fenced() -> None:
    site = posts(MKDOCS_DOCS)
    home = site["https://lantern.example/"].body
    assert "**Before you start**\n\nLantern needs Python 3.11 or newer." in home
    assert '```python\nimport lantern\nlantern.serve("site/")\n```' in home
    assert "```shell\n# The command line client is an optional dependency." in home  # the fence stays code
    clients = site["https://lantern.example/guide/clients/"].body
    assert '**Sync**\n\n```python\nclient.get("/")\n```' in clients
    assert "!!!" not in home and "===" not in clients


def test_mkdocs_block_syntax_is_unwrapped() -> None:
    body = posts(MKDOCS_DOCS)["https://lantern.example/guide/ssl/"].body
    assert "**Self-signed certificates**\n\nTurn verification off only on a trusted network." in body
    assert "///" not in body


def test_mkdocs_summaries_are_plain_text_without_markers() -> None:
    site = posts(MKDOCS_DOCS)
    assert site["https://lantern.example/"].summary == (
        "Lantern serves small static sites over HTTP/3 with no configuration."
    )
    assert site["https://lantern.example/guide/"].summary == "Read the pages in order."
    assert site["https://lantern.example/reference/"].summary == "Every setting, with its default and where it is read."


def test_mkdocs_python_tags_in_the_config_are_read_as_data_not_imported() -> None:
    site = find_mkdocs(MKDOCS_DOCS)
    assert site is not None and site.site_url == "https://lantern.example/"


def test_mkdocs_use_directory_urls_false_gives_html_urls(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(SITES / "mkdocs", site)
    config = site / "mkdocs.yml"
    config.write_text(config.read_text() + "use_directory_urls: false\n")
    assert "https://lantern.example/guide/ssl.html" in posts(site / "docs")
    assert "https://lantern.example/guide/index.html" in posts(site / "docs")


def test_mkdocs_unreadable_config_is_a_clear_error(tmp_path: Path) -> None:
    from askai_graph.retrieval.corpus import CorpusError

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text("nav: [unclosed\n")
    with pytest.raises(CorpusError, match=r"mkdocs.yml is not valid YAML"):
        open_source(tmp_path / "docs", None)


# Docusaurus


def test_docusaurus_config_gives_url_base_url_and_no_trailing_slash() -> None:
    assert sorted(posts(DOCUSAURUS_DOCS)) == [
        "https://marten.example/handbook/docs/basics/first-run",
        "https://marten.example/handbook/docs/basics/tables",
        "https://marten.example/handbook/docs/cli-reference",
        "https://marten.example/handbook/docs/welcome",
    ]


def test_docusaurus_trailing_slash_flag_wins_over_the_config() -> None:
    found = by_file(DOCUSAURUS_DOCS, None, trailing_slash=True)
    assert found["Welcome.md"].url == "https://marten.example/handbook/docs/welcome/"


def test_docusaurus_without_a_config_serves_pages_without_a_slash(tmp_path: Path) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    (tmp_path / "site" / "website" / "docusaurus.config.js").unlink()
    found = by_file(tmp_path / "site" / "docs", "https://marten.example/docs/")
    assert found["basics/TablesGuide.md"].url == "https://marten.example/docs/basics/tables"


@pytest.mark.parametrize("base", ["https://marten.example/", "https://marten.example/handbook/"])
def test_docusaurus_without_a_config_puts_a_site_base_url_under_the_default_route(tmp_path: Path, base: str) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    (tmp_path / "site" / "website" / "docusaurus.config.js").unlink()
    source = open_source(tmp_path / "site" / "docs", base)
    assert source.warnings == [
        f"--base-url {base} does not end in the docs' route base '/docs/' (the config's routeBasePath, "
        f"else Docusaurus' default): pages are published under {base}docs/"
    ]
    found = by_file(tmp_path / "site" / "docs", base)
    assert found["basics/TablesGuide.md"].url == f"{base}docs/basics/tables"


@pytest.mark.parametrize(("route", "base", "docs"), [
    ("guide", "https://marten.example/", "https://marten.example/guide/welcome"),
    ("guide", "https://marten.example/handbook/guide/", "https://marten.example/handbook/guide/welcome"),
    ("/", "https://marten.example/", "https://marten.example/welcome"),
])
def test_docusaurus_route_base_path_comes_from_the_config(route: str, base: str, docs: str, tmp_path: Path) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    config = tmp_path / "site" / "website" / "docusaurus.config.js"
    config.write_text(config.read_text().replace("path: '../docs',", f"path: '../docs', routeBasePath: '{route}',"))
    found = by_file(tmp_path / "site" / "docs", base)
    assert found["Welcome.md"].url == docs


def test_cli_index_warns_on_stderr_when_the_base_url_lacks_the_docs_route(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from askai_graph.cli import main

    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    (tmp_path / "site" / "website" / "docusaurus.config.js").unlink()
    args = ["index", str(tmp_path / "site" / "docs"), "--out", str(tmp_path / "index"), "-q"]
    assert main([*args, "--base-url", "https://marten.example/"]) == 0
    captured = capsys.readouterr()
    assert captured.err == (
        "askai: warning: --base-url https://marten.example/ does not end in the docs' route base '/docs/' (the "
        "config's routeBasePath, else Docusaurus' default): pages are published under https://marten.example/docs/\n"
    )
    assert main([*args, "--base-url", "https://marten.example/docs/"]) == 0
    assert capsys.readouterr().err == ""


def test_docusaurus_front_matter_ids_that_differ_from_file_names_find_their_sidebar_place(tmp_path: Path) -> None:
    build_index(DOCUSAURUS_DOCS, tmp_path / "index")
    listed = IndexReader(tmp_path / "index").catalog(10)
    assert [(post.title, post.section) for _, post in listed] == [
        ("Welcome to Marten", ""),
        ("Your first run", "Basics"),  # sidebar order, not its sidebar_position 9
        ("Tables", "Basics"),
        ("Command line", "Reference"),
    ]


def test_docusaurus_sidebar_label_titles_a_page_without_a_front_matter_title(tmp_path: Path) -> None:
    docs = tmp_path / "site" / "docs"
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    page = docs / "basics" / "TablesGuide.md"
    page.write_text(page.read_text().replace("title: Tables\n", ""))
    assert by_file(docs)["basics/TablesGuide.md"].title == "Working with tables"


def test_docusaurus_mdx_in_md_keeps_text_inside_tags_and_drops_imports() -> None:
    found = by_file(DOCUSAURUS_DOCS)
    welcome = found["Welcome.md"]
    assert welcome.summary == "Marten turns spreadsheets into typed tables you can query."
    assert "import " not in welcome.body and "<Tabs" not in welcome.body and "<TabItem" not in welcome.body
    assert "```bash\nnpm install marten\n```" in welcome.body
    first_run = found["basics/FirstRun.md"]
    assert first_run.summary == "Keep the sample file open while you read."


def test_docusaurus_static_reader_ignores_computed_values(tmp_path: Path) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    config = tmp_path / "site" / "website" / "docusaurus.config.js"
    config.write_text(config.read_text().replace("'https://marten.example'", "process.env.SITE_URL"))
    site = find_docusaurus(tmp_path / "site" / "docs")
    assert site is not None and site.url is None and site.trailing_slash is False
    assert next(iter(by_file(tmp_path / "site" / "docs", "https://flag.example/docs/").values())).url.startswith(
        "https://flag.example/docs/"
    )


def test_docusaurus_sidebars_json_is_read(tmp_path: Path) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    website = tmp_path / "site" / "website"
    (website / "sidebars.js").unlink()
    (website / "sidebars.json").write_text('{"docs": {"Start": ["cli-reference", "welcome"]}}')
    site = find_docusaurus(tmp_path / "site" / "docs")
    assert site is not None and list(site.nav.places) == ["cli-reference", "welcome"]
    assert site.nav.places["welcome"].section == "Start"


# Hugo


def test_hugo_weights_order_the_catalog_and_base_url_comes_from_the_config(tmp_path: Path) -> None:
    build_index(SITES / "hugo" / "content", tmp_path / "index")
    listed = IndexReader(tmp_path / "index").catalog(10)
    assert [(post.title, post.url) for _, post in listed] == [
        ("Handbook", "https://heron.example/handbook/"),
        ("Flight", "https://heron.example/handbook/flight/"),
        ("Feeding", "https://heron.example/handbook/feeding/"),
        ("Nesting", "https://heron.example/handbook/nesting/"),
    ]


# The command line


def test_cli_index_with_an_unreadable_generator_config_exits_1_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from askai_graph.cli import main

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text("nav: [unclosed\n")
    assert main(["index", str(tmp_path / "docs"), "--out", str(tmp_path / "index")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mkdocs.yml is not valid YAML" in err and "at line 2" in err


@pytest.mark.parametrize(("flag", "url"), [
    ("--trailing-slash", "https://marten.example/handbook/docs/welcome/"),
    ("--no-trailing-slash", "https://marten.example/handbook/docs/welcome"),
])
def test_cli_trailing_slash_flag_wins_over_the_config(flag: str, url: str, tmp_path: Path) -> None:
    from askai_graph.cli import main

    assert main(["index", str(DOCUSAURUS_DOCS), "--out", str(tmp_path / "index"), "-q", flag]) == 0
    assert url in {post.url for post in IndexReader(tmp_path / "index").posts}


def test_docusaurus_sidebars_that_are_code_are_not_run_and_say_so(tmp_path: Path) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    sidebars = tmp_path / "site" / "website" / "sidebars.js"
    sidebars.write_text("module.exports = require('./generate')(process.env.DOCS);\n")
    summary = build_index(tmp_path / "site" / "docs", tmp_path / "index")
    assert [(n.where, n.reason) for n in summary.notes] == [
        ("sidebars.js", "not a plain object literal; sidebar order and titles not used")
    ]
    assert summary.posts == 4


def test_docusaurus_docs_of_a_second_sidebar_go_under_its_name(tmp_path: Path) -> None:
    shutil.copytree(SITES / "docusaurus", tmp_path / "site")
    website = tmp_path / "site" / "website"
    (website / "sidebars.js").unlink()
    (website / "sidebars.json").write_text('{"docs": ["welcome"], "api": ["cli-reference"]}')
    site = find_docusaurus(tmp_path / "site" / "docs")
    assert site is not None
    sections = [(key, place.section) for key, place in site.nav.places.items()]
    assert sections == [("welcome", ""), ("cli-reference", "API")]
