"""An id issued to a reader (a search's ``search_id``) is recognised for that reader only."""

from __future__ import annotations

import re

from askai_graph.stores.readers import ReaderHash

READERS = ReaderHash("k" * 32)
ALICE, BOB = READERS("198.51.100.7"), READERS("203.0.113.9")


def test_an_issued_id_is_32_hex_digits_and_new_each_time() -> None:
    first, second = READERS.issue(ALICE), READERS.issue(ALICE)
    assert re.fullmatch(r"[0-9a-f]{32}", first) and first != second


def test_an_issued_id_is_its_readers_only() -> None:
    issued = READERS.issue(ALICE)
    assert READERS.issued(issued, ALICE)
    assert not READERS.issued(issued, BOB)


def test_an_id_under_another_key_or_altered_is_no_ones() -> None:
    issued = READERS.issue(ALICE)
    altered = issued[:-1] + ("0" if issued[-1] != "0" else "1")
    assert not ReaderHash("x" * 32).issued(issued, ALICE)
    assert not READERS.issued(altered, ALICE)
    assert not READERS.issued(issued[:16], ALICE)
    assert not READERS.issued("ab" * 16, ALICE)
