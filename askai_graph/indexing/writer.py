"""Write one index database: start from a copy of the previous one, parse only what changed.

A unit whose stamp (size and mtime) or content hash matches the previous index is not
parsed again: its post, passages and token ids stay as they are (or its skip reason is
reused). The database starts as a page-level copy of the previous one, stale pages are
deleted and new ones inserted; then the catalog is re-ordered and BM25 rebuilt from the
stored token ids (IDF depends on every page), which is vectorised and cheap.

With an embedding model, every passage without a stored vector is embedded (all of them
on the first build; afterwards only those of new and changed pages, since a changed page's
passages are new rows) and the vectors are written out as one float16 matrix. A build
with another model than the previous index's (or none) drops every stored vector first.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from askai_graph.indexing.files import Skip
from askai_graph.indexing.llmstxt import write_index_llms_files
from askai_graph.indexing.sources import Unit, duplicate
from askai_graph.indexing.store import (
    BM25_DIR,
    DATABASE,
    DOCS,
    EMBEDDINGS,
    EMBEDDINGS_SCHEMA,
    POST_COLUMNS,
    POSTS,
    SCHEMA,
    IndexReader,
    post_row,
)
from askai_graph.retrieval.bm25 import Vocabulary, build_bm25
from askai_graph.retrieval.corpus import CorpusError, Page, fingerprint_of, page_digest, site_order_key
from askai_graph.retrieval.dense import DTYPE, EMBED_BATCH, embed_texts
from askai_graph.retrieval.passages import dense_text, passage_text, split_passages
from askai_graph.retrieval.shown import cut_passage, dump_headings, dump_sections

if TYPE_CHECKING:  # langchain-core costs about a second to import; an index built without a model never needs it
    from langchain_core.embeddings import Embeddings


@dataclass
class IndexSummary:
    """What one ``askai index`` run did."""

    out: Path
    """The index folder."""
    kind: str
    """``docs``, ``html`` or ``jsonl``."""
    posts: int = 0
    """Posts in the index."""
    passages: int = 0
    """Passages BM25 indexes."""
    added: list[str] = field(default_factory=list)
    """URLs new since the previous index."""
    changed: list[str] = field(default_factory=list)
    """URLs whose post changed."""
    removed: list[str] = field(default_factory=list)
    """URLs no longer in the source."""
    parsed: int = 0
    """Units parsed in this run (the rest were unchanged and reused)."""
    skips: list[Skip] = field(default_factory=list)
    """Files left out, with the reason for each."""
    notes: list[Skip] = field(default_factory=list)
    """Pages parsed in this run with something left out (a snippet include not found),
    and generator config that could not be used; the pages themselves are indexed."""
    report: list[str] = field(default_factory=list)
    """Further lines of the report, from the source (a crawl's counts)."""
    seconds: float = 0.0
    """Wall time of the run."""
    fingerprint: str = ""
    """The corpus fingerprint of the new index."""
    embeddings_model: str | None = None
    """The model the passages are embedded with (``None``: no vectors)."""
    embedded: int = 0
    """Passages embedded in this run (the others kept their stored vectors)."""
    dimensions: int = 0
    """Length of each stored vector."""
    max_tokens: int | None = None
    """How much of a text the model reads (``None``: unknown), stored with the vectors:
    vectors of one model read at another length are not mixed in one index."""

    variants: dict[str, object] | None = None
    """The site's versions and languages, their defaults (``variants.Variants.manifest``)."""
    pages_by_variant: dict[tuple[str, str], int] = field(default_factory=dict)
    """Pages per ``(version, locale)``."""
    warnings: list[str] = field(default_factory=list)
    """What looks wrong in how the source was given (``Source.warnings``)."""

    @property
    def errors(self) -> list[Skip]:
        """Skips that are input problems (drafts are left out on purpose)."""
        return [skip for skip in self.skips if not skip.draft]


class IndexWriter:
    """One index build: starts from a copy of the previous index, parses only what changed."""

    def __init__(
        self,
        staging: Path,
        previous: IndexReader | None,
        summary: IndexSummary,
        passage_chars: int,
        embeddings: Embeddings | None = None,
        progress: bool = False,
        site_name: str | None = None,
    ) -> None:
        """Write into ``staging``, starting from ``previous`` when there is one.

        Args:
            staging: The folder the new index is written into.
            previous: The index this build updates, if any.
            summary: Receives what the build did; its ``embeddings_model`` names the model.
            passage_chars: Pages longer than this are split into passages.
            embeddings: Embeds the passages (``None``: the index holds no vectors).
            progress: Show a progress bar while embedding.
            site_name: The title of ``llms.txt`` (else the home page's title).
        """
        self.staging, self.summary, self.passage_chars = staging, summary, passage_chars
        self.embeddings, self.progress, self.site_name = embeddings, progress, site_name
        if previous is not None:
            # A file copy of the previous database (no row is parsed), then edited in place:
            # the unchanged 99% of a site is never rewritten row by row. A built index's
            # database is never written again, so the copy is consistent; the kernel copies
            # it 3-4x faster than SQLite's page-by-page backup.
            shutil.copyfile(previous.path / DATABASE, staging / DATABASE)
        self.db = sqlite3.connect(staging / DATABASE)
        # unit key -> (stamp, digest, post id, url, post digest) / (stamp, digest, reason, draft)
        self.old_posts: dict[str, tuple[str, str, int, str, str]] = {}
        self.old_skips: dict[str, tuple[str, str, str, int]] = {}
        self.vocabulary = Vocabulary()
        self.incremental = previous is not None
        if previous is not None:
            for row in self.db.execute("SELECT unit, stamp, digest, id, url, page_digest FROM posts"):
                self.old_posts[row[0]] = row[1:]
            skips = self.db.execute("SELECT unit, stamp, digest, reason, draft FROM skips")
            self.old_skips = {row[0]: row[1:] for row in skips}
            self.vocabulary = Vocabulary([row[0] for row in self.db.execute("SELECT term FROM vocab ORDER BY id")])
            self.db.execute("DELETE FROM skips")
        else:
            self.db.executescript(SCHEMA)
        self.db.executescript(EMBEDDINGS_SCHEMA)
        summary.max_tokens = getattr(embeddings, "max_tokens", None) if embeddings is not None else None
        if self._vector_space(previous) != (summary.embeddings_model, summary.max_tokens):
            self.db.execute("DELETE FROM embeddings")  # another model's vectors (or none) are no use
        self.db.execute("DELETE FROM vector_space")
        self.db.execute("INSERT INTO vector_space VALUES (?)", (summary.max_tokens,))
        self.db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        self.old_terms = len(self.vocabulary.ids) if previous is not None else 0
        self.seen: dict[str, str] = {}  # url -> where, first come first served
        self.digests: dict[str, str] = {}  # url -> post digest
        self.keep: list[tuple[int, str]] = []  # (post id, stamp) of unchanged posts
        self.pending: list[tuple[Unit, Page, str]] = []  # new posts, inserted once stale rows are gone

    def _vector_space(self, previous: IndexReader | None) -> tuple[str | None, int | None]:
        """The model and the text length the previous index's vectors (copied into this build) were made with."""
        if previous is None:
            return None, None
        row = self.db.execute("SELECT max_tokens FROM vector_space").fetchone()
        return previous.embeddings_model, row[0] if row else None

    def add(self, unit: Unit) -> None:
        """Index ``unit``: reuse its stored post or skip when unchanged, else parse it."""
        post, skip = self.old_posts.get(unit.key), self.old_skips.get(unit.key)
        if post is not None and post[0] == unit.stamp:
            return self._reuse(unit, post)
        if skip is not None and skip[0] == unit.stamp:
            return self._skip(unit, Skip(unit.where, skip[2], bool(skip[3])), skip[1])
        digest = unit.digest()  # the stamp moved: read the file and compare contents
        if isinstance(digest, Skip):
            self.summary.skips.append(digest)
        elif post is not None and post[1] == digest:
            self._reuse(unit, post)
        elif skip is not None and skip[1] == digest:
            self._skip(unit, Skip(unit.where, skip[2], bool(skip[3])), digest)
        else:
            self.summary.parsed += 1
            self._new(unit, unit.parse(), digest)

    def _reuse(self, unit: Unit, post: tuple[str, str, int, str, str]) -> None:
        url = post[3]
        if url in self.seen:
            self.summary.skips.append(duplicate(unit.where, url, self.seen[url]))
            return
        self.keep.append((post[2], unit.stamp))
        self.seen[url], self.digests[url] = unit.where, post[4]

    def _skip(self, unit: Unit, skip: Skip, digest: str) -> None:
        self.summary.skips.append(skip)
        row = (unit.key, unit.stamp, digest, skip.reason, skip.draft)
        self.db.execute("INSERT INTO skips VALUES (?, ?, ?, ?, ?)", row)

    def _new(self, unit: Unit, result: Page | Skip, digest: str) -> None:
        if isinstance(result, Skip):
            return self._skip(unit, result, digest)
        if result.url in self.seen:
            self.summary.skips.append(duplicate(unit.where, result.url, self.seen[result.url]))
            return
        self.seen[result.url], self.digests[result.url] = unit.where, page_digest(result)
        if self.incremental:
            self.pending.append((unit, result, digest))
        else:
            self._insert(unit, result, digest)

    def _insert(self, unit: Unit, post: Page, digest: str) -> None:
        cursor = self.db.execute(
            f"INSERT INTO posts ({POST_COLUMNS}) VALUES (NULL, {', '.join('?' * 16)})",
            (unit.key, unit.stamp, digest, *_reorder(post_row(post)), self.digests[post.url]),
        )
        encode = self.vocabulary.encode_text
        for i, passage in enumerate(split_passages(post.body, self.passage_chars)):
            tokens = encode(passage_text(post, passage, i == 0), post.locale).tobytes()
            row = self.db.execute(
                "INSERT INTO passages (post_id, heading, text, tokens) VALUES (?, ?, ?, ?)",
                (cursor.lastrowid, passage.heading, passage.text, tokens),
            )
            # Cut for search now, once: a search reads the sections' plain text, never Markdown.
            shown = cut_passage(post.url, post.anchors, passage.text)
            self.db.execute(
                "INSERT INTO shown VALUES (?, ?, ?, ?)",
                (row.lastrowid, cursor.lastrowid, dump_headings(shown), dump_sections(shown)),
            )

    def finish(self) -> IndexSummary:
        """Drop stale pages, add the new ones, order the catalog, build BM25, report what changed."""
        summary = self.summary
        if not self.seen:
            reasons = "; ".join(f"{skip.where}: {skip.reason}" for skip in summary.skips[:3])
            raise CorpusError("no posts found" + (f" ({reasons})" if reasons else ""))
        if self.incremental:
            self._drop_stale()
            for unit, post, digest in self.pending:
                self._insert(unit, post, digest)
        old = {post[3]: post[4] for post in self.old_posts.values()}
        summary.added = sorted(set(self.digests) - set(old))
        summary.changed = sorted(u for u in self.digests if u in old and old[u] != self.digests[u])
        summary.removed = sorted(set(old) - set(self.digests))
        _finish(self.db, self.staging, self.vocabulary, self.old_terms, summary)
        write_index_llms_files(self.staging, self.db, self.site_name)  # llms.txt and llms-full.txt, in catalog order
        if self.embeddings is not None:
            self._embed(self.embeddings)
        self.db.commit()
        self.db.close()
        return summary

    def _drop_stale(self) -> None:
        self.db.execute("CREATE TEMP TABLE keep (id INTEGER PRIMARY KEY, stamp TEXT NOT NULL)")
        self.db.executemany("INSERT INTO temp.keep VALUES (?, ?)", self.keep)
        self.db.execute("DELETE FROM passages WHERE post_id NOT IN (SELECT id FROM temp.keep)")
        self.db.execute("DELETE FROM shown WHERE post_id NOT IN (SELECT id FROM temp.keep)")
        self.db.execute("DELETE FROM posts WHERE id NOT IN (SELECT id FROM temp.keep)")
        # Before any new passage is inserted: a new row may take a deleted row's id.
        self.db.execute("DELETE FROM embeddings WHERE passage_id NOT IN (SELECT id FROM passages)")
        # A touched file whose content is unchanged keeps its post under its new stamp.
        self.db.execute(
            "UPDATE posts SET stamp = (SELECT k.stamp FROM temp.keep k WHERE k.id = posts.id) "
            "WHERE stamp != (SELECT k.stamp FROM temp.keep k WHERE k.id = posts.id)"
        )


    def _embed(self, embeddings: Embeddings) -> None:
        """Embed the passages that have no vector yet, then write every vector in document order."""
        from tqdm import tqdm

        # Ids first, texts a chunk at a time: a large first build never holds every passage.
        # Longest first: each chunk holds passages of about one length (see ``embed_texts``).
        missing = [row[0] for row in self.db.execute(
            "SELECT id FROM passages WHERE id NOT IN (SELECT passage_id FROM embeddings) ORDER BY length(text) DESC, id"
        )]
        bar = tqdm(total=len(missing), desc="embedding", unit=" passages", disable=not self.progress, delay=1.0,
                   file=sys.stderr)
        with bar:
            for start in range(0, len(missing), EMBED_BATCH):  # at most 256 SQL parameters
                chunk = missing[start : start + EMBED_BATCH]
                rows = self.db.execute(
                    "SELECT p.id, po.title, CASE WHEN p.id = (SELECT MIN(id) FROM passages WHERE post_id = p.post_id)"
                    " THEN po.summary ELSE '' END, p.text FROM passages p JOIN posts po ON po.id = p.post_id"
                    f" WHERE p.id IN ({','.join('?' * len(chunk))}) ORDER BY p.id",
                    chunk,
                ).fetchall()
                vectors = embed_texts(embeddings, [dense_text(*row[1:]) for row in rows], bar.update)
                pairs = zip(rows, vectors, strict=True)
                self.db.executemany("INSERT INTO embeddings VALUES (?, ?)", ((row[0], v.tobytes()) for row, v in pairs))
        self.summary.embedded = len(missing)
        blobs = [row[0] for row in self.db.execute("SELECT vector FROM embeddings ORDER BY passage_id")]
        matrix = np.frombuffer(b"".join(blobs), dtype=DTYPE).reshape(len(blobs), -1)
        if len(blobs) != self.summary.passages:
            raise CorpusError(f"embedded {len(blobs)} passages of {self.summary.passages}; run `askai index` again")
        np.save(self.staging / EMBEDDINGS, matrix)
        self.summary.dimensions = int(matrix.shape[1])


def _reorder(row: tuple[Any, ...]) -> tuple[Any, ...]:
    title, url, *rest = row
    return url, title, *rest


def _finish(
    db: sqlite3.Connection, staging: Path, vocabulary: Vocabulary, old_terms: int, summary: IndexSummary
) -> None:
    order = sorted(db.execute("SELECT weight, date, title, url, id FROM posts"), key=lambda r: site_order_key(*r[:4]))
    db.execute("DELETE FROM catalog")
    db.executemany("INSERT INTO catalog VALUES (?, ?)", ((rank, row[4]) for rank, row in enumerate(order)))
    terms = vocabulary.terms()
    db.executemany("INSERT INTO vocab VALUES (?, ?)", ((i, terms[i]) for i in range(old_terms, len(terms))))
    # BM25 documents are the passages in id order; DOCS maps a document back to its row.
    passage_ids, tokens = [], []
    for passage_id, blob in db.execute("SELECT id, tokens FROM passages ORDER BY id"):
        passage_ids.append(passage_id)
        tokens.append(np.frombuffer(blob, dtype=np.uint32))
    build_bm25(tokens, vocabulary).save(staging / BM25_DIR)
    np.save(staging / DOCS, np.array(passage_ids, dtype=np.int64))
    post_ids, digests = [], []
    for post_id, digest in db.execute("SELECT id, page_digest FROM posts ORDER BY id"):
        post_ids.append(post_id)
        digests.append(digest)
    np.save(staging / POSTS, np.array(post_ids, dtype=np.int64))
    summary.posts, summary.passages = len(order), len(tokens)
    counted = db.execute("SELECT version, locale, COUNT(*) FROM posts GROUP BY version, locale")
    summary.pages_by_variant = {(version, locale): count for version, locale, count in counted}
    summary.fingerprint = fingerprint_of(digests)
