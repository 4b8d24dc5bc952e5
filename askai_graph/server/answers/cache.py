"""The answer cache: a pluggable store of accepted answers that only the same question finds.

A hit must serve the question the answer was written for, never a similar bag of words
(see ``questions``): ``SemanticCache`` stores each accepted answer under the question's
``loose_key`` and, on a lookup, serves the entry found under the new question's key
only when ``contrast`` finds no difference between the two questions. Optionally, a
LangChain ``Embeddings`` (a neural model you trust on synonyms) finds paraphrases
whose words differ: its nearest entry above ``threshold`` is still refused on any
difference in negation, modality, quantity, numbers, comparison, prepositions,
antonyms, question words, pronouns, word order or non-Latin script.

How similar is similar enough depends on the vector space: cosines of a hashed bag of
words and of a sentence-transformer are not on one scale. ``default_threshold`` keeps a
threshold per space, each measured on ``tests/data/cache_pairs.jsonl`` (the highest
that keeps every contrast pair apart with a margin; ``bench/cache_pairs.py`` prints the
figures); a space not in the table gets ``DEFAULT_THRESHOLD``, and a configured
``cache_threshold`` overrides them all.

The *namespace* keys everything an answer depends on: the corpus fingerprint and a
digest of the configuration (models, prompts, thresholds, attempt limits, embedding
space; see ``app.config_digest``), so a changed corpus, another model or a stricter
setting never serves an old answer. Only ``accepted`` answers are stored, with the
gate verdicts they earned and the source cards they were streamed with (none unless
the Source Gate passed); a hit replays them because the question served is, by the
checks above, the question that earned them.

A hit is served only while its cards still point into the index served (``pages``):
a card whose page is gone makes the entry a miss, the question runs afresh and its
answer replaces the entry. An entry stored without its cards (by a version that kept
none) is a miss too: serving it card-less would hide what a fresh answer shows.

``CacheStore`` is the seam for a shared store (Redis...): three async methods.
``InMemoryCacheStore`` is the in-process default, a bounded LRU.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import json
import logging
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np
from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict, model_validator

from askai_graph.retrieval.embeddings import LOCAL_MODEL
from askai_graph.rules.gates import should_expose_retrieved_links
from askai_graph.server.answers.same_question import contrast, loose_key
from askai_graph.server.guards.pools import bookkeeping
from askai_graph.settings import AnswerSettings, Settings, group_fields
from askai_graph.state import GateStatus, Outcome, Source
from askai_graph.text.masking import mask, mask_echoes

logger = logging.getLogger(__name__)


class CachedAnswer(BaseModel):
    """An accepted answer as the cache stores and replays it."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The question the answer was written for."""
    answer: str
    """The final answer text (replayed as ``token`` events)."""
    outcome: Outcome
    """Always ``accepted``: nothing else is stored."""
    gates: dict[str, GateStatus]
    """Gate statuses the answer earned for ``question``."""
    sources: tuple[Source, ...] | None = None
    """The source cards streamed with the answer (the Source Gate's, possibly none).

    ``None``: stored by a version that kept no cards; such an entry is never served."""

    @model_validator(mode="after")
    def _cards_only_under_both_gates(self) -> Self:
        # The Source Gate's rule, again for what a shared store hands back: no card under an
        # answer whose recorded gates did not all pass.
        if self.sources and not should_expose_retrieved_links({"gates": self.gates}):
            raise ValueError("a cached answer carries source cards only when every gate passed")
        return self


@runtime_checkable
class CacheStore(Protocol):
    """Where cached answers live; replace the in-process default with a shared store."""

    async def get(self, namespace: str, key: str) -> CachedAnswer | None:
        """Return the entry stored under ``key`` in ``namespace``, or ``None``."""
        ...

    async def nearest(self, namespace: str, vector: Sequence[float]) -> tuple[float, CachedAnswer] | None:
        """Return the entry of ``namespace`` whose vector is most similar (cosine), or ``None``."""
        ...

    async def add(
        self, namespace: str, key: str, entry: CachedAnswer, vector: Sequence[float] | None = None
    ) -> None:
        """Store ``entry`` under ``key`` (and ``vector``, if any), replacing what was there."""
        ...


class InMemoryCacheStore:
    """Bounded, least-recently-used, in-process ``CacheStore`` (one per app, one event loop)."""

    def __init__(self, max_entries: int) -> None:
        """Keep at most ``max_entries`` answers across all namespaces.

        Raises:
            ValueError: ``max_entries`` is below 1.
        """
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str], tuple[CachedAnswer, np.ndarray[Any, Any] | None]] = OrderedDict()

    def __len__(self) -> int:
        """Return the number of stored answers."""
        return len(self._entries)

    def namespaces(self) -> set[str]:
        """Return the namespaces that hold entries."""
        return {namespace for namespace, _ in self._entries}

    async def get(self, namespace: str, key: str) -> CachedAnswer | None:
        """Return the entry under ``key``; a hit becomes the most recently used."""
        found = self._entries.get((namespace, key))
        if found is None:
            return None
        self._entries.move_to_end((namespace, key))
        return found[0]

    async def nearest(self, namespace: str, vector: Sequence[float]) -> tuple[float, CachedAnswer] | None:
        """Return the most similar entry with a vector in ``namespace`` and its cosine."""
        unit = _unit(vector)
        best: tuple[float, tuple[str, str]] | None = None
        for slot, (_, stored) in self._entries.items():
            if slot[0] != namespace or stored is None or unit is None:
                continue
            if stored.shape != unit.shape:
                raise ValueError(f"vector has shape {unit.shape}; this store holds {stored.shape[0]}-d vectors")
            score = float(stored @ unit)
            if best is None or score > best[0]:
                best = (score, slot)
        if best is None:
            return None
        self._entries.move_to_end(best[1])
        return best[0], self._entries[best[1]][0]

    async def add(
        self, namespace: str, key: str, entry: CachedAnswer, vector: Sequence[float] | None = None
    ) -> None:
        """Store ``entry``; evict the least recently used entry beyond the bound."""
        self._entries[(namespace, key)] = (entry, None if vector is None else _unit(vector))
        self._entries.move_to_end((namespace, key))
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


def _unit(vector: Sequence[float]) -> np.ndarray[Any, Any] | None:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else None


@dataclass(frozen=True)
class Probe:
    """One cache lookup: what to store the answer under, and the hit, if any."""

    question: str
    """The question looked up (the standalone one, on a thread): the entry is stored for it."""
    key: str
    """The question's ``loose_key``."""
    vector: list[float] | None
    """The question's embedding, when the cache has an ``Embeddings``."""
    hit: CachedAnswer | None
    """The cached answer, when it was written for this same question."""


MissingPages = Callable[[Sequence[str]], Sequence[str]]
"""Return which of these URLs are not pages of the index served (blocking: it may read the index)."""


def config_digest(settings: Settings) -> str:
    """Return a digest of everything in ``settings`` and the prompts that an answer depends on.

    That is the answer group of the settings (``settings.AnswerSettings``: models,
    endpoint, thresholds, attempt limits, retrieval, evidence budgets, history), the
    package version and every prompt constant. A setting added to the answer group
    counts by itself; the serving, indexing and store groups never do.
    """
    from askai_graph.models import prompts

    config = settings.model_dump(mode="json", include=set(group_fields(type(settings), AnswerSettings)))
    texts = {name: value for name, value in vars(prompts).items() if name.isupper() and isinstance(value, str)}
    # Sets (e.g. the Mermaid diagram types) dump in hash order, which differs between
    # processes: sort them, or two workers with one configuration get two namespaces.
    sets = {name for name in config if isinstance(getattr(settings, name), set | frozenset)}
    config = {name: sorted(value) if name in sets else value for name, value in config.items()}
    payload = json.dumps({"settings": config, "prompts": texts, "version": _version()}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _version() -> str:
    try:
        return importlib.metadata.version("askai-graph")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


DEFAULT_THRESHOLD = 0.9
"""Cosine a paraphrase needs in a vector space without a measured threshold (and in the
offline ``LexicalEmbeddings``' space, where 0.9 means all content terms but one shared)."""

SPACE_THRESHOLDS = {f"local:{LOCAL_MODEL}": 0.88}
"""Measured thresholds by embedding space. all-MiniLM-L6-v2: the closest contrast pair
that the contrast check lets through ("cache questions" / "cache answers") has cosine
0.82; 0.88 keeps a margin above it and still finds synonym swaps ("pick"/"choose")."""


def default_threshold(space: str) -> float:
    """Return the measured paraphrase threshold of the embedding space ``space``."""
    return SPACE_THRESHOLDS.get(space, DEFAULT_THRESHOLD)


def embedding_space(embeddings: Embeddings | None) -> str:
    """Return a name for the vector space of ``embeddings`` (part of the namespace)."""
    if embeddings is None:
        return "keys-only"
    # Only a string names a space: a ``model`` attribute may be the loaded model itself.
    name = next(
        (value for attr in ("name", "model") if isinstance(value := getattr(embeddings, attr, None), str) and value),
        None,
    )
    return f"{type(embeddings).__name__}:{name}" if name else type(embeddings).__name__


class SemanticCache:
    """Serve an accepted answer only to the same question (see module docstring)."""

    def __init__(
        self,
        store: CacheStore,
        *,
        namespace: str | None = None,
        embeddings: Embeddings | None = None,
        threshold: float | None = None,
        space: str | None = None,
        pages: MissingPages | None = None,
    ) -> None:
        """Create a cache.

        Args:
            store: Where entries live.
            namespace: The corpus fingerprint and configuration digest (any key of what
                answers depend on); ``None`` means a random one: entries then live only as
                long as this object.
            embeddings: Optional paraphrase finder; its vector space joins the namespace.
                Without it, only questions with the same key meet.
            threshold: Cosine similarity an embedding candidate needs, in (0, 1];
                ``None``: the measured default of the space (``default_threshold``).
            space: Names the vector space of ``embeddings`` (e.g. ``model_key`` of the
                settings that chose them); derived from the object when ``None``.
            pages: Says which card URLs are not pages of the index served; an entry with
                such a card is a miss. ``None``: the index is not visible here (a graph
                built elsewhere), and ``namespace`` alone names the corpus, as it does for
                the links in the cached text itself.
        """
        # Without embeddings no vector is compared: the space is "keys-only" whatever is named.
        space = embedding_space(None) if embeddings is None else space or embedding_space(embeddings)
        threshold = default_threshold(space) if threshold is None else threshold
        if not 0 < threshold <= 1:
            raise ValueError("threshold must be in (0, 1]")
        self.store = store
        self.embeddings = embeddings
        self.threshold = threshold
        self.space = space
        self.pages = pages
        self.namespace = f"{namespace or uuid.uuid4().hex}:{space}"

    def scoped(self, scope: Mapping[str, str]) -> SemanticCache:
        """Return this cache for the readers of one version and language (``scope``): its own namespace.

        A 1.0 reader's answer cites 1.0's pages: it is never served to a 2.0 reader.
        """
        view = copy.copy(self)
        view.namespace = f"{self.namespace}|" + json.dumps(dict(sorted(scope.items())), separators=(",", ":"))
        return view

    async def lookup(self, question: str) -> Probe:
        """Return the answer cached for this same question, if any.

        A failing embedder or store is logged and treated as a miss: the cache may only
        ever save work, never break an answer. The cache sees the question masked
        (``masking``): nothing a reader pasted is stored, and two questions that differ
        only in, say, an e-mail address are one question here.
        """
        question = mask(question)
        key = loose_key(question)
        if not key:
            return Probe(question=question, key="", vector=None, hit=None)
        try:
            found = await self.store.get(self.namespace, key)
        except Exception:
            logger.exception("answer cache: lookup failed; treating as a miss")
            return Probe(question=question, key=key, vector=None, hit=None)
        if found is not None and contrast(question, found.question) is None and await self._servable(found):
            return Probe(question=question, key=key, vector=None, hit=found)
        if self.embeddings is None:
            return Probe(question=question, key=key, vector=None, hit=None)
        try:
            vector = await self._embed(question)
            near = await self.store.nearest(self.namespace, vector)
        except Exception:
            logger.exception("answer cache: similarity lookup failed; treating as a miss")
            return Probe(question=question, key=key, vector=None, hit=None)
        hit = None
        if near is not None and near[0] >= self.threshold:
            reason = contrast(question, near[1].question, allow_synonyms=True)
            if reason is not None:
                logger.debug("answer cache: similar question refused (%s)", reason)
            elif await self._servable(near[1]):
                hit = near[1]
        return Probe(question=question, key=key, vector=vector, hit=hit)

    async def _servable(self, entry: CachedAnswer) -> bool:
        """Say whether ``entry`` may be served: it kept its cards, and each card's page is still served.

        A failing page check is logged and the entry not served (a miss costs a run, a
        dead card costs the reader's trust).
        """
        if entry.sources is None:
            logger.debug("answer cache: an entry stored without its source cards; treating as a miss")
            return False
        if self.pages is None or not entry.sources:
            return True
        try:
            # The index is read from disk under a lock a retriever may hold: off the loop.
            gone = await bookkeeping(self.pages, [source.url for source in entry.sources])
        except Exception:
            logger.exception("answer cache: could not check the cached cards' pages; treating as a miss")
            return False
        if gone:
            logger.info("answer cache: %d cached card(s) point to pages no longer served: a miss", len(gone))
        return not gone

    async def _embed(self, question: str) -> list[float]:
        """Embed ``question``: a model with no async path of its own runs in the bookkeeping pool.

        LangChain's default ``aembed_query`` takes a thread of the collaborators' pool,
        where hung retriever or model calls may hold every thread (``pools``).
        """
        model = self.embeddings
        assert model is not None
        if type(model).aembed_query is Embeddings.aembed_query:
            return await bookkeeping(model.embed_query, question)
        return await model.aembed_query(question)

    async def remember(self, probe: Probe, final: Mapping[str, Any]) -> bool:
        """Store a finished run's answer and its cards if its outcome is ``accepted``; say whether it was stored.

        It replaces the entry under the question's key, one a lookup refused included.
        """
        if final.get("outcome") != "accepted" or not probe.key or not final.get("answer"):
            return False
        # The reader's own pasted values, echoed by the answer, are not stored for the next reader.
        asked = [str(final[key]) for key in ("question", "standalone_question") if final.get(key)]
        answer = mask_echoes(final["answer"], *asked)
        # The cards the reader was shown: the Source Gate's, and only where its rule holds.
        cards = tuple(final.get("sources") or ()) if should_expose_retrieved_links(final) else ()
        try:
            entry = CachedAnswer(
                question=probe.question, answer=answer, outcome="accepted", gates=dict(final["gates"]), sources=cards
            )
        except ValueError:
            logger.exception("answer cache: the finished answer is not a cacheable entry; it is not cached")
            return False
        try:
            await self.store.add(self.namespace, probe.key, entry, probe.vector)
        except Exception:
            logger.exception("answer cache: store failed; the answer is not cached")
            return False
        return True
