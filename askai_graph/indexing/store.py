"""The on-disk site index: one folder with a manifest, a SQLite file and a bm25s index.

```
DIR/askai-index.json   manifest: format version, fingerprint, counts, source, skips
DIR/pages.sqlite3      posts, passages (with their token ids and as search shows them), vocabulary, catalog
DIR/bm25/              the bm25s score matrix, loaded memory-mapped
DIR/documents.npy      the passage row id of each BM25 document
DIR/posts.npy          the post row ids, in corpus order
DIR/embeddings.npy     with an embedding model: one float16 unit vector per BM25 document
```

The vectors are kept in SQLite too (table ``embeddings``, one row per passage), so the
next build copies them with the database and embeds only new and changed passages; the
manifest names the model they come from, and a build with another model re-embeds all.

Row ids are not contiguous: an incremental build edits a copy of the previous database
in place, so the two arrays map positions to rows.

A server opens it in milliseconds: the manifest gives the fingerprint, the BM25 matrix
is memory-mapped, and posts and passages are read from SQLite only when a query
retrieves them. Nothing re-reads or re-hashes the source.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from askai_graph.retrieval.bm25 import BM25Index
from askai_graph.retrieval.corpus import CorpusError, Page

MANIFEST = "askai-index.json"
DATABASE = "pages.sqlite3"
BM25_DIR = "bm25"
DOCS = "documents.npy"
POSTS = "posts.npy"
EMBEDDINGS = "embeddings.npy"
FORMAT = "askai-index"
VERSION = 8  # 3: posts keep their headings' anchors; 4: tab labels over their code; 5: version and locale;
# 6: passages as search shows them (table ``shown``); 7: the page title counts three times in BM25 terms;
# 8: BM25 length normalisation b = 0.65

MMAP_BYTES = 1 << 34
"""How much of the database a reader maps (SQLite caps it at its build's limit, 2 GB by default)."""

SCHEMA = """
CREATE TABLE posts (
    id INTEGER PRIMARY KEY, unit TEXT NOT NULL, stamp TEXT NOT NULL, digest TEXT NOT NULL, url TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL, summary TEXT NOT NULL, body TEXT NOT NULL, images TEXT NOT NULL,
    weight REAL, date TEXT, page_digest TEXT NOT NULL, section TEXT NOT NULL DEFAULT '',
    anchors TEXT NOT NULL DEFAULT '[]', version TEXT NOT NULL DEFAULT '', locale TEXT NOT NULL DEFAULT '',
    doc TEXT NOT NULL DEFAULT ''
);
CREATE TABLE passages (id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, heading TEXT NOT NULL,
    text TEXT NOT NULL, tokens BLOB NOT NULL);
CREATE INDEX passages_of_post ON passages (post_id);
CREATE TABLE shown (passage_id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, headings TEXT NOT NULL,
    sections TEXT NOT NULL);
CREATE TABLE skips (unit TEXT NOT NULL, stamp TEXT NOT NULL, digest TEXT NOT NULL, reason TEXT NOT NULL,
    draft INTEGER NOT NULL);
CREATE TABLE vocab (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
CREATE TABLE catalog (rank INTEGER PRIMARY KEY, post_id INTEGER NOT NULL);
"""
# Created on every build (an index written before embeddings existed lacks it). A passage
# whose row is deleted loses its vector in the same build, before any new row can reuse its id.
EMBEDDINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (passage_id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vector_space (max_tokens INTEGER);
"""
# ``vector_space``: how much of a text the model read (one row; none, or NULL: unknown). With
# the model named in the manifest it says which vectors the stored ones can be mixed with.
POST_COLUMNS = (
    "id, unit, stamp, digest, url, title, summary, body, images, weight, date, section, anchors, version, locale, doc,"
    " page_digest"
)
_POST_FIELDS = "title, url, summary, body, images, weight, date, section, anchors, version, locale, doc"


def is_built_index(path: Path) -> bool:
    """Return whether ``path`` is a folder ``askai index`` wrote."""
    return (path / MANIFEST).is_file()


def post_row(post: Page) -> tuple[Any, ...]:
    """Return the stored columns ``title .. doc`` of ``post``."""
    images = json.dumps([image.model_dump() for image in post.images])
    anchors = json.dumps([anchor.model_dump() for anchor in post.anchors])
    return (post.title, post.url, post.summary, post.body, images, post.weight, post.date, post.section, anchors,
            post.version, post.locale, post.doc)


def row_post(row: Sequence[Any]) -> Page:
    """Rebuild a post from the stored columns ``title .. doc`` (already validated once)."""
    title, url, summary, body, images, weight, date, section, anchors, version, locale, doc = row
    return Page.model_validate(
        {"title": title, "url": url, "summary": summary, "body": body, "images": json.loads(images),
         "weight": weight, "date": date, "section": section, "anchors": json.loads(anchors),
         "version": version, "locale": locale, "doc": doc}
    )


class IndexReader:
    """A built index opened for reading; cheap to open, reads pages on demand."""

    def __init__(self, path: Path) -> None:
        """Open the index at ``path``.

        Raises:
            CorpusError: the manifest is unreadable or from another format version.
        """
        self.path = path
        try:
            self.manifest: dict[str, Any] = json.loads((path / MANIFEST).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise CorpusError(f"{path}: unreadable index manifest ({exc})") from None
        if self.manifest.get("format") != FORMAT or self.manifest.get("version") != VERSION:
            raise CorpusError(f"{path}: built by another version of askai-graph; run `askai index` again")
        # One connection, opened now and shared under a lock: it holds the database file
        # open, so a server keeps reading the index it started with (the same one its
        # memory-mapped BM25 matrix comes from) even after `askai index` replaces it.
        self._lock = threading.Lock()
        try:
            uri = (path / DATABASE).resolve().as_uri() + "?mode=ro"
            self._connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
            # Read through a memory map, not a read() call per 4 KB page: a search looks up a
            # few dozen rows spread over the file (at 100k pages, 0.2 ms instead of 1-3 ms on a
            # loaded machine). Safe because a built database is never written again (a rebuild
            # writes a new file), so it cannot shrink under the map.
            self._connection.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            self._connection.execute("SELECT 1 FROM posts LIMIT 1")
        except sqlite3.Error as exc:
            raise CorpusError(f"{path}: unreadable index database ({exc}); run `askai index` again") from None
        try:
            self.documents = np.load(path / DOCS, mmap_mode="r")
            self.post_ids = np.load(path / POSTS, mmap_mode="r")
        except (OSError, ValueError) as exc:
            raise CorpusError(f"{path}: incomplete index ({exc}); run `askai index` again") from None
        self.posts = LazyPosts(self)

    @property
    def fingerprint(self) -> str:
        """The corpus fingerprint recorded when the index was built."""
        return str(self.manifest["fingerprint"])

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """Run one read query and return its rows."""
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()

    def load_bm25(self) -> BM25Index:
        """Return the BM25 index, memory-mapped."""
        return BM25Index.load(self.path / BM25_DIR, mmap=True)

    @property
    def embeddings_model(self) -> str | None:
        """The embedding model the passages were embedded with, or ``None``."""
        embedded = self.manifest.get("embeddings") or {}
        return str(embedded["model"]) if embedded.get("model") else None

    def load_embeddings(self) -> np.ndarray | None:
        """Return the passage vectors (float16, one row per BM25 document), memory-mapped, or ``None``."""
        if self.embeddings_model is None:
            return None
        try:
            matrix: np.ndarray = np.load(self.path / EMBEDDINGS, mmap_mode="r")
        except (OSError, ValueError) as exc:
            raise CorpusError(f"{self.path}: incomplete index ({exc}); run `askai index` again") from None
        if matrix.ndim != 2 or matrix.shape[0] != len(self.documents):
            raise CorpusError(f"{self.path}: its embeddings do not match its passages; run `askai index` again")
        return matrix

    def post(self, post_id: int) -> Page:
        """Return the post with id ``post_id``."""
        rows = self.query(f"SELECT {_POST_FIELDS} FROM posts WHERE id = ?", (post_id,))
        if not rows:
            raise IndexError(post_id)
        return row_post(rows[0])

    def passages(self, documents: Sequence[int]) -> dict[int, tuple[int, str, str]]:
        """Return ``{BM25 document: (post id, heading, text)}`` for ``documents``."""
        rows_of = {int(self.documents[doc]): doc for doc in documents}
        marks = ",".join("?" * len(rows_of))
        sql = f"SELECT id, post_id, heading, text FROM passages WHERE id IN ({marks})"
        return {rows_of[row[0]]: (row[1], row[2], row[3]) for row in self.query(sql, list(rows_of))}

    def shown(self, documents: Sequence[int]) -> dict[int, tuple[int, str, str, str, str]]:
        """Return ``{BM25 document: (post id, page title, page URL, heading terms, sections)}`` in one query.

        What a search reads of a passage: its sections as ``retrieval.shown`` stored them (plain
        text and links, cut when the index was built) and its page's title and URL, never a body.
        """
        rows_of = {int(self.documents[doc]): doc for doc in documents}
        marks = ",".join("?" * len(rows_of))
        sql = (
            "SELECT s.passage_id, s.post_id, p.title, p.url, s.headings, s.sections FROM shown s"
            f" JOIN posts p ON p.id = s.post_id WHERE s.passage_id IN ({marks})"
        )
        return {rows_of[row[0]]: row[1:] for row in self.query(sql, list(rows_of))}

    def passage_posts(self, documents: Sequence[int]) -> dict[int, int]:
        """Return ``{BM25 document: post id}`` for ``documents`` (no passage text is read)."""
        rows_of = {int(self.documents[doc]): doc for doc in documents}
        marks = ",".join("?" * len(rows_of))
        sql = f"SELECT id, post_id FROM passages WHERE id IN ({marks})"
        return {rows_of[row[0]]: row[1] for row in self.query(sql, list(rows_of))}

    def missing_urls(self, urls: Sequence[str]) -> list[str]:
        """Return those of ``urls`` that are no page of this index (one lookup in its unique URL index)."""
        wanted = sorted(set(urls))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        found = {row[0] for row in self.query(f"SELECT url FROM posts WHERE url IN ({marks})", wanted)}
        return [url for url in urls if url not in found]

    def first_passages(self, post_ids: Sequence[int]) -> dict[int, str]:
        """Return each post's first passage text."""
        marks = ",".join("?" * len(post_ids))
        rows = self.query(
            f"SELECT post_id, text FROM passages WHERE id IN (SELECT MIN(id) FROM passages WHERE post_id IN ({marks})"
            " GROUP BY post_id)",
            post_ids,
        )
        return dict(rows)

    def catalog(self, limit: int, within: frozenset[int] | None = None) -> list[tuple[int, Page]]:
        """Return the first ``limit`` posts in the site's order (of those ``within``, if given), with their ids."""
        fields = ", ".join("p." + c.strip() for c in _POST_FIELDS.split(","))
        if within is None:
            rows = self.query(
                f"SELECT p.id, {fields} FROM catalog c JOIN posts p ON p.id = c.post_id ORDER BY c.rank LIMIT ?",
                (limit,),
            )
            return [(row[0], row_post(row[1:])) for row in rows]
        # The catalog's ranks first (ids only), then the first ``limit`` pages in scope.
        ranked = [row[0] for row in self.query("SELECT post_id FROM catalog ORDER BY rank")]
        kept = [post_id for post_id in ranked if post_id in within][:limit]
        return [(post_id, self.post(post_id)) for post_id in kept]


class LazyPosts(Sequence[Page]):
    """The posts of a built index as a sequence, read from SQLite when indexed."""

    def __init__(self, reader: IndexReader) -> None:
        """Serve the posts of ``reader``."""
        self._reader = reader
        self._count = int(reader.manifest["posts"])

    def __len__(self) -> int:
        """Return how many posts the index holds."""
        return self._count

    @overload
    def __getitem__(self, index: int) -> Page: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Page]: ...

    def __getitem__(self, index: int | slice) -> Page | Sequence[Page]:
        """Return one post (or a list of them for a slice)."""
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        return self._reader.post(int(self._reader.post_ids[index]))

    def __iter__(self) -> Iterator[Page]:
        """Yield every post in id order, streaming from SQLite."""
        last = -1
        while True:  # in pages, so the lock is never held while the caller works
            rows = self._reader.query(
                f"SELECT id, {_POST_FIELDS} FROM posts WHERE id > ? ORDER BY id LIMIT 512", (last,)
            )
            if not rows:
                return
            for row in rows:
                yield row_post(row[1:])
            last = rows[-1][0]
