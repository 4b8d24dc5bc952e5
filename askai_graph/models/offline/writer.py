"""The extractive Writer: answers from the retrieved section that best matches the question.

For an ordinary question it ranks the sections of the retrieved pages for the question
(``askai_graph.retrieval.sections``: BM25 over this request's sections, fused with the embedding
model's ranking when one is configured) and leads with the best
one: its most relevant sentences (IDF-weighted question terms, each adding a term or
scoring close to the best), cited by the page's exact ``source_url``, and, when the
question asks how, which option or what to write (``answer_form``), its most relevant
code block(s) verbatim, fenced, language kept, bounded in lines. Another section is
quoted only for a question term the first one does not cover; sentences that merely
share a covered word are never added. For a catalog question it lists the retrieved
posts with their links and summaries. It never writes a URL that was not retrieved in
prose, and says so plainly when nothing matches.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from langchain_core.embeddings import Embeddings

from askai_graph.evidence.results import SearchResult, analysed_inline
from askai_graph.models.writing import DraftRequest
from askai_graph.retrieval.section_vectors import shared
from askai_graph.retrieval.sections import (
    CodeBlock,
    IntroducedList,
    Section,
    fenced,
    page_sections,
    rank_sections,
    tables,
    term_rarity,
    topic_coverage,
)
from askai_graph.rules.answer_form import AnswerForm, has_form, question_form, topic_words
from askai_graph.rules.asked_names import spelled_headings
from askai_graph.rules.catalog import catalog_answer
from askai_graph.text import plain as plaintext
from askai_graph.text.identifiers import best_name_match, name_match, question_stems
from askai_graph.text.masking import searchable
from askai_graph.text.terms import content_terms, known_form, reading, reading_language, sentence_terms

# Quote only whole sentences (a capital first, a full stop last), never list fragments,
# and stop adding sentences once they match far worse than the best one.
_QUOTABLE = re.compile(r"^[A-Z0-9\"'(`*].*[.!?][\"')`*]?$")
MIN_WORDS = 6
_CJK_QUOTABLE = re.compile(r"^[^\s#|>].*[\u3040-\u30ff\u3400-\u9fff].*[。！？][」』）)]?$")
MIN_CJK_CHARS = 12
MIN_RELATIVE_SCORE = 0.35
# Questions whose answer is usually a code block: how to, which option, what to write,
# and a value (a default is often shown as code).
CODE_FORMS = frozenset({"instruction", "value"})
NOTHING_FOUND = "The site's articles don't seem to cover this question."


def markdown_link(result: SearchResult) -> str:
    """Return ``[title](url)``; the title is plain text, escaped so it renders as written."""
    return plaintext.markdown_link(result.title, result.source_url)


def quotable_sentences(content: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Return the sentences of a post that may be quoted, with their terms (cached per post text and language)."""
    return _quotable_sentences(content, reading_language())


@lru_cache(maxsize=4096)
def _quotable_sentences(content: str, language: str) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((sentence, terms) for sentence, terms in sentence_terms(content) if quotable(sentence))


def quotable(sentence: str) -> bool:
    """Whether ``sentence`` may be quoted: a whole sentence, long enough to say something.

    Chinese and Japanese write no spaces between words and no capitals: a sentence there
    ends with its full stop (or ! ?) and its length is counted in characters.
    """
    if _CJK_QUOTABLE.match(sentence):
        return len(sentence) >= MIN_CJK_CHARS
    return bool(_QUOTABLE.match(sentence)) and len(sentence.split()) >= MIN_WORDS


class ExtractiveWriter:
    """Deterministic extractive answer writer (see module docstring)."""

    reads_history = False
    """It answers from the retrieved pages alone: a thread's earlier turns never reach its text."""

    def __init__(
        self,
        max_sentences: int = 3,
        max_per_post: int = 2,
        max_code_blocks: int = 2,
        max_code_lines: int = 30,
        embeddings: Embeddings | None = None,
    ) -> None:
        """Configure how much of the evidence an answer quotes, and the embedding model that helps rank sections."""
        self.embeddings = embeddings
        # Shared with anchoring, and warmed by a server before its first request.
        self._vectors = shared(embeddings) if embeddings is not None else None
        self.max_sentences = max_sentences
        self.max_per_post = max_per_post
        self.max_code_blocks = max_code_blocks
        self.max_code_lines = max_code_lines

    def write(self, request: DraftRequest) -> str:
        """Return a Markdown draft for ``request``."""
        if request.catalog:
            return self._catalog(request.search_results)
        # A value the reader pasted is no word of the site (``masking.searchable``).
        question = searchable(request.question) or request.question
        with reading(request.locale):  # the pages and the question in the reader's language
            return self._answer(question, request.search_results, request.rejected)

    async def awrite(self, request: DraftRequest) -> str:
        """Write inline when the retrieved text is small (see ``evidence.INLINE_CHARS``), else in a worker thread.

        With an embedding model, always in a worker thread: embedding sections is a model call.
        """
        if self.embeddings is None and analysed_inline(request.search_results):
            return self.write(request)
        return await asyncio.to_thread(self.write, request)

    @staticmethod
    def _catalog(results: list[SearchResult]) -> str:
        # The site's table of contents: by nav section, "and N more" (askai_graph.rules.catalog).
        return catalog_answer(results) if results else NOTHING_FOUND

    def ranked_sections(self, question: str, results: list[SearchResult]) -> list[tuple[Section, float]]:
        """Return the retrieved pages' sections matching ``question``, best first: what a draft leads with.

        BM25 over the sections, weighed by the API names they give for a how-to or value
        question (``NameWeight``), fused with the embedding model's ranking when one is set.
        """
        sections = page_sections(results)
        code_form = question_form(question) in CODE_FORMS
        prefer = NameWeight(question) if code_form else None
        ranked = rank_sections(question, sections, self._similarity(question, sections), prefer)
        return spelled_first(question, ranked) if code_form else ranked

    def _answer(self, question: str, results: list[SearchResult], rejected: Sequence[str] = ()) -> str:
        form = question_form(question)
        ranked = self.ranked_sections(question, results)
        # "tall" is wanted as "tallest" when that is how the sections spell it (``text.close_forms``).
        spelled = set().union(*(section.terms for section, _ in ranked[:8])) if ranked else set()
        wanted = {known_form(term, spelled) for term in content_terms(question)}
        # A retry answers from the next section: the one a gate rejected would be rejected again.
        fresh = [(section, score) for section, score in ranked if not quoted_in(section, rejected)]
        ranked = fresh or ranked
        if not ranked:
            return NOTHING_FOUND
        best_score = ranked[0][1]
        # A page's title section often only announces its steps ("Let's translate the intro
        # to French."): when the best section has nothing to quote, the answer is in the next
        # one that ranks close to it and has (its steps, its code), not "not covered".
        for best, _ in [item for item in ranked[:UNSURE_SECTIONS] if item[1] >= MIN_RELATIVE_SCORE * best_score]:
            lead, label, code, row = self._quotable(question, form, best, wanted)
            if lead or code or row:
                break
        else:
            return NOTHING_FOUND
        ranked = [(best, score) for section, score in ranked if section is best] + [
            (section, score) for section, score in ranked if section is not best
        ]
        listed = introduced_list(best, wanted, lead)
        covered = wanted & (best.term_set if code or row else set().union(*(terms for _, terms in lead)))
        extra_form: list[str] = []
        if form in CODE_FORMS and not has_form(form, "\n".join([*(s for s, _ in lead), *code]), question):
            # The lead talks about the topic without the value or step asked for ("How many
            # candidates ...?" answered by a sentence without the number): quote the best
            # sentence that has the form and names the question's terms, from the best
            # section or, failing that, the next one that ranks close to it.
            found = self._form_sentence(question, form, ranked, wanted, best_score)
            if found is not None and found[0] is best:
                lead = sorted([*lead, found[1]], key=lambda item: _position(best.text, item[0]))
            elif found is not None:
                extra_form = [self._paragraph(results[found[0].post], [found[1][0]], named(found[0].heading))]
                covered |= wanted & found[1][1]
        if listed is not None:
            # The list answers, under the sentence announcing it and the section's heading
            # (a lead-in may only say "the following"; the heading says of what).
            opening = self._list(results[best.post], listed, plain_text(best.heading))
            covered |= wanted & set(content_terms(" ".join([listed.lead_in, *listed.items])))
        else:
            opening = self._paragraph(results[best.post], [s for s, _ in lead], label)
        parts = [opening, row, *code, *extra_form]
        # Another section (of this page or another) only for a question term the first
        # one leaves uncovered; a section repeating covered terms is a passing mention.
        for section, score in ranked[1:]:
            uncovered = (wanted - covered) & section.term_set
            if not uncovered or score < MIN_RELATIVE_SCORE * best_score:
                continue
            extra = self._sentences(question, section, wanted, covered, self.max_per_post, must=uncovered)
            if extra:
                parts.append(self._paragraph(results[section.post], [s for s, _ in extra], named(section.heading)))
                covered |= wanted & set().union(*(terms for _, terms in extra))
                break
        runners = self._runners_up(question, form, ranked, wanted, results, parts)
        if runners and listed is None and not label and best.heading:
            # Beside other sections, each answer goes under its own heading.
            parts[0] = self._paragraph(results[best.post], [s for s, _ in lead], plain_text(best.heading))
        return "\n\n".join(part for part in [*parts, *runners] if part)

    def _quotable(
        self, question: str, form: AnswerForm, section: Section, wanted: set[str]
    ) -> tuple[list[tuple[str, frozenset[str]]], str, list[str], str]:
        """Return what ``section`` gives to quote for ``question``: lead sentences, their label, code, a table row."""
        lead = self._sentences(question, section, wanted, set(), self.max_sentences)
        label = named(section.heading)
        if not lead and headed_by(section, wanted):
            # "Bounding the loop" answers "How do you bound the loop?" in sentences that
            # never repeat its words: the heading names the topic, its opening answers.
            lead = [(sentence, terms) for sentence, terms in quotable_sentences(section.text)][:HEADED_SENTENCES]
            label = label or plain_text(section.heading)
        code = self._code(section, wanted) if form in CODE_FORMS else []
        row = table_row(question, section, wanted) if form in CODE_FORMS else ""
        return lead, label, code, row

    def _runners_up(
        self,
        question: str,
        form: AnswerForm,
        ranked: list[tuple[Section, float]],
        wanted: set[str],
        results: list[SearchResult],
        parts: list[str],
    ) -> list[str]:
        """Return the sections ranking within ``UNSURE`` of the best, each under its heading with its citation.

        When the ranking cannot tell the best section from the next ones, betting on one
        answers wrongly as often as not: the reader gets the best ``UNSURE_SECTIONS``.
        """
        if not ranked:
            return []
        score_of = {id(section): score for section, score in ranked}
        if self.embeddings is not None:
            # Fused ranks score close together whatever the tie: unsure is read on the words.
            prefer = NameWeight(question) if form in CODE_FORMS else None
            score_of = {id(s): score for s, score in rank_sections(question, page_sections(results), None, prefer)}
        best_score = score_of.get(id(ranked[0][0]), 0.0)
        added: list[str] = []
        for section, _ in ranked[1:UNSURE_SECTIONS]:
            if best_score <= 0 or score_of.get(id(section), 0.0) < UNSURE * best_score:
                break
            picked = self._sentences(question, section, wanted, set(), self.max_per_post)
            code = self._code(section, wanted)[:1] if form in CODE_FORMS else []
            label = named(section.heading) or plain_text(section.heading)
            paragraph = self._paragraph(results[section.post], [s for s, _ in picked], label) if picked else ""
            if paragraph and not any(sentence in part for sentence, _ in picked for part in parts):
                added += [paragraph, *code]
        return added

    @staticmethod
    def _form_sentence(
        question: str, form: AnswerForm, ranked: list[tuple[Section, float]], wanted: set[str], best_score: float
    ) -> tuple[Section, tuple[str, frozenset[str]]] | None:
        """Return the first well-ranked section's best quotable sentence with ``form`` on the question's terms.

        In the best section one question term suffices (the section is on topic); in
        another, the sentence must name two (one shared word is a passing mention).
        """
        for rank, (section, score) in enumerate(ranked):
            if score < MIN_RELATIVE_SCORE * best_score:
                break
            need = 1 if rank == 0 else min(2, len(wanted))
            candidates = [
                (sentence, terms)
                for sentence, terms in quotable_sentences(section.text)
                if len(terms & wanted) >= need and has_form(form, sentence, question)
            ]
            if candidates:
                return section, max(candidates, key=lambda item: len(item[1] & wanted))
        return None

    def _similarity(self, question: str, sections: list[Section]) -> list[float] | None:
        """Return each section's cosine to the question, when an embedding model is configured."""
        if self.embeddings is None or self._vectors is None or not sections:
            return None
        matrix = self._vectors.matrix(sections)
        query = np.asarray(self.embeddings.embed_query(question), dtype=float)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        return [float(value) for value in (matrix @ query) / np.where(norms == 0, 1.0, norms)]

    def _sentences(
        self,
        question: str,
        section: Section,
        wanted: set[str],
        covered: set[str],
        limit: int,
        must: set[str] | None = None,
    ) -> list[tuple[str, frozenset[str]]]:
        """Pick the section's best sentences (document order): each adds a question term or nearly ties the best."""
        quotable = [(s, t) for s, t in quotable_sentences(section.text) if t & wanted]
        if must is not None:
            quotable = [(s, t) for s, t in quotable if t & must]
        if not quotable:
            return []
        # In the best section every sentence naming a question term is on its topic. In
        # another section a sentence sharing only one of them is usually about something
        # else ("Decide deliberately..." for "decide a hit", "background work" for "how
        # does caching work").
        counts = Counter(term for _, terms in quotable for term in terms & wanted)
        min_shared = min(2, len(wanted)) if must is not None else 1
        idf = {t: math.log(1 + len(quotable) / counts[t]) for t in counts}

        def score(terms: frozenset[str]) -> float:
            hits = sum(idf.get(t, 0.0) for t in terms & wanted)
            # An instruction sentence (a code span, an option) is what a how-to wants.
            return hits / math.sqrt(len(terms) or 1)

        candidates = [
            (i, s, t)
            for i, (s, t) in enumerate(quotable)
            if len(t & wanted) >= min_shared
        ]
        candidates.sort(key=lambda c: (-score(c[2]) - form_bonus(question, c[1]), c[0]))
        chosen: list[tuple[int, str, frozenset[str]]] = []
        seen = set(covered)
        top = 0.0
        for i, sentence, terms in candidates:
            if len(chosen) >= limit:
                break
            value = score(terms)
            if chosen and (value < MIN_RELATIVE_SCORE * top or not (terms & wanted) - seen and value < 0.8 * top):
                continue
            top = max(top, value)
            chosen.append((i, sentence, terms))
            seen |= terms & wanted
        return [(s, t) for _, s, t in sorted(chosen)]

    def _code(self, section: Section, wanted: set[str]) -> list[str]:
        """Return the section's most relevant code blocks, fenced, within the line budget."""
        blocks = [b for b in section.code if b.code.strip() and b.language.lower() != "mermaid"]
        if not blocks:
            return []
        scored = sorted(
            enumerate(blocks), key=lambda item: (-len(wanted & set(content_terms(item[1].code))), item[0])
        )
        picked: list[tuple[int, CodeBlock]] = []
        lines = 0
        for index, block in scored[: self.max_code_blocks]:
            size = min(len(block.code.splitlines()), self.max_code_lines)
            if picked and lines + size > self.max_code_lines:
                break
            picked.append((index, block))
            lines += size
        return [labelled(block, self.max_code_lines) for _, block in sorted(picked, key=lambda item: item[0])]

    @staticmethod
    def _list(result: SearchResult, listed: IntroducedList, name: str = "") -> str:
        """Return the list's lead-in, cited, and its items (at most ``MAX_LIST_ITEMS``), as one paragraph."""
        lead_in = _lead_in(listed)
        marker = "{}." if listed.ordered else "-"
        items = [f"{marker.format(n)} {plain_text(item)}" for n, item in enumerate(listed.items[:MAX_LIST_ITEMS], 1)]
        # No blank line: the list continues the lead-in's paragraph, the claim it completes.
        return "\n".join([f"{name + ': ' if name else ''}{lead_in} ({markdown_link(result)}):", *items])

    @staticmethod
    def _paragraph(result: SearchResult, picked: list[str], name: str = "") -> str:
        if not picked:
            return f"{name}: from {markdown_link(result)}:" if name else f"From {markdown_link(result)}:"
        text = " ".join(plain_text(s) for s in with_antecedents(picked, result.content))
        return f"{name}: {text} ({markdown_link(result)})" if name else f"{text} ({markdown_link(result)})"


def labelled(block: CodeBlock, max_lines: int) -> str:
    """Return ``block`` fenced, under its tab's name when it sits in a tab (``**npm**:``)."""
    code = fenced(block, max_lines)
    return f"**{plain_text(block.label)}**:\n{code}" if block.label else code


_IDENTIFIER = re.compile(r"-{0,2}[A-Za-z_@$][\w.$@/-]*")
MIN_ROW_TERMS = 2
"""Question terms an options-table row must name (or its first cell must be spelled from the question)."""


def table_row(question: str, section: Section, wanted: set[str]) -> str:
    """Return the header and the row of ``section``'s tables that names what ``question`` asks about, or ''.

    Reference pages give an option as a table row (name, default, CLI flag, config key):
    the row is the answer, the prose above it only introduces the table. The row must
    name two of the question's terms, or its first cell be an identifier spelled from the
    question's words (``printWidth`` for "the print width"). Cells are plain text: a link
    in a cell would be an unreviewed URL.
    """
    stems = question_stems(question)
    best: tuple[float, int, tuple[str, ...]] | None = None
    found = None
    for table in tables(section.text):
        rows = [tuple(plain_text(cell) for cell in row) for row in table.rows]
        terms = [set(content_terms(" ".join(cells))) for cells in rows]
        # Within a table the words every row shares ("model", "field") tell rows apart
        # least: a question term counts by its rarity among the rows, and a row saying
        # more than was asked ("greater than or *equal*") counts less.
        frequency = Counter(term for row_terms in terms for term in row_terms & wanted)
        for position, (cells, row_terms) in enumerate(zip(rows, terms, strict=True)):
            shared = row_terms & wanted
            name = max((name_match(stems, n) for n in _IDENTIFIER.findall(cells[0])), default=0.0) if cells else 0.0
            if len(shared) < MIN_ROW_TERMS and name < 0.5:
                continue
            weight = sum(math.log(1 + len(rows) / frequency[term]) for term in shared) / math.sqrt(len(row_terms))
            key = (weight + 2 * name, -position, cells)
            if best is None or key[:2] > best[:2]:
                best, found = key, table
    if best is None or found is None:
        return ""
    return found.markdown([best[2]])


UNSURE = 0.75
"""A section scoring within this share of the best one is a tie the ranking cannot break."""
UNSURE_SECTIONS = 3
"""Sections an answer quotes when the ranking is unsure: the best and up to two close runners-up."""

HEADED_SENTENCES = 2
"""Opening sentences quoted from a section whose heading alone names the question's terms:
two, since sentences that never repeat a question word would read as drift beyond that."""


def headed_by(section: Section, wanted: set[str]) -> bool:
    """Whether ``section``'s heading names two of the question's terms (one, for a one-word question)."""
    shared = wanted & set(content_terms(section.heading))
    return bool(shared) and len(shared) >= min(MIN_ROW_TERMS, len(wanted))


MAX_LIST_ITEMS = 8
"""Items of an introduced list a draft quotes: a reader scans a short list; a long one is a reference index."""
MIN_LIST_ITEMS = 2
"""A "list" of one item is a lead-in to something else (a code block below it)."""


def introduced_list(
    section: Section, wanted: set[str], lead: Sequence[tuple[str, frozenset[str]]]
) -> IntroducedList | None:
    """Return the list of ``section`` whose lead-in names the most question terms, when it names as many as ``lead``.

    "What metadata should every chunk carry?" is answered by the items under "Each chunk
    should carry the identifiers needed to cite and filter it later:", not by the best
    sentence elsewhere in the section: the lead-in must name at least as many of the
    question's terms as that sentence, and two at least (one, for a one-word question).
    """
    scored = [
        (len(wanted & set(content_terms(found.lead_in))), found)
        for found in section.lists
        if len(found.items) >= MIN_LIST_ITEMS
    ]
    if not scored:
        return None
    shared, found = max(scored, key=lambda item: item[0])  # the first on a tie
    # One shared word is a passing mention ("leaving" for "leave a field out"), as for a table row.
    best_sentence = max((len(wanted & terms) for _, terms in lead), default=0)
    if shared < min(MIN_ROW_TERMS, len(wanted)) or shared < best_sentence:
        return None
    return found


def _lead_in(listed: IntroducedList) -> str:
    """Return the list's lead-in as a draft quotes it: plain text, its colon after the citation."""
    return plain_text(listed.lead_in).removesuffix(":").rstrip()


NAMED_BONUS = 1.3
"""How much a section whose heading names an API counts more for a how-to or value question."""


def named_weight(section: Section) -> float:
    """Weigh a section whose heading names an option or API (a code span) higher for a how-to question.

    Docs put the answer to "how do I ..." under a heading naming what to use ("Using the
    `encoder` function") right after a page opening that only restates the problem.
    """
    return NAMED_BONUS if named(section.heading) else 1.0


NAME_BONUS = 1.5
"""How much more a section naming an identifier spelled from the question's words counts (at a full match)."""
PROSE_NAME_SHARE = 0.6
"""A name in a section's prose counts this share of one in its heading (a heading names the section's subject)."""


class NameWeight:
    """Weigh sections for a how-to or value question by the names they give (``identifiers``).

    A reference entry headed ```beforeEach(fn)``` or a guide whose prose names
    ``beforeEach`` answers "How do I run setup before each test?"; a ``setupFiles``
    entry that shares "setup" does not. Sections whose heading names any API keep the
    ``named_weight`` preference on top.
    """

    def __init__(self, question: str) -> None:
        """Take the question's words once: every retrieved section is weighed against them."""
        self.stems = question_stems(question)

    def __call__(self, section: Section) -> float:
        """Return the section's weight: ``named_weight`` times the bonus for its best-matching name."""
        heading = best_name_match(self.stems, section.heading)
        prose = best_name_match(self.stems, section.text)
        return named_weight(section) * (1 + NAME_BONUS * max(heading, PROSE_NAME_SHARE * prose))


SPELLED_REACH = 0.35
"""How close to the best section an entry spelled from the question must rank to lead instead."""


def spelled_first(question: str, ranked: list[tuple[Section, float]]) -> list[tuple[Section, float]]:
    """Return ``ranked`` with the best entry whose heading spells a name from the question moved to the front.

    The Critic refuses a draft leading with a reference entry named otherwise
    (``rules.asked_names``): the entry the question's words spell (```beforeEach(fn)```
    for "setup before each test") leads when it ranks within ``SPELLED_REACH`` of the best.
    """
    if not ranked:
        return ranked
    top = ranked[0][1]
    rarity = term_rarity(topic_words(question), [section for section, _ in ranked])
    lead = topic_coverage(rarity, ranked[0][0])
    for position, (section, score) in enumerate(ranked[1:], start=1):
        if score < SPELLED_REACH * top:
            break
        # An entry covering less of the question's topic than the lead answers part of
        # it ("serialize a field" of "... with a plain function using Annotated").
        if spelled_headings(question, [section]) and topic_coverage(rarity, section) >= lead:
            return [ranked[position], *ranked[:position], *ranked[position + 1 :]]
    return ranked


def form_bonus(question: str, sentence: str) -> float:
    """Prefer a sentence with the form asked for: an instruction for a how-to, a value for a value question."""
    form = question_form(question)
    return 0.5 if form != "explanation" and has_form(form, sentence, question) else 0.0


def quoted_in(section: Section, drafts: Sequence[str]) -> bool:
    """Whether one of ``drafts`` led with ``section``: quoted one of its sentences or code blocks first."""
    for draft in drafts:
        lead = draft.split("\n\n", 1)[0]
        if any(block.code.strip() and block.code.strip() in draft for block in section.code[:1]):
            return True
        if any(plain_text(sentence) in lead for sentence, _ in quotable_sentences(section.text)):
            return True
        # A lead-in alone ("For example:") may open any draft: its first item must follow it.
        if any(f"{_lead_in(found)} (" in lead and plain_text(found.items[0]) in lead for found in section.lists):
            return True
    return False


def _position(text: str, sentence: str) -> int:
    """Return where ``sentence`` starts in ``text`` (document order), or the end when it is not found."""
    found = text.find(sentence)
    return found if found >= 0 else len(text)


_CODE_HEADING = re.compile(r"`[^`\n]+`")


def named(heading: str) -> str:
    """Return a section heading that names an option or API (it holds a code span), else ''.

    Reference pages put the option in the heading ("`--verbose`", "`model_config`") and
    only describe it below: quoting the description without the heading would leave out
    the very thing the reader asked for.
    """
    return plain_text(heading) if _CODE_HEADING.search(heading) else ""


# A sentence opening with one of these leans on the one before it.
_DANGLING = frozenset("it this these that those they such instead however but so and also then otherwise".split())


def with_antecedents(picked: list[str], content: str) -> list[str]:
    """Return ``picked`` with the preceding sentence added before any that dangles."""
    document = [sentence for sentence, _ in sentence_terms(content)]
    kept: list[str] = []
    for sentence in picked:
        first = sentence.split(maxsplit=1)[0].strip(",;:").lower() if sentence.split() else ""
        position = document.index(sentence) if sentence in document else -1
        if first in _DANGLING and position > 0 and document[position - 1] not in kept:
            kept.append(document[position - 1])
        if sentence not in kept:
            kept.append(sentence)
    return kept


_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
# An inline link, or a reference link ("[`list`][]", MkDocs autorefs) not glued to a word ("x[0][1]").
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|(?<![\w\]])\[([^\]]+)\]\[[^\]]*\]")
_ANGLE = re.compile(r"<[^>\s]*>|<[a-zA-Z/][^>]*>")
_BARE_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
# A code span (CommonMark: a backtick run closed by a run of the same length).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# What stands for a code span while the prose around it is cleaned: no pattern above matches it.
_HELD = re.compile(r"\x00(\d+)\x00")


def plain_text(sentence: str) -> str:
    """Drop link targets, images, raw HTML and bare URLs from a quoted sentence; keep its code spans verbatim.

    Retrieved text is untrusted: quoting its URLs would put unreviewed links in a draft.
    A code span is the page's exact code, and inert in every renderer (no link, no tag is
    read inside it): ``httpx.get("<url>")``, ``--trailing-comma <all|es5|none>`` and
    ``jest.Mocked<Source>`` are quoted as written, never with their placeholders cut out.
    """
    spans: list[str] = []

    def hold(span: re.Match[str]) -> str:
        spans.append(span.group(0))
        return f"\x00{len(spans) - 1}\x00"

    sentence = _CODE_SPAN.sub(hold, sentence.replace("\x00", ""))
    sentence = _IMAGE.sub("", sentence)
    sentence = _LINK.sub(lambda link: link.group(1) if link.group(1) is not None else link.group(2), sentence)
    sentence = _ANGLE.sub("", sentence)
    sentence = " ".join(_BARE_URL.sub("", sentence).split())
    return _HELD.sub(lambda held: spans[int(held.group(1))], sentence)
