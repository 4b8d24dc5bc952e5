"""Instant search (``retrieval.search``, ``GET /api/search``): ranking, prefixes, typos, snippets, limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from askai_graph import BM25Retriever, Settings, load_corpus
from askai_graph.indexing import IndexReader, build_index
from askai_graph.retrieval import lexicon as lexicon_module
from askai_graph.retrieval import search as search_module
from askai_graph.retrieval.lexicon import Lexicon
from askai_graph.retrieval.search import PageMatch, search
from askai_graph.server import create_app

DOCS = "https://docs.example"
PAGES = [
    {
        "title": "Getting started",
        "url": f"{DOCS}/start/",
        "body": "# Getting started\n\nConfiguration matters. Your configuration, the configuration file and "
        "configuration defaults: configuration is read at start.\n\n## First run\n\nRun the server.",
    },
    {
        "title": "Reference",
        "url": f"{DOCS}/reference/",
        "body": "# Reference\n\nEvery option of the server.\n\n## Ports\n\nThe port is 8000.\n\n"
        "## Configuration\n\nOptions are read from askai.toml.",
        "anchors": [{"heading": "Configuration", "id": "config-file"}],
    },
    {
        "title": "Installation",
        "url": f"{DOCS}/install/",
        "body": "# Installation\n\nInstall the package with pip, then check the installer's log.\n\n"
        "## Validation with Pydantic\n\nModels are validated by pydantic before use.",
    },
    {
        "title": "Embedding the widget",
        "url": f"{DOCS}/widget/",
        "body": '# Embedding the widget\n\n<div class="note">Paste the widget tag</div> into your page:\n\n'
        '```html\n<script src="/widget.js"></script>\n```\n\nThe widget then loads.',
    },
    {
        "title": "Launch notes",
        "url": f"{DOCS}/launch/",
        "body": "# Launch notes\n\n🚀 Rocket deploys are quick: deploy with one command.",
    },
    {"title": "Guide", "url": f"{DOCS}/2.0/guide/", "body": "# Guide\n\nMigrating to the new release."},
    {"title": "Guide", "url": f"{DOCS}/1.0/guide/", "body": "# Guide\n\nMigrating to the old release."},
    {"title": "Guide", "url": f"{DOCS}/fr/2.0/guide/", "body": "# Guide\n\nMigrating en français."},
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("site") / "pages.jsonl"
    path.write_text("\n".join(json.dumps(page) for page in PAGES), "utf-8")
    return path


@pytest.fixture(scope="module")
def retriever(site: Path, tmp_path_factory: pytest.TempPathFactory) -> BM25Retriever:
    return BM25Retriever(corpus=load_corpus(site), cache_dir=tmp_path_factory.mktemp("bm25"))


def urls(found: list[PageMatch]) -> list[str]:
    return [page.url for page in found]


def marked(snippet: str, highlights: Any) -> list[str]:
    """The highlighted words, reading the offsets as JavaScript does (UTF-16 code units)."""
    units = snippet.encode("utf-16-le")
    return [units[2 * start : 2 * end].decode("utf-16-le") for start, end in highlights]


def test_an_exact_heading_match_ranks_first(retriever: BM25Retriever) -> None:
    found = search(retriever, "configuration ", 5)
    assert urls(found)[0] == f"{DOCS}/reference/"
    assert found[0].sections[0].heading == "Configuration"
    assert found[0].sections[0].url == f"{DOCS}/reference/#config-file"  # the page's own anchor
    # Without the heading, the page repeating the word ranks first: the rule is what moved it.
    assert urls(search(retriever, "configuration defaults", 5))[0] == f"{DOCS}/start/"


def test_the_word_being_typed_matches_as_a_prefix(retriever: BM25Retriever) -> None:
    found = search(retriever, "instal", 5)
    assert urls(found)[0] == f"{DOCS}/install/"
    assert "Install" in marked(found[0].sections[0].snippet, found[0].sections[0].highlights)
    # Once a space ends the word it is a word: "instal " is the stem of install, "migr " matches nothing.
    assert search(retriever, "migr ", 5) == []
    assert len(search(retriever, "migr", 5)) == 3


@pytest.mark.parametrize(("typed", "page"), [("configura", "start"), ("installa", "install"), ("validatio", "install")])
def test_a_word_being_typed_past_its_stem_finds_the_pages_of_that_stem(
    retriever: BM25Retriever, typed: str, page: str
) -> None:
    # The index holds "configur", "instal", "valid": a prefix of the typed word, not the other way round.
    assert urls(search(retriever, typed, 5))[:1] == [f"{DOCS}/{page}/"]


def test_a_misspelt_long_word_finds_the_word_within_the_edit_bound(retriever: BM25Retriever) -> None:
    found = search(retriever, "pydnatic models ", 5)
    assert urls(found) == [f"{DOCS}/install/"]
    assert found[0].sections[0].heading == "Validation with Pydantic"
    assert search(retriever, "pdyntaic ", 5) == []  # three edits: too far


def test_a_short_word_is_never_corrected(retriever: BM25Retriever) -> None:
    assert search(retriever, "pip ", 5) and search(retriever, "pup ", 5) == []


def test_snippets_are_text_never_html_and_code_stays_its_characters(retriever: BM25Retriever) -> None:
    (page,) = search(retriever, "widget tag", 5)[:1]
    text = " ".join(section.snippet for section in page.sections)
    assert '<script src="/widget.js"></script>' in text  # code, as text
    assert "<div" not in text and "Paste the widget tag into your page" in text  # prose HTML tags dropped
    assert "```" not in text and "#" not in text


def test_offsets_mark_the_matched_words_inside_the_snippet(retriever: BM25Retriever) -> None:
    for query in ("deploy rocket", "installer log", "configuration "):
        words = [
            word
            for page in search(retriever, query, 5)
            for s in page.sections
            for word in marked(s.snippet, s.highlights)
        ]
        assert words and all(word.lower()[:4] in query for word in words), (query, words)
    (launch,) = search(retriever, "deploy", 5)
    # The rocket is two UTF-16 units: offsets counted in code points would cut "Deploy" wrong.
    assert marked(launch.sections[0].snippet, launch.sections[0].highlights) == ["deploys", "deploy"]


def test_a_site_indexed_without_versions_ignores_the_readers_version_and_locale(retriever: BM25Retriever) -> None:
    # As its answers do: a widget on a versioned page of such a site still finds its pages.
    everything = urls(search(retriever, "migrating", 5))
    assert len(everything) == 3
    assert urls(search(retriever, "migrating", 5, version="3.0", locale="fr")) == everything


@pytest.fixture
def client(site: Path, settings: Settings) -> TestClient:
    return TestClient(create_app(settings=settings.model_copy(update={"corpus": site, "search_per_minute": 5})))


def test_the_route_returns_pages_of_sections_none_endorsed(client: TestClient) -> None:
    with client:
        response = client.get("/api/search", params={"q": "configuration ", "limit": "2"})
    assert response.status_code == 200
    body = response.json()
    assert [page["url"] for page in body["results"]] == [f"{DOCS}/reference/", f"{DOCS}/start/"]
    assert all(page["endorsed"] is False for page in body["results"])
    section = body["results"][0]["sections"][0]
    assert set(section) == {"heading", "url", "snippet", "highlights"}
    assert section["heading"] == "Configuration" and section["url"] == f"{DOCS}/reference/#config-file"
    assert "askai.toml" in section["snippet"]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({}, "q is empty"),
        ({"q": "   "}, "q is empty"),
        ({"q": "x" * 2001}, "a search is at most a question's 2000"),
        ({"q": "pip", "limit": "0"}, "limit must be"),
        ({"q": "pip", "limit": "many"}, "limit must be"),
        ({"q": "pip", "version": "../x"}, "version must be one URL path segment"),
    ],
)
def test_a_bad_query_is_refused_with_a_message(client: TestClient, params: dict[str, str], says: str) -> None:
    with client:
        response = client.get("/api/search", params=params)
    assert response.status_code == 422
    assert says in response.json()["detail"]


def test_searches_have_their_own_rate_limit(client: TestClient) -> None:
    with client:
        statuses = [client.get("/api/search", params={"q": f"pip {i}"}).status_code for i in range(6)]
        assert statuses == [200] * 5 + [429]
        refused = client.get("/api/search", params={"q": "pip"})
        assert "at most 5 a minute" in refused.json()["detail"] and int(refused.headers["Retry-After"]) >= 1
        # Questions are counted apart: the search limit refuses no question.
        assert client.post("/api/chat", json={"message": "How do I install it?"}).status_code == 200


def test_a_repeated_search_is_a_304_by_its_etag(client: TestClient) -> None:
    with client:
        first = client.get("/api/search", params={"q": "install"})
        etag = first.headers["ETag"]
        assert "max-age" in first.headers["Cache-Control"]
        again = client.get("/api/search", params={"q": "install"}, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == etag
        other = client.get("/api/search", params={"q": "installer"}, headers={"If-None-Match": etag})
        assert other.status_code == 200 and other.headers["ETag"] != etag


def test_a_search_over_a_built_index_reads_the_pages_shown_without_their_bodies(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_index(site, tmp_path / "index")
    built = BM25Retriever(corpus=load_corpus(tmp_path / "index"))

    def whole_page(*_: object) -> None:
        raise AssertionError("a search reads a page's title, URL and anchors, never its whole record")

    def markdown(*_: object) -> None:
        raise AssertionError("a search reads the passages as the index stored them for it, never their Markdown")

    monkeypatch.setattr(IndexReader, "post", whole_page)
    monkeypatch.setattr(IndexReader, "passages", markdown)
    found = search(built, "configuration ", 5)
    assert urls(found)[0] == f"{DOCS}/reference/"
    assert found[0].sections[0].url == f"{DOCS}/reference/#config-file"  # its anchors were read when it was built


@pytest.mark.parametrize("query", ["configuration ", "conf", "instal", "valdiation pydan", "widget <script", "ro"])
def test_a_built_index_shows_what_the_same_pages_in_memory_show(
    retriever: BM25Retriever, site: Path, tmp_path: Path, query: str
) -> None:
    build_index(site, tmp_path / "index")
    built = BM25Retriever(corpus=load_corpus(tmp_path / "index"))
    assert search(built, query, 8) == search(retriever, query, 8)  # cut when built, or when searched: the same


def test_an_incremental_build_shows_a_changed_pages_new_text_only(tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    page = {"title": "Ports", "url": f"{DOCS}/ports/", "body": "# Ports\n\nThe port is 8000."}
    other = {"title": "Start", "url": f"{DOCS}/start/", "body": "# Start\n\nRun the server on its port."}
    pages.write_text(json.dumps(page) + "\n" + json.dumps(other), "utf-8")
    build_index(pages, tmp_path / "index")
    page["body"] = "# Ports\n\nThe port is 9000 now."
    pages.write_text(json.dumps(page) + "\n" + json.dumps(other), "utf-8")
    build_index(pages, tmp_path / "index")
    reader = IndexReader(tmp_path / "index")
    assert reader.query("SELECT COUNT(*) FROM shown")[0][0] == reader.query("SELECT COUNT(*) FROM passages")[0][0]
    found = search(BM25Retriever(corpus=load_corpus(tmp_path / "index")), "port ", 5)
    snippets = [section.snippet for page in found for section in page.sections]
    assert "The port is 9000 now." in snippets and not any("8000" in snippet for snippet in snippets)


@pytest.mark.parametrize("rare", [0, 1_000_000])
def test_the_short_cuts_of_the_bm25_pass_find_what_the_full_pass_finds(
    retriever: BM25Retriever, monkeypatch: pytest.MonkeyPatch, rare: int
) -> None:
    index = retriever._lexical_index()
    lexicon = Lexicon.of(index)
    queries = ["configuration server", "port server", "configuration file re", "guide migrating", "run ser",
               "configuration ", "serv", "co", "port"]  # fmt: skip
    monkeypatch.setattr(search_module, "_RARE_POSTINGS", rare)  # the rarest word's postings read first, or never
    for query in queries:
        typed = lexicon.words(query)
        for n in (1, 2, 32):
            full = search_module._full_pass(index, search_module._columns(index, typed), n)
            assert search_module._passages(index, typed, n) == full, (query, n)
    columns = [search_module._columns(index, lexicon.words(query)) for query in queries[:5]]
    assert any(search_module._holding_every_word(index, found, 2) for found in columns) is bool(rare)  # answers some


def test_passages_of_the_same_score_are_ordered_by_document() -> None:
    import numpy as np

    best = search_module._best(np.array([7, 3, 5, 1, 9]), np.array([1.0, 2.0, 1.0, 1.0, 0.5]), 3)
    assert best.tolist() == [3, 1, 5]
    assert search_module._distinct(np.array([5, 1, 5, 2, 1], dtype=np.int32)).tolist() == [1, 2, 5]


def test_a_prefix_of_common_words_stands_for_its_most_frequent_terms_within_the_postings_share(
    retriever: BM25Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    lexicon = Lexicon.of(retriever._lexical_index())
    assert lexicon.beginning("co") == ["configur", "command"]  # a small site: every term, at no cost
    monkeypatch.setattr(lexicon_module, "PREFIX_POSTINGS_FLOOR", 0)  # as on a large site, where it would not fit
    monkeypatch.setattr(lexicon_module, "PREFIX_POSTINGS_SHARE", 0.01)
    assert lexicon.beginning("co") == ["configur"]  # the most frequent one always


def test_a_stored_passage_tells_a_heading_of_exactly_the_query_terms_without_parsing_them() -> None:
    from askai_graph.retrieval.shown import ShownRow, cut_passage, dump_headings

    cut = cut_passage(f"{DOCS}/p/", (), "# Install the server\n\nText.\n\n## Server\n\nMore.\n\n```sh\n# install\n```")
    stored, parsed = ShownRow(1, "P", f"{DOCS}/p/", dump_headings(cut), "[]"), ShownRow(1, "P", "", cut.headings, ())
    for terms, held in [({"instal", "server"}, True), ({"server"}, True), ({"instal"}, True), ({"text"}, False)]:
        assert stored.has_heading(frozenset(terms)) is parsed.has_heading(frozenset(terms)) is held


@pytest.fixture(scope="module")
def huge_page_site(tmp_path_factory: pytest.TempPathFactory) -> BM25Retriever:
    """A release-notes page whose every passage says "dependencies", beside longer pages that say it once."""
    notes = "\n\n".join(
        f"## Version 0.{n}.0\n\nUpgrade the dependencies: dependencies pinned, dependencies bumped, "
        "dependencies dropped."
        for n in range(60)
    )
    filler = " ".join(["Each route declares what it needs and the framework provides it when a request comes in."] * 6)
    pages = [
        {"title": "Release Notes", "url": f"{DOCS}/release-notes/", "body": f"# Release Notes\n\n{notes}"},
        {"title": "Dependencies", "url": f"{DOCS}/dependencies/", "body": f"# Dependencies\n\n{filler} Declare one."},
        {"title": "Sub-dependencies", "url": f"{DOCS}/sub/", "body": f"# Sub-dependencies\n\n{filler} A dependency."},
    ]
    path = tmp_path_factory.mktemp("huge") / "pages.jsonl"
    path.write_text("\n".join(json.dumps(page) for page in pages), "utf-8")
    return BM25Retriever(corpus=load_corpus(path), cache_dir=tmp_path_factory.mktemp("bm25-huge"))


def test_a_huge_page_holding_every_best_passage_leaves_room_for_other_pages(huge_page_site: BM25Retriever) -> None:
    assert set(urls(search(huge_page_site, "dependencies ", 5))) == {
        f"{DOCS}/release-notes/", f"{DOCS}/dependencies/", f"{DOCS}/sub/"
    }


def test_a_word_being_typed_puts_the_page_titled_with_it_first(huge_page_site: BM25Retriever) -> None:
    assert urls(search(huge_page_site, "depe", 5))[0] == f"{DOCS}/dependencies/"
