"""Sections of retrieved pages, ranked for a question: what the extractive Writer answers from.

A retrieved page's text (one or more passages) is cut at its headings, outside code
fences. Each section keeps its heading, its prose and its fenced code blocks (language
kept). Sections are ranked with BM25 over this request's sections (heading and page
title counted twice, code tokens included: ``--watch`` or ``model_config`` often appear
only in code), with a small prior for the retriever's own page order, so the Writer leads
with the section that best matches the question rather than the page that happened to
rank first.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from types import MappingProxyType

from askai_graph.evidence.results import SearchResult
from askai_graph.retrieval.fusion import DEFAULT_RRF_K, reciprocal_rank_fusion
from askai_graph.retrieval.passages import split_sections
from askai_graph.text.terms import content_terms, known_form, reading_language, sentences

K1 = 1.2
B = 0.75
RANK_PRIOR = 0.6
"""Score bonus lost per retrieval rank: a tie goes to the retriever's better page."""
_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$")
_LANGUAGE = re.compile(r"^[A-Za-z0-9_+.#-]{1,20}$")
# A tab's name as indexing keeps it: a bold line of its own (``**pip**``).
_TAB_LABEL = re.compile(r"^\s*\*\*([^*\n]{1,40})\*\*:?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class CodeBlock:
    """A fenced code block of a section, verbatim."""

    language: str
    """The info string's first word, when it is a plain language name ('' otherwise)."""
    code: str
    """The block's lines, without the fences."""
    label: str = ""
    """The name of the tab it sits in ('' for none): the bold line right above it that a
    content tab (MkDocs ``=== "pip"``, MDX ``<TabItem label="npm">``, a FastAPI include)
    leaves at index time."""


@dataclass(frozen=True)
class IntroducedList:
    """A list and the sentence that introduces it ("Each chunk should carry:" and what it carries)."""

    lead_in: str
    """The introducing sentence, ending with its colon."""
    items: tuple[str, ...]
    """The top-level items' text, markers dropped, in order."""
    ordered: bool
    """Whether the items are numbered (steps)."""


@dataclass(frozen=True)
class Table:
    """A Markdown table of a section (an options table: name, default, flag, config key)."""

    header: tuple[str, ...]
    """The header row's cells."""
    rows: tuple[tuple[str, ...], ...]
    """The body rows' cells, in order."""

    def markdown(self, rows: Sequence[tuple[str, ...]]) -> str:
        """Return the header and ``rows`` as a Markdown table."""
        lines = [self.header, tuple("---" for _ in self.header), *rows]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


@dataclass(frozen=True)
class Section:
    """One section of one retrieved page."""

    post: int
    """Index of its page in the request's search results (retrieval rank)."""
    heading: str
    """The section heading ('' for a page's opening text)."""
    text: str
    """The section's Markdown, code blocks included."""
    code: tuple[CodeBlock, ...]
    """Its fenced code blocks, in order."""
    terms: tuple[str, ...]
    """Its BM25 terms: page title and heading twice, then the text (prose and code)."""
    passage: int = 0
    """The rank of the retrieved passage it sits in among its page's passages, in the
    retriever's order (``SearchResult.passage_order``; 0: the best, or no order known)."""

    @cached_property
    def term_set(self) -> frozenset[str]:
        """Its distinct terms (made once: a run's readers ask which question terms a section has)."""
        return frozenset(self.terms)

    @cached_property
    def lists(self) -> tuple[IntroducedList, ...]:
        """Its lists a sentence announces (``introduced_lists``), parsed once: a retry asks of every section."""
        return introduced_lists(self.text)

    @cached_property
    def term_counts(self) -> Mapping[str, int]:
        """How often each term occurs (made once, read by every BM25 pass over the run's sections)."""
        return MappingProxyType(Counter(self.terms))


def code_blocks(markdown: str) -> tuple[CodeBlock, ...]:
    """Return the fenced code blocks of ``markdown`` (CommonMark fences; an unclosed one runs to the end)."""
    blocks: list[CodeBlock] = []
    fence: str | None = None
    language = label = previous = ""
    indent = 0
    lines: list[str] = []
    for line in markdown.splitlines():
        if fence is None:
            opener = _OPEN.match(line)
            if opener:  # a backtick fence's info string has no backticks: the pattern says so
                fence, indent, lines = opener.group(2), len(opener.group(1)), []
                info = opener.group(3)
                language = info if _LANGUAGE.match(info) else ""
                tab = _TAB_LABEL.match(previous)
                label = tab.group(1).strip() if tab else ""
            elif line.strip():
                previous = line
            continue
        stripped = line.strip()
        closing = set(stripped) == {fence[0]} and len(stripped) >= len(fence)
        if stripped and closing and len(line) - len(line.lstrip()) <= 3:
            blocks.append(CodeBlock(language, "\n".join(lines), label))
            fence, previous = None, ""
            continue
        # Content lines lose up to the opening fence's indentation, as CommonMark says.
        lines.append(line[min(indent, len(line) - len(line.lstrip())) :])
    if fence is not None and lines:
        blocks.append(CodeBlock(language, "\n".join(lines), label))
    return tuple(blocks)


def tables(markdown: str) -> tuple[Table, ...]:
    """Return the Markdown tables of ``markdown`` outside code fences (a header, a rule, body rows)."""
    found: list[Table] = []
    run: list[str] = []
    in_code = False
    for line in [*markdown.splitlines(), ""]:
        if _OPEN.match(line):
            in_code = not in_code
        if not in_code and _TABLE_ROW.match(line):
            run.append(line)
            continue
        if len(run) >= 3 and _TABLE_RULE.match(run[1]):
            cells = [_cells(row) for row in run]
            found.append(Table(tuple(cells[0]), tuple(tuple(row) for row in cells[2:])))
        run = []
    return tuple(found)


_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])\s+(.*)$")


def introduced_lists(markdown: str) -> tuple[IntroducedList, ...]:
    """Return the lists of ``markdown`` that a sentence ending with a colon introduces, outside code fences.

    "Each chunk should carry the identifiers needed to cite it:" says nothing alone; the
    items below it are the answer. An item's further lines join it; nested items are
    left out: the top-level items are what the sentence announces.
    """
    found: list[IntroducedList] = []
    paragraph: list[str] = []  # the prose paragraph being read, or the one a blank line just ended
    ended = False
    current: IntroducedList | None = None
    in_code = False
    for line in markdown.splitlines():
        if _OPEN.match(line) or in_code:
            in_code = in_code != bool(_OPEN.match(line))
            _closed(current, found)
            current, paragraph = None, []
            continue
        item = _ITEM.match(line)
        if not line.strip():
            ended = True
        elif current is not None and item:
            current = IntroducedList(current.lead_in, (*current.items, item.group(1).strip()), current.ordered)
            ended = False
        elif current is not None and line[:1].isspace():
            # An item's own further lines; a nested item, or a paragraph after a blank line, is left out.
            if not ended and not _ITEM.match(line.strip()):
                *before, last = current.items
                current = IntroducedList(current.lead_in, (*before, f"{last} {line.strip()}"), current.ordered)
        elif item:
            said = sentences(" ".join(paragraph))
            if said and said[-1].endswith(":"):
                current = IntroducedList(said[-1], (item.group(1).strip(),), line.lstrip()[0] not in "-*+")
            paragraph, ended = [], False
        else:
            _closed(current, found)
            current = None
            heading_or_table = line.lstrip().startswith(("#", "|", ">"))
            paragraph = [] if heading_or_table else [*([] if ended else paragraph), line.strip()]
            ended = False
    _closed(current, found)
    return tuple(found)


def _closed(current: IntroducedList | None, found: list[IntroducedList]) -> None:
    if current is not None:
        found.append(current)


def _cells(row: str) -> list[str]:
    # A backslash-escaped pipe (``a \| b``) is part of a cell, not a border.
    parts = re.split(r"(?<!\\)\|", row.strip().strip("|"))
    return [part.strip() for part in parts]


# The same pages come back question after question: splitting and tokenizing them once
# per page, not once per request, was most of the extractive Writer's time.
@lru_cache(maxsize=4096)
def _page_sections(
    title: str, content: str, language: str
) -> tuple[tuple[str, str, tuple[CodeBlock, ...], tuple[str, ...], int], ...]:
    sections = []
    cursor = 0
    for passage in split_sections(content):
        lead = f"{title} {passage.heading} {passage.heading}"
        terms = tuple(content_terms(f"{lead} {lead} {passage.text}", language or "en"))
        # Where the section starts in the page's text: its first line, found after the last one's.
        found = content.find(passage.text.partition("\n")[0], cursor)
        start = found if found >= 0 else cursor
        cursor = start
        sections.append((passage.heading, passage.text, code_blocks(passage.text), terms, start))
    return tuple(sections)


def split_page(title: str, content: str) -> list[tuple[str, str]]:
    """Return the ``(heading, text)`` of each section of a page, as ``page_sections`` cuts it."""
    return [(heading, text) for heading, text, *_ in _page_sections(title, content, reading_language())]


def heading_terms(title: str, content: str, quoted: str) -> frozenset[str]:
    """Return the content terms of the headings over the page's sections that ``quoted``'s sentences come from.

    Sentence splitting drops heading lines, yet docs name a section's subject there and
    often nowhere else: "The wire format" heads the section on ``text/event-stream``.
    """
    return _heading_terms(title, content, quoted, reading_language())


HEADINGS_CACHED = 256
"""Quoted passages whose headings' terms are kept: like the Critic's passage terms, one
question's drafts and retries read them again, later questions seldom do."""


@lru_cache(maxsize=HEADINGS_CACHED)
def _heading_terms(title: str, content: str, quoted: str, language: str) -> frozenset[str]:
    said = set(sentences(quoted))
    sections = _section_sentences(title, content, language)
    headings = " ".join(heading for heading, own in sections if not said.isdisjoint(own))
    return frozenset(content_terms(headings, language or "en"))


# Split once per page, as its sections are: every review of a draft citing it asks again.
@lru_cache(maxsize=4096)
def _section_sentences(title: str, content: str, language: str) -> tuple[tuple[str, frozenset[str]], ...]:
    sections = _page_sections(title, content, language)
    return tuple((heading, frozenset(sentences(text))) for heading, text, *_ in sections)


def _passage_rank(order: Sequence[tuple[int, int]], start: int) -> int:
    """Return the rank of the passage holding the character at ``start`` (0 without an order)."""
    rank = 0
    for begin, passage_rank in order:
        if begin > start:
            break
        rank = passage_rank
    return rank


def page_sections(results: list[SearchResult]) -> list[Section]:
    """Return every section of every retrieved page, pages in retrieval order."""
    language = reading_language()
    return [
        section
        for post, result in enumerate(results)
        for section in _sections_at(post, result.title, result.content, language, result.passage_order)
    ]


# The Writer, Validation's anchoring and the Critic each read a run's sections: the
# (frozen) sections of a page at a rank are made once, not once per reader.
@lru_cache(maxsize=4096)
def _sections_at(
    post: int, title: str, content: str, language: str, order: tuple[tuple[int, int], ...]
) -> tuple[Section, ...]:
    return tuple(
        Section(post, heading, text, code, terms, _passage_rank(order, start))
        for heading, text, code, terms, start in _page_sections(title, content, language)
    )


PASSAGE_PRIOR = 0.8
"""Share of a section's score a model Writer's context takes off at ``PASSAGE_REACH`` (``passage_weight``)."""
PASSAGE_REACH = 10
"""The passage rank at which ``PASSAGE_PRIOR`` is reached; later passages lose no more."""


def passage_weight(section: Section) -> float:
    """Weigh a section by its passage's rank among its page's passages in the retriever's order.

    The retriever ranked the passages with the whole site's term statistics and, in hybrid
    mode, the embedding model's vectors; the per-request section ranking sees neither. A
    long reference page comes back with dozens of passages, and its small entries sharing
    one common word of the question outrank, on request-local BM25, the entry the
    retriever found best (``testPathIgnorePatterns`` for "looking for tests in certain
    folders"). 1 for the best passage, down to ``1 - PASSAGE_PRIOR`` at ``PASSAGE_REACH``.
    """
    return 1 - PASSAGE_PRIOR * min(section.passage, PASSAGE_REACH) / PASSAGE_REACH


def context_sections(question: str, results: list[SearchResult]) -> list[tuple[Section, float]]:
    """Return the sections of ``results`` in the order a model Writer's context is filled, best first.

    BM25 over the request's sections with the page-order prior (``rank_sections``), weighed
    by the retriever's passage order (``passage_weight``).
    """
    return rank_sections(question, page_sections(results), weight=passage_weight)


def rank_sections(
    question: str,
    sections: list[Section],
    similarity: Sequence[float] | None = None,
    weight: Callable[[Section], float] | None = None,
) -> list[tuple[Section, float]]:
    """Return the ``sections`` matching ``question``, best first, with their scores.

    BM25 (sections sharing a term) and the rank prior, times ``weight`` (a caller's
    preference per section, 1 for none); with ``similarity`` (each section's cosine to
    the question, from an embedding model), the weighted BM25 ranking and the similarity
    ranking are fused by reciprocal rank fusion, as hybrid retrieval fuses pages. The
    weight acts on BM25 scores, before fusion: fused scores lie so close together that
    a multiplier there would jump a section over most of the ranking.
    """
    lexical = _bm25_sections(question, sections)
    if weight is not None:
        lexical = sorted(((section, score * weight(section)) for section, score in lexical), key=lambda i: -i[1])
    if similarity is None:
        return lexical
    by_meaning = sorted(range(len(sections)), key=lambda i: -similarity[i])
    position = {id(section): i for i, section in enumerate(sections)}
    fused = reciprocal_rank_fusion([[position[id(s)] for s, _ in lexical], by_meaning], DEFAULT_RRF_K)
    ranked = [(sections[i], score * (1 - RANK_PRIOR * min(sections[i].post, 5) / 5)) for i, score in fused]
    ranked.sort(key=lambda item: -item[1])
    return ranked


class _AnyOf:
    """The terms any of several sets holds, asked term by term (a question's few, not a union of all)."""

    def __init__(self, sets: Sequence[frozenset[str]]) -> None:
        self.sets = sets

    def __contains__(self, term: object) -> bool:
        return any(term in found for found in self.sets)


def _bm25_sections(question: str, sections: list[Section]) -> list[tuple[Section, float]]:
    wanted = list(dict.fromkeys(content_terms(question)))
    if not wanted or not sections:
        return []
    counts = [section.term_counts for section in sections]
    spelled = _AnyOf([section.term_set for section in sections])
    # A question word no section has meets its comparative or superlative ("tall": "tallest").
    wanted = list(dict.fromkeys(known_form(term, spelled) for term in wanted))
    average = sum(len(section.terms) for section in sections) / len(sections) or 1.0
    frequency = Counter(term for count in counts for term in wanted if term in count)
    n = len(sections)
    ranked = []
    for section, count in zip(sections, counts, strict=True):
        norm = K1 * (1 - B + B * len(section.terms) / average)
        score = sum(
            math.log(1 + (n - frequency[t] + 0.5) / (frequency[t] + 0.5)) * count[t] / (count[t] + norm)
            for t in wanted
            if t in count
        )
        if score > 0:
            ranked.append((section, score * (1 - RANK_PRIOR * min(section.post, 5) / 5)))
    ranked.sort(key=lambda item: -item[1])
    return ranked


def section_slice(question: str, results: list[SearchResult], budget_chars: int) -> list[tuple[SearchResult, str]]:
    """Return, per retrieved page (retrieval order), its best sections' Markdown within ``budget_chars``.

    What a model Writer reads: whole sections, code blocks included (a sentence slice
    drops code, where most docs put the answer), the best-ranked sections first until
    the budget is spent, each page's in page order. A page none of whose sections
    matches keeps its opening, so every retrieved page is still citable.
    """
    sections = page_sections(results)
    picked: dict[int, list[Section]] = {}
    spent = 0
    for section, _ in context_sections(question, results):
        if spent + len(section.text) > budget_chars:
            continue
        picked.setdefault(section.post, []).append(section)
        spent += len(section.text)
    sliced = []
    for post, result in enumerate(results):
        chosen = [s for s in sections if s.post == post and s in picked.get(post, [])]
        text = "\n\n".join(s.text for s in chosen) or result.content[: max(200, budget_chars // (4 * len(results)))]
        sliced.append((result, text))
    return sliced


def fenced(block: CodeBlock, max_lines: int) -> str:
    """Return ``block`` as a fenced Markdown block, at most ``max_lines`` lines, language kept.

    The fence is longer than any backtick run in the code, so the code cannot close it.
    """
    lines = block.code.splitlines()
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], "..."]
    longest = max((len(run) for run in re.findall(r"`+", block.code)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}{block.language}", *lines, fence])



def term_rarity(terms: Sequence[str], sections: Sequence[Section]) -> dict[str, float]:
    """Return each of ``terms`` that some section has, weighted by its IDF over ``sections``.

    A term no section has is left out: it is a gap, not a topic a draft can miss.
    """
    wanted = set(terms)
    frequency = Counter(term for section in sections for term in section.term_set & wanted)
    n = len(sections)
    return {term: math.log(1 + n / frequency[term]) for term in dict.fromkeys(terms) if frequency[term]}


def topic_coverage(rarity: dict[str, float], section: Section) -> float:
    """Return the IDF-weighted share of the question's topic terms (``rarity``) that ``section`` has.

    1 when a section names every topic term, less when it names only the common ones
    ("test" on a test runner's docs) and misses the distinctive one ("TypeScript").
    """
    total = sum(rarity.values())
    present = section.term_set
    return sum(weight for term, weight in rarity.items() if term in present) / total if total else 1.0
