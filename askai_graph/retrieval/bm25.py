"""Build a ``bm25s`` index from token ids with numpy, and score queries against it.

bm25s stores BM25 as a sparse term-by-document matrix of precomputed scores, loads it
memory-mapped and scores a query by summing a few columns. Its own ``index()`` builds
that matrix with a Python loop and a ``Counter`` per document, which is the slow part
at 100k pages and needs every document's tokens as Python lists. ``build_bm25`` computes
the same matrix (bm25s' "lucene" variant with k1 = 1.5 and b = ``B``; a test checks the
two agree) from compact ``uint32`` token-id arrays in a few vectorised passes.

``BM25Index`` saves, loads and scores that matrix in bm25s' own file layout with numpy
alone: importing bm25s imports ``scipy.sparse``, whose array-API layer walks numpy's
namespace and so imports f2py, ``unittest`` and ``pydoc`` (about 0.1 s of every
``askai ask``), and scoring a query needs none of it. An index folder stays one that
``bm25s.BM25.load`` opens (a test checks both read the same scores).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from askai_graph.text.terms import STOP_WORDS, analyzer, any_words, known_form, language_of, stem, words

K1 = 1.5
B = 0.65
"""Length normalisation: below bm25s' 0.75, so a long reference section that holds the
asked term is not outranked by a short one that merely mentions it. Measured on three
real docs sites (Research MRR FastAPI 0.710 -> 0.746, Pydantic 0.537 -> 0.570, Jest
0.696 -> 0.700 with the page title weighted; docs/benchmarks.md)."""
EMPTY_TOKEN = ""


class Vocabulary:
    """Term to id, append-only: ids stored by an earlier build stay valid in the next one."""

    def __init__(self, terms: Sequence[str] = ()) -> None:
        """Start from ``terms`` in id order (the empty token is always id 0)."""
        self.ids: dict[str, int] = {EMPTY_TOKEN: 0}
        self._word_ids: dict[str, int] = {}
        self._language_word_ids: dict[str, dict[str, int]] = {}  # another language's words, the same way
        for term in terms:
            self.ids.setdefault(term, len(self.ids))

    def encode(self, terms: Sequence[str]) -> np.ndarray:
        """Return ``terms`` as a ``uint32`` id array, adding unseen terms."""
        ids = self.ids
        return np.array([ids.setdefault(t, len(ids)) for t in terms], dtype=np.uint32)

    def encode_text(self, text: str, locale: str | None = None) -> np.ndarray:
        """Return the ids of ``text``'s content terms, exactly ``encode(content_terms(text, locale))``.

        A page in another language than English is analysed as that language (``terms.Analyzer``).

        Indexing 100k pages spends most of its time turning words into ids; this maps
        each distinct *word* to its stem's id (or to nothing, for a stop word) once, so
        the stop-word test, the stemmer and the id lookup happen once per word, not once
        per occurrence.
        """
        if language := language_of(locale):
            return self._encode_language(text, language)
        known = self._word_ids
        tokens = words(text)
        ids = list(map(known.get, tokens))  # one C-level pass; None marks a word never seen
        if None in ids:
            for i, word in enumerate(tokens):
                if ids[i] is None:
                    ids[i] = known[word] = known.get(word) or self._learn(word)
        found: np.ndarray = np.array(ids, dtype=np.uint32)
        return np.asarray(found[found != 0])

    def _encode_language(self, text: str, language: str) -> np.ndarray:
        """Return the ids of ``text``'s terms read as ``language`` (each distinct word analysed once)."""
        known = self._language_word_ids.setdefault(language, {})
        tokens = any_words(text)
        ids = list(map(known.get, tokens))
        if None in ids:
            reader = analyzer(language)
            for i, word in enumerate(tokens):
                if ids[i] is None:
                    if word not in known:
                        skip = word in reader.stop_words or len(word) < 2
                        known[word] = 0 if skip else self.ids.setdefault(reader.stem(word), len(self.ids))
                    ids[i] = known[word]
        found: np.ndarray = np.array(ids, dtype=np.uint32)
        return np.asarray(found[found != 0])

    def _learn(self, word: str) -> int:
        if word in STOP_WORDS or len(word) < 2:
            return 0  # id 0 is the empty token: never a content term
        term = stem(word)
        return self.ids.setdefault(term, len(self.ids))

    def terms(self) -> list[str]:
        """Return every term in id order."""
        return list(self.ids)


# bm25s' parameters for the matrix ``build_bm25`` computes, as its ``params.index.json`` records them.
PARAMS = {"k1": K1, "b": B, "delta": 0.5, "method": "lucene", "idf_method": "lucene",
          "dtype": "float32", "int_dtype": "int32"}
ARRAYS = ("data", "indices", "indptr")


class BM25Index:
    """A BM25 score matrix (CSC: one column of document scores per term) and its vocabulary."""

    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, num_docs: int,
                 vocab: dict[str, int]) -> None:
        """Hold the three CSC arrays (possibly memory-mapped), the document count and term -> column."""
        self.scores: dict[str, Any] = {"data": data, "indices": indices, "indptr": indptr, "num_docs": num_docs}
        self.vocab_dict = vocab

    @classmethod
    def load(cls, folder: str | Path, *, mmap: bool = False) -> BM25Index:
        """Open an index folder written by ``save`` (or by bm25s); ``mmap`` maps the arrays instead of reading them.

        Raises:
            OSError, ValueError: a file is missing or unreadable.
        """
        folder = Path(folder)
        params = json.loads((folder / "params.index.json").read_text("utf-8"))
        vocab = json.loads((folder / "vocab.index.json").read_text("utf-8"))
        data, indices, indptr = (
            np.load(folder / f"{name}.csc.index.npy", mmap_mode="r" if mmap else None) for name in ARRAYS
        )
        return cls(data, indices, indptr, int(params["num_docs"]), vocab)

    def save(self, folder: str | Path) -> None:
        """Write the index into ``folder`` in bm25s' layout (arrays, ``vocab.index.json``, ``params.index.json``)."""
        from importlib.metadata import PackageNotFoundError, version

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ARRAYS:
            np.save(folder / f"{name}.csc.index.npy", self.scores[name])
        text = json.dumps(self.vocab_dict, ensure_ascii=False, separators=(",", ":"))
        (folder / "vocab.index.json").write_text(text, "utf-8")
        try:
            made_by = version("bm25s")
        except PackageNotFoundError:
            made_by = "0"
        params = {**PARAMS, "num_docs": int(self.scores["num_docs"]), "version": made_by, "backend": "numpy"}
        (folder / "params.index.json").write_text(json.dumps(params, indent=4), "utf-8")

    def get_scores_from_ids(self, ids: Sequence[int]) -> np.ndarray:
        """Return every document's score for the query terms ``ids`` (a repeated id counts again), as bm25s does."""
        data, indices, indptr = self.scores["data"], self.scores["indices"], self.scores["indptr"]
        scores = np.zeros(int(self.scores["num_docs"]), dtype=np.float32)
        for term in ids:
            if not 0 <= term < len(indptr) - 1:
                raise ValueError(f"term id {term} is not in the index")
            start, end = int(indptr[term]), int(indptr[term + 1])
            scores[indices[start:end]] += data[start:end]  # a column holds each document once
        return scores


def build_bm25(documents: Sequence[np.ndarray], vocabulary: Vocabulary, chunk: int = 16_384) -> BM25Index:
    """Return a BM25 index over ``documents`` (token-id arrays), ready to save or query.

    Term frequencies are counted ``chunk`` documents at a time, so the working arrays
    stay a fraction of the corpus' size (a 100k-page site has ~30M tokens).
    """
    n_docs, n_vocab = len(documents), len(vocabulary.ids)
    lengths = np.fromiter((len(d) for d in documents), dtype=np.int64, count=n_docs)
    terms, docs, freqs = [np.zeros(0, np.int32)], [np.zeros(0, np.int32)], [np.zeros(0, np.float32)]
    for start in range(0, n_docs, chunk):
        part = documents[start : start + chunk]
        keys = np.concatenate(part).astype(np.int64)
        keys *= len(part)
        keys += np.repeat(np.arange(len(part), dtype=np.int64), lengths[start : start + chunk])
        # One entry per (term, document) pair of the chunk with its frequency.
        pairs, tf = _counted(keys)
        term, doc = np.divmod(pairs, len(part))
        terms.append(term.astype(np.int32))
        docs.append((doc + start).astype(np.int32))
        freqs.append(tf.astype(np.float32))
        del keys, pairs, tf, term, doc
    term, doc, tf32 = np.concatenate(terms), np.concatenate(docs), np.concatenate(freqs)
    del terms, docs, freqs
    df = np.bincount(term, minlength=n_vocab)
    idf = np.log(1 + (n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    average = float(lengths.mean()) if n_docs and lengths.sum() else 1.0
    norm = (K1 * (1 - B + B * lengths / average)).astype(np.float32)
    # score = idf * tf / (tf + k1 * (1 - b + b * length / average)), computed in place.
    data = norm[doc]
    data += tf32
    np.divide(tf32, data, out=data)
    data *= idf[term]
    del tf32
    # Column order (by term); stable, so each term's documents stay ascending. One array
    # at a time: the permutation copies are the peak of a large build.
    order = np.argsort(term, kind="stable")
    del term
    doc = doc[order]
    data = data[order]
    del order
    indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
    return BM25Index(data, doc, indptr, n_docs, dict(vocabulary.ids))


def _counted(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct values of ``keys`` and how often each occurs, as ``np.unique`` does.

    Sorted in place: ``np.unique`` copies its input first, one more array the size of a
    chunk's tokens, and a rebuild runs this over every stored token of the site.
    """
    if not len(keys):
        return keys, np.zeros(0, dtype=np.int64)
    keys.sort()
    first = np.empty(len(keys), dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return keys[starts], np.diff(starts, append=len(keys))


def top_documents(
    index: BM25Index, terms: Sequence[str], k: int, within: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """Return up to ``k`` ``(document id, score)`` pairs with a positive score, best first.

    ``within`` (one bool per document) keeps the others out: a reader's version and language.
    """
    vocab = index.vocab_dict
    ids = [vocab[t] for t in dict.fromkeys(terms) if t in vocab and t != EMPTY_TOKEN]
    if not ids or k <= 0:
        return []
    # A repeated query term counts once per occurrence, as bm25s' own retrieve does.
    counted = [vocab[t] for t in terms if t in vocab and t != EMPTY_TOKEN]
    scores = index.get_scores_from_ids(counted)
    if within is not None:
        scores[~within] = 0
    k = min(k, len(scores))
    best = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    ranked = sorted(((int(i), float(scores[i])) for i in best if scores[i] > 0), key=lambda p: (-p[1], p[0]))
    return ranked


def term_weights(index: BM25Index, terms: Sequence[str]) -> dict[str, float]:
    """Return each distinct term's IDF in ``index``; a term the index never saw gets the highest IDF.

    A word no passage has is the most distinctive word of a question: an uncovered
    question ("center a div") is recognised by the weight of what no page mentions.
    """
    n = int(index.scores["num_docs"])
    indptr = index.scores["indptr"]
    weights = {}
    for term in dict.fromkeys(terms):
        tid = index.vocab_dict.get(term)
        df = int(indptr[tid + 1] - indptr[tid]) if tid is not None and term != EMPTY_TOKEN else 0
        weights[term] = float(np.log(1 + (n - df + 0.5) / (df + 0.5)))
    return weights



def index_forms(index: BM25Index, terms: Sequence[str]) -> list[str]:
    """Return ``terms`` with each one the index never saw replaced by a close form it has (``text.close_forms``).

    "How tall is it?" meets a page that only says "tallest": the question's word is then
    neither missing (the relevance floor's heaviest weight) nor unscored.
    """
    vocab = index.vocab_dict
    return [known_form(term, vocab) for term in terms]
