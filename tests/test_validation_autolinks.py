"""Bare URLs are extracted the way GFM renderers link them (never shorter than they would)."""

from __future__ import annotations

import pytest

from askai_graph.validation.autolinks import bare_urls

CASES = [
    ("plain", "see https://a.example/x now", ["https://a.example/x"]),
    ("trailing_period", "see https://a.example/x.", ["https://a.example/x"]),
    ("trailing_punctuation_run", "see https://a.example/x?!.,:*_~", ["https://a.example/x"]),
    ("interior_punctuation_kept", "https://a.example/a.b?c=d,e", ["https://a.example/a.b?c=d,e"]),
    ("unbalanced_closing_paren", "(see https://a.example/x)", ["https://a.example/x"]),
    (
        "balanced_parens_kept",
        "https://en.a.example/wiki/Cache_(computing)",
        ["https://en.a.example/wiki/Cache_(computing)"],
    ),
    ("entity_like_suffix", "https://a.example/x&amp;", ["https://a.example/x"]),
    ("ends_at_less_than", "https://a.example/x<b>", ["https://a.example/x"]),
    ("quote_is_kept", 'say "https://a.example/x"', ['https://a.example/x"']),
    ("www_gets_http", "visit www.a.example/x today", ["http://www.a.example/x"]),
    ("www_inside_a_word_is_not_a_link", "awww.a.example", []),
    ("scheme_is_case_insensitive", "HTTPS://a.example/x", ["HTTPS://a.example/x"]),
    ("scheme_alone", "the https:// prefix", []),
    ("two_urls", "https://a.example/1 and http://b.example/2", ["https://a.example/1", "http://b.example/2"]),
    ("email", "mail me@a.example.", ["mailto:me@a.example"]),
    ("email_inside_url_is_the_url", "https://me@a.example/x", ["https://me@a.example/x"]),
    ("no_domain_dot", "user@localhost", []),
]


@pytest.mark.parametrize(("text", "expected"), [(t, e) for _, t, e in CASES], ids=[i for i, _, _ in CASES])
def test_bare_url_extraction(text: str, expected: list[str]) -> None:
    assert [d.url for d in bare_urls(text)] == expected
