"""Build a ``bm25s`` index from token ids with numpy, and score queries against it.

bm25s stores BM25 as a sparse term-by-document matrix of precomputed scores, loads it
memory-mapped and scores a query by summing a few columns. Its own ``index()`` builds
that matrix with a Python loop and a ``Counter`` per document, which is the slow part
at 100k pages and needs every document's tokens as Python lists. ``build_bm25`` computes
the same matrix (bm25s' default "lucene" variant, k1 = 1.5, b = 0.75; a test checks the
two agree) from compact ``uint32`` token-id arrays in a few vectorised passes, then
hands it to bm25s for saving, loading and scoring.
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np

from askai_graph.text import STOP_WORDS, stem, words

K1 = 1.5
B = 0.75
EMPTY_TOKEN = ""


class Vocabulary:
    """Term to id, append-only: ids stored by an earlier build stay valid in the next one."""

    def __init__(self, terms: Sequence[str] = ()) -> None:
        """Start from ``terms`` in id order (the empty token is always id 0)."""
        self.ids: dict[str, int] = {EMPTY_TOKEN: 0}
        self._word_ids: dict[str, int] = {}
        for term in terms:
            self.ids.setdefault(term, len(self.ids))

    def encode(self, terms: Sequence[str]) -> np.ndarray:
        """Return ``terms`` as a ``uint32`` id array, adding unseen terms."""
        ids = self.ids
        return np.array([ids.setdefault(t, len(ids)) for t in terms], dtype=np.uint32)

    def encode_text(self, text: str) -> np.ndarray:
        """Return the ids of ``text``'s content terms, exactly ``encode(content_terms(text))``.

        Indexing 100k pages spends most of its time turning words into ids; this maps
        each distinct *word* to its stem's id (or to nothing, for a stop word) once, so
        the stop-word test, the stemmer and the id lookup happen once per word, not once
        per occurrence.
        """
        known = self._word_ids
        tokens = words(text)
        ids = list(map(known.get, tokens))  # one C-level pass; None marks a word never seen
        if None in ids:
            for i, word in enumerate(tokens):
                if ids[i] is None:
                    ids[i] = known[word] = known.get(word) or self._learn(word)
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


def build_bm25(documents: Sequence[np.ndarray], vocabulary: Vocabulary, chunk: int = 16_384) -> bm25s.BM25:
    """Return a bm25s index over ``documents`` (token-id arrays), ready to save or query.

    Term frequencies are counted ``chunk`` documents at a time, so the working arrays
    stay a fraction of the corpus' size (a 100k-page site has ~30M tokens).
    """
    n_docs, n_vocab = len(documents), len(vocabulary.ids)
    lengths = np.fromiter((len(d) for d in documents), dtype=np.int64, count=n_docs)
    terms, docs, freqs = [np.zeros(0, np.int32)], [np.zeros(0, np.int32)], [np.zeros(0, np.float32)]
    for start in range(0, n_docs, chunk):
        part = documents[start : start + chunk]
        tokens = np.concatenate(part).astype(np.int64)
        local = np.repeat(np.arange(len(part), dtype=np.int64), lengths[start : start + chunk])
        # One entry per (term, document) pair of the chunk with its frequency.
        pairs, tf = np.unique(tokens * len(part) + local, return_counts=True)
        term, doc = np.divmod(pairs, len(part))
        terms.append(term.astype(np.int32))
        docs.append((doc + start).astype(np.int32))
        freqs.append(tf.astype(np.float32))
        del tokens, local, pairs, tf, term, doc
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
    index = bm25s.BM25(k1=K1, b=B)
    index.scores = {
        "data": data,
        "indices": doc,
        "indptr": indptr,
        "num_docs": n_docs,
    }
    index.vocab_dict = dict(vocabulary.ids)
    index.unique_token_ids_set = set(index.vocab_dict.values())
    index.nonoccurrence_array = None  # only BM25L and BM25+ use one
    return index


def top_documents(index: bm25s.BM25, terms: Sequence[str], k: int) -> list[tuple[int, float]]:
    """Return up to ``k`` ``(document id, score)`` pairs with a positive score, best first."""
    vocab = index.vocab_dict
    ids = [vocab[t] for t in dict.fromkeys(terms) if t in vocab and t != EMPTY_TOKEN]
    if not ids or k <= 0:
        return []
    # A repeated query term counts once per occurrence, as bm25s' own retrieve does.
    counted = [vocab[t] for t in terms if t in vocab and t != EMPTY_TOKEN]
    scores = index.get_scores_from_ids(counted)
    k = min(k, len(scores))
    best = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    ranked = sorted(((int(i), float(scores[i])) for i in best if scores[i] > 0), key=lambda p: (-p[1], p[0]))
    return ranked


def term_weights(index: bm25s.BM25, terms: Sequence[str]) -> dict[str, float]:
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

