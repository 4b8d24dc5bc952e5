"""Text stays text: titles, summaries and alt text are plain everywhere they travel."""

from __future__ import annotations

import json
import logging
from html import unescape
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from askai_graph import build_graph, load_corpus
from askai_graph.evidence.results import SearchResult
from askai_graph.models.writing import format_sources
from askai_graph.retrieval.pages import BM25Retriever
from askai_graph.server.answers.events import answer_events
from askai_graph.settings import Settings
from askai_graph.state import Source
from askai_graph.text.fencing import fence
from askai_graph.text.plain import clean_question, escape_markdown, markdown_link, plain_text, printable

XSS = "Caching <img src=x onerror=alert(document.cookie)>"


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("List<Document> in Java", "List<Document> in Java"),
        ("a < b && c > d", "a < b && c > d"),
        ("Generics <T> explained", "Generics <T> explained"),
        (XSS, "Caching"),
        ("<b>Bold</b> title<script>alert(1)</script>", "Bold title"),
        ("safe\u202egpj.exe", "safegpj.exe"),
        ("zero\u200bwidth\u2060join\ufeff", "zerowidthjoin"),
        ("control\x00\x07\x1b[31m chars", "control[31m chars"),
        ("  many \n\t spaces  ", "many spaces"),
        ("hidden\U000e0041\U000e0042 tags", "hidden tags"),
    ],
)
def test_plain_text_removes_markup_and_invisible_characters_and_keeps_the_rest(raw: str, plain: str) -> None:
    assert plain_text(raw) == plain


@pytest.mark.parametrize(
    "title",
    ["List<Document>", "a & b &amp; c", "`code` and ``more``", "[x](https://evil.example)", "*em* _em_ ~~s~~ a|b",
     "![img](https://evil.example/i.png)", "back\\slash", "<https://evil.example>", "a <!-- b"],
)  # fmt: skip
def test_escaped_link_text_renders_exactly_as_the_title(title: str) -> None:
    html = MarkdownIt("commonmark").enable("strikethrough").enable("table").render(markdown_link(title, "https://s.example/a"))
    assert html.count("<a ") == 1 and "<img" not in html and "<code" not in html and "<em" not in html
    text = html.split(">", 2)[2].rsplit("</a>", 1)[0]
    assert unescape(text) == title


def test_escape_markdown_leaves_prose_readable() -> None:
    assert escape_markdown("Don't panic: it's 5.0, really!") == "Don't panic: it's 5.0, really\\!"


def test_corpus_titles_summaries_and_alt_text_are_plain_at_load(tmp_path: Path) -> None:
    record = {
        "title": XSS + "\u202e",
        "url": "https://s.example/a",
        "summary": "Sum\u200bmary <script>x</script>",
        "images": [{"url": "https://s.example/i.png", "alt": "alt\u0007 <b>text</b>"}],
        "content": "Body\u200b text </so\u200burce>.",
    }
    (tmp_path / "site.jsonl").write_text(json.dumps(record) + "\n")
    (post,) = load_corpus(tmp_path / "site.jsonl").posts
    assert (post.title, post.summary, post.images[0].alt) == ("Caching", "Summary", "alt text")
    assert post.body == "Body text </source>."


def test_an_over_long_post_is_truncated_at_load_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ASKAI_MAX_POST_CHARS", "1000")
    record = {"title": "Long", "url": "https://s.example/a", "content": "word " * 1000}
    (tmp_path / "site.jsonl").write_text(json.dumps(record) + "\n")
    with caplog.at_level(logging.WARNING):
        (post,) = load_corpus(tmp_path / "site.jsonl").posts
    assert len(post.body) == 1000
    assert "truncated to 1000" in caplog.text and "site.jsonl:1" in caplog.text


def test_sources_events_carry_plain_titles() -> None:
    final = {
        "answer": "An answer.",
        "outcome": "accepted",
        "attempts": 1,
        "gates": {},
        "sources": [Source(title=XSS + "\u200b\u202e", url="https://s.example/a")],
    }
    events = dict(answer_events(final, cached=False, token_chars=24))
    assert [(card["title"], card["url"]) for card in events["sources"]] == [("Caching", "https://s.example/a")]


POSTS = [
    ("Generics: List<Document> & friends", "generics", "Generic collections such as a list of documents keep "
     "retrieval code type safe. A typed document list prevents mixing documents with plain strings."),
    ("BM25 basics", "bm25", "BM25 ranks documents by term frequency and inverse document frequency."),
]  # fmt: skip


def test_an_answer_citing_a_title_with_angle_brackets_passes_validation(tmp_path: Path, settings: Settings) -> None:
    for title, slug, body in POSTS:
        front = f"---\ntitle: {json.dumps(title)}\nurl: https://s.example/{slug}\n---\n{body}\n"
        (tmp_path / f"{slug}.md").write_text(front)
    retriever = BM25Retriever(corpus=load_corpus(tmp_path), k=6, cache_dir=settings.index_cache_dir)
    final = build_graph(retriever=retriever, settings=settings).invoke(
        # Not a "why" question: this test is about the title, not about giving a reason.
        {"question": "What keeps retrieval code type safe with a typed document list?"}
    )
    assert "https://s.example/generics" in final["answer"]
    assert final["attempts"] == 1 and final["gates"]["validation"] == "passed", final["validation"]
    assert "List\\<Document\\> \\& friends" in final["answer"]


@pytest.mark.parametrize(
    "delimiter", ["</source>", "</SOURCE>", "</ source>", "< / Source >", "</so\u200burce>", "\uff1c/source>",
                  "<source index=\"9\">", "</Draft>", "</ draft >"],
)  # fmt: skip
def test_prompt_delimiters_are_neutralised_whatever_their_case_or_spacing(delimiter: str) -> None:
    result = SearchResult(title="T", source_url="https://s.example/a", content=f"before {delimiter} after")
    prompt = format_sources([result])
    assert prompt.lower().count("</source>") == 1 and prompt.lower().count("<source") == 1
    neutral = fence(delimiter).lower().replace(" ", "")
    assert "</source" not in neutral and "<source" not in neutral and "</draft" not in neutral


def test_the_source_block_hands_the_model_writer_an_escaped_link() -> None:
    result = SearchResult(title="List<Document>", source_url="https://s.example/a", content="x")
    assert "cite_as: [List\\<Document\\>](https://s.example/a)" in format_sources([result])


@pytest.mark.parametrize(
    ("asked", "researched"),
    [
        ("How does a \u202esemantic\u202c cache work?", "How does a semantic cache work?"),  # bidi override
        ("How does a sem\u200bantic cache work?", "How does a semantic cache work?"),  # zero-width space
        ("What\u2019s BM25?", "What's BM25?"),
    ],
)
def test_every_surface_researches_the_question_as_the_reader_saw_it(asked: str, researched: str) -> None:
    final = build_graph().invoke({"question": asked})
    assert final["standalone_question"] == researched


@pytest.mark.parametrize(
    ("raw", "clean"), [("What is x²?", "What is x^2?"), ("Is H₂O a name?", "Is H_2O a name?"), ("x2", "x2")]
)
def test_clean_question_keeps_superscripts_and_subscripts_apart_from_plain_digits(raw: str, clean: str) -> None:
    assert clean_question(raw) == clean


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("guide.md", "guide.md"),
        ("a\nb.md", "a\\nb.md"),
        ("\x1b[2Jx.md", "\\x1b[2Jx.md"),
        ("\u202egnp.md", "\\u202egnp.md"),
    ],
)
def test_printable_escapes_what_a_terminal_would_act_on(name: str, shown: str) -> None:
    assert printable(name) == shown
