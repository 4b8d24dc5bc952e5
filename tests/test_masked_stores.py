"""No store ever holds what a reader pasted: the run log, the search log, feedback and the thread's checkpoints.

A property test over real HTTP: questions carrying generated secrets of every masked
shape (keys without a digit, unsigned and padded JWTs, IDN e-mails, dotted cards,
``Bearer:``, ``Basic`` credentials, text fragments, phone numbers) are searched, clicked
(in a result's ``#:~:text=`` fragment), asked, followed up and commented on; then the
SQLite file's bytes (the WAL included) and every decoded row and checkpoint are read
back. No random part of a secret may be in them, and no part of one, nor a label's
word, may be a Critic gap or a Research query.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import uvicorn
from httpx_sse import connect_sse
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from askai_graph import Settings
from askai_graph.server import create_app
from askai_graph.stores.checkpoints import open_checkpointer
from askai_graph.stores.runlog import open_run_log
from askai_graph.text.masking import LABELS, luhn_ok
from askai_graph.text.terms import words
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


@dataclass(frozen=True)
class Pasted:
    """A secret as a reader pastes it, and the random parts no store may hold."""

    text: str
    parts: tuple[str, ...]
    """Random enough that no store holds them by chance."""
    pieces: tuple[str, ...] = ()
    """Shorter pieces (a phone number's groups) that must become no search term or gap either."""




_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _random(size: int, alphabet: str = _ASCII_LETTERS) -> st.SearchStrategy[str]:
    """``size`` characters of ``alphabet``; letters start with ``zqx``, so no shrunk example is a word a store holds."""
    prefix = "zqx" if "z" in alphabet else "ZQX" if "Z" in alphabet else ""
    return st.text(alphabet, min_size=size - len(prefix), max_size=size - len(prefix)).map(prefix.__add__)


_B64URL = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
_DIGITS = "0123456789"


def _card(digits: str) -> str:
    body = "4" + digits
    return body + next(str(check) for check in range(10) if luhn_ok(f"{body}{check}"))


@st.composite
def pasted(draw: st.DrawFn) -> Pasted:
    kind = draw(st.sampled_from(
        ["sk", "ghp", "aws", "jwt", "email", "card", "bearer", "basic", "fragment", "phone"]
    ))
    if kind == "sk":
        body = draw(_random(32))
        return Pasted(f"sk-{body}", (body,))
    if kind == "ghp":
        body = draw(_random(36))
        return Pasted(f"ghp_{body}", (body,))
    if kind == "aws":
        body = draw(_random(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        return Pasted(f"AKIA{body}", (body,))
    if kind == "jwt":
        header, claims = draw(_random(16, _B64URL)), draw(_random(20, _B64URL))
        signature = draw(st.sampled_from(["", draw(_random(24, _B64URL))]))
        padding = draw(st.sampled_from(["", "=", "=="]))
        parts = (header, claims, signature) if signature else (header, claims)
        return Pasted(f"eyJ{header}{padding}.eyJ{claims}{padding}.{signature}", parts)
    if kind == "email":
        local = draw(_random(8, "abcdefghijklmnopqrstuvwxyzäöüß"))
        domain = draw(_random(8, "abcdefghijklmnopqrstuvwxyzäöü"))
        return Pasted(f"{local}@{domain}.de", (local, domain))
    if kind == "card":
        number = _card(draw(_random(14, _DIGITS)))
        groups = [number[i : i + 4] for i in range(0, 16, 4)]
        text = draw(st.sampled_from([number + ".", ".".join(groups), " ".join(groups), "-".join(groups)]))
        return Pasted(text, (number,), tuple(groups))
    if kind == "bearer":
        token = draw(_random(24, _B64URL))
        prefix = draw(st.sampled_from(["Bearer: ", "Authorization: Bearer ", "bearer:"]))
        return Pasted(prefix + token, (token,))
    if kind == "basic":
        user, password = draw(_random(8)), draw(_random(10))
        encoded = base64.b64encode(f"{user}:{password}".encode()).decode()
        prefix = draw(st.sampled_from(["Basic ", "Authorization: Basic "]))
        return Pasted(prefix + encoded, (encoded.rstrip("="),))
    if kind == "fragment":
        first, second = draw(_random(10, "abcdefghijklmnopqrstuvwxyz")), draw(_random(10, "abcdefghijklmnopqrstuvwxyz"))
        clicked = f"https://www.google.com/url?q=https://docs.example/p#:~:text={first}%20{second}"
        return Pasted(clicked, (first, second))
    area, exchange, line = draw(_random(3, "23456789")), draw(_random(3, "23456789")), draw(_random(4, _DIGITS))
    text = draw(st.sampled_from(
        [f"+1 {area} {exchange} {line}", f"({area}) {exchange}-{line}", f"call me at {area}{exchange}{line}"]
    ))
    return Pasted(text, (f"{area}{exchange}{line}", f"{area} {exchange} {line}"), (area, exchange, line))


QUESTIONS = [
    "How does BM25 rank pages? I tried {p}",
    "{p} - how do I cache answers?",
    "My details are {p}. What is chunking for retrieval?",
    "I tried {p}: how does streaming work?",
]


def test_no_store_holds_what_a_reader_pasted(tmp_path: Path, index_cache: Path) -> None:
    database = tmp_path / "askai.sqlite"
    url = f"sqlite:///{database}"
    settings = Settings(
        index_cache_dir=index_cache, cache_enabled=False, database_url=url, search_settle_seconds=0,
        feedback_per_minute=10_000,
    )
    run_log = open_run_log(url)
    app = create_app(settings=settings, run_log=run_log)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")  # opens the threads
    with LiveServer(app, config) as base, httpx.Client(timeout=60) as client:

        @given(secret=pasted(), template=st.sampled_from(QUESTIONS))
        @hypothesis_settings(max_examples=40, deadline=None, derandomize=True)
        def check(secret: Pasted, template: str) -> None:
            question = template.format(p=secret.text)
            found = client.get(f"{base}/api/search", params={"q": question})
            assert found.status_code == 200, found.text
            page = found.json()["results"][0]["url"].partition("#")[0]  # a click quoting the secret in its fragment
            click = {"query": question, "url": f"{page}#:~:text={quote(secret.text)}"}
            assert client.post(f"{base}/api/search/click", json=click).status_code == 200
            done = _ask(client, base, {"message": question, "search_id": found.json()["search_id"]})
            thread = {"thread_id": done["thread_id"], "thread_token": done["thread_token"]}
            _ask(client, base, {"message": f"And what if I paste {secret.text} there?", **thread})
            comment = {"run_id": done["run_id"], "rating": "down", "comment": f"wrong, mine is {secret.text}"}
            assert client.post(f"{base}/api/feedback", json=comment).status_code == 200
            run_log.flush()
            _assert_kept_masked(database, url, secret)

        check()


def _ask(client: httpx.Client, base: str, body: dict[str, Any]) -> dict[str, Any]:
    with connect_sse(client, "POST", f"{base}/api/chat", json=body) as source:
        source.response.raise_for_status()
        events = [(sse.event, json.loads(sse.data)) for sse in source.iter_sse()]
    assert events[-1][0] == "done", events[-1]
    return dict(events[-1][1])


def _assert_kept_masked(database: Path, url: str, secret: Pasted) -> None:
    stored = b"".join(path.read_bytes() for path in sorted(database.parent.glob(database.name + "*"))).lower()
    assert [part for part in secret.parts if part.lower().encode() in stored] == []
    with sqlite3.connect(database) as connection:
        rows = [
            repr(row)
            for table in ("askai_runs", "askai_searches")
            for row in connection.execute(f"SELECT * FROM {table}")  # noqa: S608 (two fixed names)
        ]
        gaps = [gap for (column,) in connection.execute("SELECT gaps FROM askai_runs") for gap in json.loads(column)]
    connection.close()
    with open_checkpointer(url) as saver:
        checkpoints = list(saver.list(None))
    values = [item.checkpoint["channel_values"] for item in checkpoints]
    writes = [repr(item.pending_writes) for item in checkpoints]
    texts = [*rows, *map(repr, values), *writes]
    lowered = "\n".join(texts).lower()
    assert [part for part in secret.parts if part.lower() in lowered] == []
    derived = [*gaps, *(str(v.get("query") or "") for v in values), *(g for v in values for g in v.get("gaps") or [])]
    pieces = {word for part in (*secret.parts, *secret.pieces) for word in words(part) if len(word) >= 3}
    terms = {word for text in derived for word in words(text)}
    assert not terms & (pieces | LABELS)
