"""The lexical Critic: reviews a draft by term overlap and replies with Critique JSON.

Signals, each in [0, 1]:

- **answer_relevance**: share of the question's content terms the draft covers (its
  prose and its code).
- **grounding**: each draft sentence (links stripped) must have at least
  ``min_support`` of its content terms in its anchored passage, the one section of the
  posts it cites that holds most of them (``offline.grounding``; all evidence when it
  cites none); sentences below that are ``ungrounded_claims``.
- **drift_detected**: sentences off the question's topic (sharing none of its terms)
  make up a third of the draft, or a whole quoted paragraph.
- **intent_alignment**: the draft has the form asked for: a linked list of posts for a
  catalog question; otherwise prose that engages the question *and* the form its
  wording asks for (``askai_graph.rules.answer_form``): an instruction (a code block, command,
  option, setting or imperative step) for a how-to or which-option question, a value
  for a default / how-many / which-value question, a reason for a why question. A
  draft without that form talks around the question: intent fails, and the missing
  form ("code example", "default value", "reason") becomes a gap. A message that gives the
  assistant orders ("ignore your instructions", "you are now...", "reply only with...")
  is not a question about the site: quoted posts cannot align with it, so intent fails
  and no source card lends the site's authority to an injection attempt. A draft that
  leads with a page's opening summary (the text before its first heading, on a page with
  headed sections) shares words with any question on that page: no evidence that it
  answers this one, unless the question asks what the page's subject is.
- **confidence**: the mean of relevance and grounded share, times the share of question
  terms the evidence mentions at all, to the power 1.5 (gaps weigh heavily), times the
  square root of the share of those the passages the draft quotes (its cited posts'
  evidence) mention: relevance is judged on what the draft quotes, not on the union. For a
  catalog question it is fixed at 0.5: from a bounded evidence slice a lexical
  reviewer cannot tell whether a list of posts is complete. A question word the whole
  site never uses (``site_uses``, the index's vocabulary) is the reader's own word, a
  synonym no page could hold ("silence" for a quiet flag): it weighs ``unused_weight``
  of a gap, as long as such words are at most ``MAX_UNUSED_SHARE`` of the question. A
  question made mostly of words the site never uses ("How do I bake sourdough
  bread?") is about something else, and every gap weighs fully.
- **gaps**: question words the evidence never mentions; they steer the next Research.

The reply goes through the same strict parser as a model's, so the offline path
exercises the real contract.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import lru_cache

from askai_graph.evidence.results import EvidencePassage
from askai_graph.models.offline.grounding import claim_support
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.retrieval.sections import (
    Section,
    code_blocks,
    heading_terms,
    page_sections,
    term_rarity,
    topic_coverage,
)
from askai_graph.rules.answer_form import (
    FRAMING_TERMS,
    GAPS,
    AnswerForm,
    asked_verb,
    has_form,
    has_instruction,
    instruction_elements,
    is_definition_question,
    question_form,
    topic_words,
)
from askai_graph.rules.asked_names import missing_name
from askai_graph.rules.catalog import is_catalog_question
from askai_graph.text.identifiers import name_match, question_stems, span_names
from askai_graph.text.injection import gives_orders
from askai_graph.text.masking import searchable
from askai_graph.text.terms import (
    STOP_WORDS,
    content_terms,
    known_form,
    reading,
    reading_language,
    sentences,
    stem,
    words,
)

_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_LIST_LINK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[^\]]+\]\([^)]+\)", re.MULTILINE)
CATALOG_CONFIDENCE = 0.5
SUMMARY_PROBE = 60
"""Characters of a draft's first claim looked up in a page's opening text (a quote is verbatim)."""
ENTRY_PREFIX = 80
"""Characters within which the Writer's "`name`: " prefix to an entry's sentence ends."""
SUMMARY_GAP = "section"
"""The gap of a draft that leads with a page's opening summary when no question word points elsewhere."""
_MESSAGE = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”|`([^`\n]+)`")
MESSAGE_WORDS = 3
"""A quoted message of this many words is an error or output the reader saw, not a name to look up."""
RESTATED = "the answer restates the question"
"""The gap of a draft that adds nothing to the question and its section's heading."""
# What a section must hold for a how-to answer to owe the reader one: value and prose
# steps are no demand (a section's "Python 3.11" is no setting to quote).
_OWED = ("the code", "the option", "the command", "the numbered step")
INSTRUCTION_INTENT = 0.0
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
MAX_UNUSED_SHARE = 1 / 3
"""A question with more of its words unknown to the site than this is off topic: its gaps all weigh fully."""
MIN_TOPIC_COVERAGE = 0.4
"""The share of the question's topic (IDF-weighted) the section an answer leads with must name."""
MEANING_TOPIC_COVERAGE = 0.25
"""That share when retrieval and the Writer's ranking read meaning (an embedding model): the section was
chosen for what it says, so a topic word it lacks is more often the reader's synonym ("sleeping through
delays" for advancing fake timers) than a sign of a neighbouring topic. Measured on the three real sites
and the bundled one, hybrid: more answered on all four, no more false accepts (docs/benchmarks.md)."""


def prose_paragraphs(draft: str) -> list[str]:
    """Return the draft's paragraphs outside fenced code blocks.

    A quoted code block may hold blank lines; split naively, its lines would read as
    prose paragraphs (off topic, ungrounded) when they are verbatim code.
    """
    paragraphs: list[list[str]] = [[]]
    fence: str | None = None
    for line in draft.splitlines():
        opener = _FENCE.match(line)
        if fence is None and opener:
            fence = opener.group(1)
            paragraphs.append([])
        elif fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = None
        elif not line.strip():
            paragraphs.append([])
        else:
            paragraphs[-1].append(line)
    return ["\n".join(lines) for lines in paragraphs if lines]


@lru_cache(maxsize=4096)
def _post_terms(title: str, summary: str, language: str) -> frozenset[str]:
    return frozenset(content_terms(f"{title} {summary}", language or "en"))


PASSAGES_CACHED = 256
"""Evidence passages whose terms are kept: a passage is picked for one question and draft,
so it is read again within that request (its retries), seldom after; 128 already kept
the whole hit rate (``bench/caches.py --curves``)."""


@lru_cache(maxsize=PASSAGES_CACHED)
def _passage_terms(text: str, language: str) -> frozenset[str]:
    return frozenset(content_terms(text, language or "en"))


def _evidence_terms(passage: EvidencePassage) -> frozenset[str]:
    """Return the content terms of a passage and its post's title and summary.

    Cached: the same posts (and mostly the same passages) come back request after
    request; tokenising and stemming them again on every review is wasted work.
    """
    language = reading_language()
    return _post_terms(passage.result.title, passage.result.summary, language) | _passage_terms(passage.text, language)


def _with_headings(
    question: str, evidence: list[EvidencePassage], by_url: dict[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """Return ``by_url`` with the terms of the headings over what each passage quotes, when the question needs them.

    A heading is the page's own word for what its section covers, as the title is for the
    page, and sentence splitting drops it: "wire" only heads "The wire format". Headings
    only ever cover question words (a citing claim is judged on its anchored section,
    heading included), so a review whose question words the sentences already hold skips
    reading them.
    """
    found = set().union(*by_url.values()) if by_url else set()
    if all(known_form(term, found) in found for term in content_terms(question)):
        return by_url
    # Per passage, as ``by_url`` was made: of two passages of one page, the last one's.
    return {
        p.result.source_url: by_url[p.result.source_url] | heading_terms(p.result.title, p.result.content, p.text)
        for p in evidence
    }


_ITEM_LINE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])\s+")


def _introduced(paragraph: str) -> tuple[str, list[str]]:
    """Split ``paragraph`` into its prose and the list that follows it within the paragraph (each item's text)."""
    lines = paragraph.splitlines()
    first = next((i for i, line in enumerate(lines) if _ITEM_LINE.match(line)), len(lines))
    items = [_ITEM_LINE.sub("", line).strip() for line in lines[first:] if _ITEM_LINE.match(line)]
    return "\n".join(lines[:first]), items


def _sentence_claims(text: str, cited: set[str]) -> list[tuple[str, set[str], set[str]]]:
    """Return ``text``'s sentences as claims on ``cited`` (see ``LexicalCritic._claims``)."""
    claims = []
    for sentence in sentences(text):
        plain = _LINK.sub(r"\1", sentence).strip()
        link_titles = {t for t, _ in _LINK.findall(sentence)}
        # A bare citation like "(Title)" is not a claim of its own, nor is a
        # lead-in that only announces a list ("Here are the articles I found:").
        if plain.strip("() ") in link_titles or (plain.endswith(":") and not _LINK.search(sentence)):
            continue
        claims.append((plain, cited, set(content_terms(_LINK.sub("", sentence)))))
    return claims


def _announces(paragraph: str) -> bool:
    """Whether ``paragraph`` only announces what follows (a tab's name over its code: ``**npm**:``)."""
    text = paragraph.strip()
    return text.endswith(":") and "\n" not in text and not _LINK.search(text) and len(text.split()) <= 4


def _best_section(terms: set[str], sections: list[Section]) -> Section:
    """Return the section sharing the most of ``terms`` (the first on a tie): where a quoted sentence comes from."""
    return max(sections, key=lambda section: len(terms & section.term_set))


_HEADING_NAME = re.compile(r"`[^`]*`|\\?\[[^\]]*\]")


def _entry_heading(heading: str) -> bool:
    """Whether ``heading`` is an entry's name alone (```globalSetup` [string]``), not a guide title with code."""
    return "`" in heading and not re.search(r"[A-Za-z]", _HEADING_NAME.sub(" ", heading))


class LexicalCritic:
    """Deterministic lexical reviewer (see module docstring)."""

    reads_history = False
    """It judges from the retrieved pages alone: a thread's earlier turns never reach its verdict."""

    def __init__(
        self,
        min_support: float = 0.6,
        min_list_items: int = 3,
        min_topic_coverage: float = MIN_TOPIC_COVERAGE,
        site_uses: Callable[[str], bool] | None = None,
        unused_weight: float = 0.5,
    ) -> None:
        """Configure how strict grounding, topic and catalog form checks are.

        ``site_uses`` tells whether any page of the site has a term (the retriever's
        index knows); without it every gap weighs fully.
        """
        self.min_support = min_support
        self.min_topic_coverage = min_topic_coverage
        self.min_list_items = min_list_items
        self.site_uses = site_uses
        self.unused_weight = unused_weight

    async def areview(self, request: ReviewRequest) -> str:
        """Review inline: the evidence is already a bounded slice and scoring it is cheaper than a thread hop."""
        return self.review(request)

    def review(self, request: ReviewRequest) -> str:
        """Return the Critique JSON text for ``request``, reading it in the reader's language."""
        # A value the reader pasted is neither a question term nor a gap (``masking.searchable``).
        question = searchable(request.question) or request.question
        with reading(request.locale):
            return self._review(request.model_copy(update={"question": question}))

    def _review(self, request: ReviewRequest) -> str:
        question_terms = set(content_terms(request.question))
        if question_terms - FRAMING_TERMS:
            question_terms -= FRAMING_TERMS
        evidence_by_url = {p.result.source_url: _evidence_terms(p) for p in request.evidence}
        evidence_by_url = _with_headings(request.question, request.evidence, evidence_by_url)
        all_evidence = set().union(*evidence_by_url.values()) if evidence_by_url else set()
        # "tall" is covered by a page that says "tallest" (``text.close_forms``).
        question_terms = {known_form(term, all_evidence) for term in question_terms}
        claims = self._claims(request.draft)
        pages = {p.result.source_url: p.result for p in request.evidence}
        ungrounded = [
            text
            for text, cited, terms in claims
            if len(terms) >= 3 and claim_support(terms, cited, pages, all_evidence) < self.min_support
        ]
        gaps = self._gaps(request.question, all_evidence)
        catalog = is_catalog_question(request.question)
        if catalog:
            items = len(_LIST_LINK.findall(request.draft))
            relevance = min(1.0, items / self.min_list_items)
            intent = 1.0 if items >= self.min_list_items else 0.2
            drift = False
            confidence = CATALOG_CONFIDENCE
        else:
            form = question_form(request.question)
            # Citations are no part of the answer's form: "(Page 1)" states no value.
            answered = has_form(form, _LINK.sub("", request.draft), request.question)
            verb = asked_verb(request.question)
            if answered and form == "instruction" and verb and len(question_terms) > 1:
                # The instruction is the "how": "How do I *change* the line width?" is
                # answered by ``line-width = 100`` whether or not a page says "change".
                question_terms.discard(verb)
                gaps = [gap for gap in gaps if stem(gap) != verb]
            # Code and inline code count as the draft's words: ``--watch`` may be the answer.
            draft_terms = set(content_terms(_LINK.sub(r"\1", request.draft)))
            # A word no page of the site has weighs less (see ``_question_weight``).
            weight = self._question_weight(question_terms, all_evidence)
            relevance = len(question_terms & draft_terms) / weight if question_terms else 0.0
            drift = self._drifts(request.draft, claims, question_terms)
            intent = 1.0 if claims and relevance > 0 and answered and not _LIST_LINK.search(request.draft) else 0.3
            if not answered and GAPS[form]:
                # The missing form is what the next Research pass should look for.
                gaps = [*gaps, GAPS[form]]
            missed = self._missed_topic(request, form)
            if missed:
                # The draft quotes sections that never name what the question is about
                # (its rarest terms in the retrieved text): it answers a neighbouring
                # question. The topic term is what the next Research pass should stress.
                intent = 0.3
                gaps = [*gaps, *(term for term in missed if term not in gaps)]
            owed = self._owed_element(request, form, claims, request.draft) if answered else None
            if owed:
                # "Configure it in the project file" is an instruction in words, not the
                # instruction: the section it quotes holds the code, flag or step itself.
                intent = 0.3
                gaps = [*gaps, owed]
            summary = self._leads_with_summary(request, claims)
            if summary:
                # A page's opening text sums up the whole page, so it shares words with any
                # question on that page: leading with it is no sign the draft answers the asked thing.
                intent = 0.3
                gaps = [*gaps, *(term for term in summary if term not in gaps)]
            if not summary and self._inside_another_entry(request, claims):
                # "`--watch`: ... In most CI environments, this is handled for you." for a CI
                # question: a remark inside a reference entry named for something else.
                intent = 0.3
                gaps = [*gaps, *(term for term in self._rarest_topic(request) if term not in gaps)]
            name = self._missing_name(request, form, claims)
            if name:
                # "--findRelatedTests" for "only the tests related to the files I
                # changed": the draft quotes a neighbouring entry, not the one the
                # question names or spells (``rules.asked_names``).
                intent = 0.3
                gaps = [*gaps, name]
            if self._restates(request, claims) or self._repeats_the_error(request, claims):
                intent = 0.3
                gaps = [*gaps, RESTATED]
            if gives_orders(request.question):
                intent = INSTRUCTION_INTENT
            # Relevance of the evidence is judged on the passages the draft quotes (its
            # cited posts), not on everything retrieved: a term only an uncited page
            # mentions is not something this answer covers.
            quoted = self._quoted_terms(claims, evidence_by_url) or all_evidence
            known = question_terms & all_evidence
            coverage = len(known) / weight if question_terms else 0.0
            quoted_share = len(question_terms & quoted) / len(known) if known else 0.0
            grounded = 1 - len(ungrounded) / len(claims) if claims else 0.0
            # Coverage multiplies: a question term no evidence mentions (a gap) means the
            # site cannot answer that part, however well the rest reads (power 1.5); one
            # that only an uncited page mentions weighs less (square root), since a
            # paraphrase ("presented") often has no twin on the right page.
            confidence = (0.5 * relevance + 0.5 * grounded) * coverage**1.5 * quoted_share**0.5
        review = {
            "confidence": round(confidence, 3),
            "answer_relevance": round(relevance, 3),
            "intent_alignment": intent,
            "drift_detected": drift,
            "ungrounded_claims": ungrounded,
            "gaps": gaps,
        }
        return json.dumps(review)

    def _question_weight(self, question_terms: set[str], evidence_terms: set[str]) -> float:
        """Return how many terms the question counts for, a word the site never uses counting ``unused_weight``.

        The retrieved pages, and so the draft, cannot hold a word no page of the site
        has: the reader's synonym is no sign the site lacks the answer, where a word the
        site uses elsewhere, but not on the pages found, is. Relevance and coverage are
        shares of this weight.
        """
        if self.site_uses is None:
            return float(len(question_terms))
        unused = [term for term in question_terms - evidence_terms if not self.site_uses(term)]
        if len(unused) > MAX_UNUSED_SHARE * len(question_terms):
            unused = []
        return len(question_terms) - (1 - self.unused_weight) * len(unused)

    def _lead_sections(self, request: ReviewRequest, claims: list[tuple[str, set[str], set[str]]]) -> list[Section]:
        """Return, per citing claim in draft order, the section of its cited page it comes from."""
        results = list({p.result.source_url: p.result for p in request.evidence}.values())
        sections = page_sections(results)
        by_url: dict[str, list[Section]] = {}
        for section in sections:
            by_url.setdefault(results[section.post].source_url, []).append(section)
        found = []
        for _, cited, terms in claims:
            for url in cited:
                if url in by_url and terms:
                    section = _best_section(terms, by_url[url])
                    # The evidence may hold only part of a page: a section sharing few of
                    # the claim's terms is not where it comes from.
                    if len(terms & section.term_set) >= self.min_support * len(terms):
                        found.append(section)
        return found

    def _leads_with_summary(self, request: ReviewRequest, claims: list[tuple[str, set[str], set[str]]]) -> list[str]:
        """Return the topic words to search for when the draft leads with a page's opening summary, else [].

        The text before a page's first heading introduces everything the page covers; a
        question about one thing the page covers is answered in its section, and a draft
        that leads with the introduction has not found it. A question asking what the
        page's subject is (``is_definition_question``) is answered there, and a page
        without headed sections has no other place.
        """
        if is_definition_question(request.question):
            return []
        results = list({p.result.source_url: p.result for p in request.evidence}.values())
        sections = page_sections(results)
        first = next(((text, cited) for text, cited, terms in claims if cited and terms), None)
        if first is None:
            return []
        text, cited = first
        said = " ".join(text.split())[:SUMMARY_PROBE]
        openings = [
            section
            for section in sections
            if results[section.post].source_url in cited
            and not section.heading
            and said in " ".join(section.text.split())
        ]
        # A page without headed sections has no other place to answer from.
        headed = {section.post for section in sections if section.heading}
        if not any(section.post in headed for section in openings):
            return []
        rarity = term_rarity(topic_words(request.question), sections)
        return sorted(rarity, key=lambda term: -rarity[term])[:1] or [SUMMARY_GAP]

    @staticmethod
    def _rarest_topic(request: ReviewRequest) -> list[str]:
        """Return the question's rarest topic word over the retrieved sections (none when no section has one)."""
        results = list({p.result.source_url: p.result for p in request.evidence}.values())
        rarity = term_rarity(topic_words(request.question), page_sections(results))
        return sorted(rarity, key=lambda term: -rarity[term])[:1]

    def _inside_another_entry(self, request: ReviewRequest, claims: list[tuple[str, set[str], set[str]]]) -> bool:
        """Whether the draft leads with a sentence from inside a reference entry whose name the question never spells.

        A reference page heads each entry with its name (```--watch```, ```globalSetup```)
        and opens it with what the entry does. The opening sentence may answer a question
        in other words (``--bail`` for "stop after the first failing test"); a later
        sentence of an entry named otherwise is a remark on that entry, and a question
        word it shares ("CI", "test") is no sign it answers the question.
        """
        results = list({p.result.source_url: p.result for p in request.evidence}.values())
        first = next(((text, cited) for text, cited, terms in claims if cited and terms), None)
        if first is None:
            return False
        text, cited = first
        said = " ".join(text.replace("`", "").split())
        # The Writer names the entry before its sentence ("`--watch`: If you want...").
        said = said.split(": ", 1)[1] if ": " in said[:ENTRY_PREFIX] else said
        probe = said[:SUMMARY_PROBE]
        stems = question_stems(request.question)
        for section in page_sections(results):
            names = span_names(section.heading) if _entry_heading(section.heading) else []
            if not names or results[section.post].source_url not in cited:
                continue
            prose = " ".join(section.text.replace("`", "").split())
            if probe not in prose:
                continue
            if any(name_match(stems, name) > 0 for name in names):
                return False
            opening = next(iter(sentences(section.text)), "")
            return probe[: SUMMARY_PROBE // 2] not in " ".join(opening.replace("`", "").split())
        return False

    def _missing_name(
        self, request: ReviewRequest, form: AnswerForm, claims: list[tuple[str, set[str], set[str]]]
    ) -> str | None:
        """Return the name the question asks the draft to carry and it leaves out (``rules.asked_names``).

        The names headings spell from the question are owed by a how-to or value answer
        that leads with a reference entry.
        """
        results = list({p.result.source_url: p.result for p in request.evidence}.values())
        lead = self._lead_sections(request, claims)[:1] if form in ("instruction", "value") else []
        heading = lead[0].heading if lead else ""
        return missing_name(request.question, _LINK.sub(r"\1", request.draft), page_sections(results), heading)

    def _restates(self, request: ReviewRequest, claims: list[tuple[str, set[str], set[str]]]) -> bool:
        """Whether the draft adds no content term beyond the question and the headings of the sections it quotes.

        "Use single quotes instead of double quotes." for "How do I use single quotes
        instead of double quotes?" shares every word with the question and says nothing.
        """
        draft_terms = set(content_terms(_LINK.sub("", request.draft)))
        if not draft_terms:
            return False
        known = set(content_terms(request.question))
        for section in self._lead_sections(request, claims):
            known |= set(content_terms(section.heading))
        return not draft_terms - known

    @staticmethod
    def _repeats_the_error(request: ReviewRequest, claims: list[tuple[str, set[str], set[str]]]) -> bool:
        """Whether the draft leads with the message the reader quotes and gives no fix after it.

        "Tests crash with "TypeError: x is not a function"" is answered by what to do about
        it; a page sentence that says the same error occurs ("Jest returns `TypeError: x is
        not a function`") shares the question's rarest words and tells the reader nothing new.
        """
        messages = [" ".join("".join(groups).split()).lower() for groups in _MESSAGE.findall(request.question)]
        messages = [m for m in messages if len(m.split()) >= MESSAGE_WORDS]
        lead = next((text for text, cited, terms in claims if cited and terms), None)
        if not messages or lead is None:
            return False
        said = " ".join(lead.replace("`", "").split()).lower()
        if not any(message in said for message in messages):
            return False
        rest = "\n\n".join(text for text, _, _ in claims if text != lead)
        rest += "\n\n" + "\n\n".join(f"```\n{block.code}\n```" for block in code_blocks(request.draft))
        return not has_instruction(_LINK.sub("", rest), request.question)

    def _owed_element(
        self, request: ReviewRequest, form: AnswerForm, claims: list[tuple[str, set[str], set[str]]], draft: str
    ) -> str | None:
        """Return the instruction element a how-to draft leaves out of the section it quotes, else None.

        A how-to answer needs code, an option, a command, a numbered step or a value.
        When the draft has none and the section its first citing sentence comes from has
        one, the draft talks around that element: the gap names it.
        """
        if form != "instruction" or instruction_elements(_LINK.sub("", draft), request.question):
            return None
        for section in self._lead_sections(request, claims)[:1]:
            owed = [e for e in instruction_elements(section.text, request.question) if e.startswith(_OWED)]
            if owed:
                heading = f' under "{section.heading}"' if section.heading else ""
                return f"{owed[0]}{heading}"
        return None

    def _missed_topic(self, request: ReviewRequest, form: AnswerForm) -> list[str]:
        """Return the topic terms missing where the draft's answer comes from, or [] when it is on topic.

        The answer is the draft's parts with the form asked for (its code blocks and
        instruction sentences for a how-to; every quoted sentence for an explanation).
        Each comes from a section of the page it cites. At least one of those sections
        must cover ``min_topic_coverage`` of the question's topic words
        (``answer_form.topic_words``), weighted by IDF over the sections of every
        retrieved page: a section naming only the site's common words ("test" on a test
        runner's docs) and not the distinctive one ("TypeScript") answers another question.
        """
        results = list({p.result.source_url: p.result for p in request.evidence}.values())
        sections = page_sections(results)
        rarity = term_rarity(topic_words(request.question), sections)
        if not rarity:
            return []
        by_url: dict[str, list[Section]] = {}
        for section in sections:
            by_url.setdefault(results[section.post].source_url, []).append(section)
        sources = self._answer_sources(request, form, by_url)
        if not sources:
            return []
        # The answer's lead is what the reader takes away: it must be on topic.
        best = sources[0]
        if topic_coverage(rarity, best) >= self.min_topic_coverage:
            return []
        present = best.term_set
        return [term for term in sorted(rarity, key=lambda t: -rarity[t]) if term not in present]

    @staticmethod
    def _answer_sources(request: ReviewRequest, form: AnswerForm, by_url: Mapping[str, list[Section]]) -> list[Section]:
        """Return the sections the draft's answer-bearing parts come from (see ``_missed_topic``)."""
        found: list[tuple[int, Section]] = []
        cited_sections = [s for url in by_url if url in request.draft for s in by_url[url]]
        for block in code_blocks(request.draft):
            lines = [line.strip() for line in block.code.splitlines() if line.strip()]
            if lines:
                where = request.draft.find(lines[0])
                found.extend((where, s) for s in cited_sections if any(lines[0] in b.code for b in s.code))
        for paragraph in prose_paragraphs(request.draft):
            cited = [url for _, url in _LINK.findall(paragraph) if url in by_url]
            where = request.draft.find(paragraph)
            for sentence in sentences(paragraph):
                text = _LINK.sub(r"\1", sentence)
                terms = set(content_terms(_LINK.sub("", sentence)))
                if not cited or len(terms) < 2 or not has_form(form, text, request.question):
                    continue
                found.extend((where, _best_section(terms, by_url[url])) for url in cited)
        found.sort(key=lambda item: item[0])
        return [section for _, section in found]

    @staticmethod
    def _quoted_terms(claims: list[tuple[str, set[str], set[str]]], by_url: Mapping[str, frozenset[str]]) -> set[str]:
        cited = {url for _, urls, _ in claims for url in urls if url in by_url}
        return set().union(*(by_url[url] for url in cited)) if cited else set()

    @staticmethod
    def _drifts(draft: str, claims: list[tuple[str, set[str], set[str]]], question_terms: set[str]) -> bool:
        """Whether sentences off the question's topic weigh on the draft.

        A sentence sharing no question term is off topic. The draft drifts when half of
        its sentences are, or two and a third, or a whole paragraph (a quoted post): a
        paragraph that never touches the question is filler that only shares the page.
        """
        on_topic = [bool(terms & question_terms) for _, _, terms in claims if terms]
        off = on_topic.count(False)
        # One lead-in sentence (the antecedent of a "This ..." sentence) is tolerated.
        if off * 2 > len(on_topic) or (off >= 2 and off * 3 > len(on_topic)):
            return True
        for paragraph in prose_paragraphs(draft):
            if not sentences(paragraph) or _announces(paragraph):
                continue
            # The citation's link text (a page title) is not the paragraph's own prose.
            prose = set(content_terms(_LINK.sub("", paragraph)))
            if prose and not prose & question_terms:
                return True
        return False

    @staticmethod
    def _claims(draft: str) -> list[tuple[str, set[str], set[str]]]:
        """Split the draft's prose into (sentence text, cited URLs, content terms); code blocks are no claims.

        A list that a cited sentence announces ("Each chunk should carry ... (Page):")
        completes that sentence: lead-in and items are one claim, on its citation.
        """
        claims = []
        for paragraph in prose_paragraphs(draft):
            cited = {url for _, url in _LINK.findall(paragraph)}
            prose, items = _introduced(paragraph)
            announced = _sentence_claims(prose, cited) if items else []
            if announced and announced[-1][0].endswith(":"):
                text, cited_by, terms = announced[-1]
                announced[-1] = (f"{text} {'; '.join(items)}", cited_by, terms | set(content_terms(" ".join(items))))
                claims.extend(announced)
            else:
                claims.extend(_sentence_claims(paragraph, cited))
        return claims

    @staticmethod
    def _gaps(question: str, evidence_terms: set[str]) -> list[str]:
        missing = []
        for word in words(question):
            if word in STOP_WORDS or len(word) < 2 or known_form(stem(word), evidence_terms) in evidence_terms:
                continue
            if word in missing:
                continue
            if stem(word) in FRAMING_TERMS:  # "work" in "how does X work" is no search phrase
                continue
            missing.append(word)
        return missing
