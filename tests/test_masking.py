"""Each masked shape, positive and negative; echoes in answers; idempotence."""

from __future__ import annotations

import re

import pytest

from askai_graph.text.masking import LABELS, findings, luhn_ok, mask, mask_echoes, searchable

# A value a key would have, assembled so that no scanner mistakes this file for a leak.
_KEY = "A1b2C3d4E5f6G7h8I9j0K1l2"

POSITIVE = [
    ("email", "mail me at jane.doe+docs@example.co.uk please", "mail me at [email] please"),
    ("phone", "call +44 20 7946 0958 tomorrow", "call [phone] tomorrow"),
    ("phone", "call (555) 123-4567 now", "call [phone] now"),
    ("phone", "call +14155552671", "call [phone]"),
    ("ipv4", "my server 203.0.113.42 refuses", "my server [ip] refuses"),
    ("ipv6", "host 2001:db8:85a3::8a2e:370:7334 is down", "host [ip] is down"),
    ("card", "card 4111 1111 1111 1111 declined", "card [card] declined"),
    ("card", "card 5500-0000-0000-0004 declined", "card [card] declined"),
    ("sk", f"my key sk-proj-{_KEY} fails", "my key [secret] fails"),
    ("sk", f"my key sk-{_KEY} fails", "my key [secret] fails"),
    ("ghp", f"token ghp_{_KEY}xyz fails", "token [secret] fails"),
    ("github_pat", f"token github_pat_{_KEY}_{_KEY} fails", "token [secret] fails"),
    ("aws", "id AKIAIOSFODNN7EXAMPLE here", "id [secret] here"),
    ("jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU is rejected", "jwt [jwt] is rejected"),
    ("bearer", "Authorization: Bearer abcdefghijklmnop works?", "Authorization: Bearer [secret] works?"),
    ("hex", "hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok", "hash [token] ok"),
    ("base64", f"blob {_KEY}{_KEY}== ok", "blob [token] ok"),
    ("credentials", "clone https://bob:s3cret@git.example.com/repo.git", "clone https://[credentials]git.example.com/repo.git"),
    ("credentials", f"clone https://{_KEY}@github.com/o/r", "clone https://[credentials]github.com/o/r"),
    ("card before a full stop", "my card is 4111111111111111.", "my card is [card]."),
    ("dotted card", "card 4111.1111.1111.1111 declined", "card [card] declined"),
    ("idn email", "write to jürgen@münchen.de today", "write to [email] today"),
    ("unsigned jwt", "jwt eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0. is rejected", "jwt [jwt] is rejected"),
    ("padded jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0=.c2lnbmF0dXJl== is rejected", "jwt [jwt] is rejected"),
    (
        "text fragment",
        "from https://www.google.com/url?q=https://docs.example/p#:~:text=jane%40example.org,hunter2 ok",
        "from https://www.google.com/url?q=https://docs.example/p#[fragment] ok",
    ),
    ("sk without a digit", "key sk-abcdefghijklmnopqrstuvwxyzABCD fails", "key [secret] fails"),
    ("ghp without a digit", "token ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ fails", "token [secret] fails"),
    ("aws without a digit", "id AKIAABCDEFGHIJKLMNOP here", "id [secret] here"),
    ("stripe", "key sk_live_abcdefghijKLMNOP fails", "key [secret] fails"),
    ("bearer colon", "header Bearer: abcdefghijklmnop here", "header Bearer: [secret] here"),
    ("bearer token in prose", f"I send Bearer {_KEY} and get 401", "I send Bearer [secret] and get 401"),
    ("basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [secret]"),
    ("basic in prose", "it sends Basic YWxhZGRpbjpvcGVuc2VzYW1l each time", "it sends Basic [secret] each time"),
    ("phone after call", "call me at 4155550100 please", "call me at [phone] please"),
    ("phone long last group", "phone 0049 30 1234567 today", "phone [phone] today"),
    ("phone before a full stop", "my number is 415 555 0100.", "my number is [phone]."),
    ("phone before a colon", "call +1 415 555 0100: is it right?", "call [phone]: is it right?"),
]

NEGATIVE = [
    ("email", "what does the @decorator syntax do?"),
    ("phone", "released on 2024-01-15 as version 1.2.3"),
    ("phone", "set the timeout to 30000 ms"),
    ("loopback", "bind the server to 127.0.0.1 or 0.0.0.0 or ::1"),
    ("ip-like version", "upgrade from 1.2.3.4.5 to 2.0"),
    ("card", "order number 4111 1111 1111 1112 is not a card (Luhn fails)"),
    ("sk", "the sk-learn package"),
    ("aws", "AKIA is a prefix"),
    ("jwt", "eyJ alone is nothing"),
    ("bearer", "a bearer token in the header"),
    ("hex", "colour #ff0000 and short hash 9f86d08"),
    ("base64", "antidisestablishmentarianismantidisestablishmentarianism"),
    ("credentials", "see https://example.com/@user/posts"),
    ("time", "meet at 10:30:00 with std::vector"),
    ("decimal", "pi is 3.14159265358979 to fifteen places"),
    ("bearer word", "How do I use Bearer authentication in FastAPI?"),
    ("basic word", "How does Basic authentication work?"),
    ("sk words", "is it sk-learn-compatible-estimators or not"),
    ("path", "what is in /usr/local/lib/python3/site-packages/fastapi/applications"),
    ("big integer", "why does the number 2147483647 overflow"),
    ("anchor", "see https://docs.example/page#section-2 for more"),
]


@pytest.mark.parametrize(("shape", "text", "masked"), POSITIVE, ids=[case[0] for case in POSITIVE])
def test_each_shape_is_masked(shape: str, text: str, masked: str) -> None:
    assert mask(text) == masked


@pytest.mark.parametrize(("shape", "text"), NEGATIVE, ids=[case[0] for case in NEGATIVE])
def test_what_only_resembles_a_shape_is_kept(shape: str, text: str) -> None:
    assert mask(text) == text


@pytest.mark.parametrize(("shape", "text", "masked"), POSITIVE, ids=[case[0] for case in POSITIVE])
def test_masking_is_idempotent(shape: str, text: str, masked: str) -> None:
    assert mask(mask(text)) == mask(text)


def test_luhn() -> None:
    assert luhn_ok("4111111111111111")
    assert not luhn_ok("4111111111111112")


def test_an_answer_echoing_the_readers_email_is_masked_but_the_sites_own_examples_are_not() -> None:
    answer = "Send it to jane@example.org; the docs use admin@site.test in examples."
    assert mask_echoes(answer, "Can I reach jane@example.org?") == (
        "Send it to [email]; the docs use admin@site.test in examples."
    )


def test_findings_name_what_was_masked() -> None:
    assert [(f.label, f.text) for f in findings("a@b.io at 203.0.113.9")] == [
        ("email", "a@b.io"),
        ("ip", "203.0.113.9"),
    ]


@pytest.mark.parametrize(("shape", "text", "masked"), POSITIVE, ids=[case[0] for case in POSITIVE])
def test_searchable_text_keeps_no_label_to_search_for(shape: str, text: str, masked: str) -> None:
    labels = "|".join(LABELS)
    assert searchable(text) == " ".join(re.sub(rf"\[(?:{labels})\]", " ", masked).split())


def test_searchable_text_is_the_masked_text_without_its_labels() -> None:
    assert searchable("My e-mail is jane@example.org: how does BM25 rank pages?") == (
        "My e-mail is : how does BM25 rank pages?"
    )
    assert searchable("sk-abcdefghijklmnopqrstuvwxyzABCD") == ""
