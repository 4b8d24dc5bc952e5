"""Anchored citations: each card quotes, verbatim, the retrieved passage its sentence rests on, and links to it."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document

from askai_graph import Settings, build_graph
from askai_graph.evidence.citations import QUOTE_MAX_CHARS, Citation, fragment_url, normalise_space, plain_heading
from askai_graph.evidence.results import EvidencePassage, HeadingAnchor, SearchResult
from askai_graph.indexing.anchors import heading_anchors
from askai_graph.models.offline.critic import LexicalCritic
from askai_graph.models.reviewing import ReviewRequest
from askai_graph.nodes.validation import Validate
from askai_graph.retrieval.anchoring import anchor_citations
from askai_graph.state import STATE_KEYS, AskState
from askai_graph.validation import Code, validate_draft
from tests.fakes import PASSING, ConceptEmbeddings, FakeRetriever, replies

PAGE = "https://docs.example/cache/"
OTHER = "https://docs.example/streams/"
CACHE_TEXT = """# Caching

The cache stores finished answers in Redis.

## Expiry

Entries expire after ten minutes, and a new index empties the cache at once.

```sh
askai serve --cache-ttl 600
```
"""
STREAM_TEXT = "# Streams\n\nTokens stream only once the answer is final, after the Source Gate decided."
ANCHORS = (HeadingAnchor(heading="Caching", id="caching"), HeadingAnchor(heading="Expiry", id="expiry"))


def result(url: str = PAGE, content: str = CACHE_TEXT, anchors: tuple[HeadingAnchor, ...] = ANCHORS) -> SearchResult:
    return SearchResult(title="Answer cache", source_url=url, content=content, anchors=anchors)


def unanchored(citations: list[Citation], results: list[SearchResult]) -> list[str]:
    draft = " ".join(f"See [it]({c.url})." for c in citations) or "Nothing."
    report = validate_draft(draft, results, citations=citations)
    return [issue.code for issue in report.errors if issue.code == Code.UNANCHORED_CITATION]


# --- anchoring -----------------------------------------------------------------------------


def test_a_citing_sentence_is_anchored_to_the_section_it_rests_on_and_its_heading_anchor() -> None:
    draft = f"Cached entries expire after ten minutes ([Answer cache]({PAGE})."
    [citation] = anchor_citations(draft, [result()])
    assert citation.section == "Expiry"
    assert citation.quote == "Entries expire after ten minutes, and a new index empties the cache at once."
    assert citation.anchor_url == f"{PAGE}#expiry"
    assert citation.support == 1.0


def test_a_page_without_anchors_is_linked_by_a_text_fragment_of_the_quote() -> None:
    draft = f"Cached entries expire after ten minutes ([Answer cache]({PAGE})."
    [citation] = anchor_citations(draft, [result(anchors=())])
    assert citation.anchor_url == fragment_url(PAGE, citation.quote)
    assert citation.anchor_url.startswith(f"{PAGE}#:~:text=Entries%20expire%20after%20ten%20minutes%2C")


def test_a_sentence_without_its_own_link_cites_its_paragraphs_pages() -> None:
    draft = f"Finished answers are stored in Redis. Entries expire after ten minutes ([Answer cache]({PAGE}))."
    citations = anchor_citations(draft, [result()])
    assert [(c.section, c.url) for c in citations] == [("Caching", PAGE), ("Expiry", PAGE)]


def test_the_quote_is_cut_at_a_word_within_the_limit() -> None:
    long_text = "# Long\n\n" + " ".join(["Redis keeps cached answers warm"] * 20) + "."
    [citation] = anchor_citations(f"Redis keeps cached answers warm ([x]({PAGE})).", [result(content=long_text)])
    assert len(citation.quote) <= QUOTE_MAX_CHARS
    assert citation.quote + " " in long_text  # a prefix of the sentence, ending at a word


_WORD = st.sampled_from("cache redis entries expire minutes index stream token answer gate the a of and".split())
_SENTENCE = st.lists(_WORD, min_size=3, max_size=40).map(lambda ws: " ".join(ws).capitalize() + ".")
_BLOCK = st.one_of(
    _SENTENCE,
    st.lists(_SENTENCE, min_size=1, max_size=3).map(lambda ss: "\n".join(f"- {s}" for s in ss)),
    _SENTENCE.map(lambda s: f"```\n{s}\n```"),
    _SENTENCE.map(lambda s: f"> {s}"),
    st.lists(_SENTENCE, min_size=2, max_size=4).map(" ".join),
    st.lists(_SENTENCE, min_size=2, max_size=3).map("\n".join),
)
_SECTION = st.tuples(st.lists(_WORD, min_size=1, max_size=4).map(" ".join), st.lists(_BLOCK, max_size=4))
_PAGE = st.lists(_SECTION, min_size=1, max_size=5).map(
    lambda sections: "\n\n".join(f"## {h}\n\n" + "\n\n".join(blocks) for h, blocks in sections)
)


@settings(max_examples=150, deadline=None)
@given(
    pages=st.lists(_PAGE, min_size=1, max_size=3),
    claims=st.lists(st.tuples(_SENTENCE, st.integers(0, 2)), max_size=6),
)
def test_every_quote_is_verbatim_retrieved_text_and_passes_validation(
    pages: list[str], claims: list[tuple[str, int]]
) -> None:
    # Every other page has its headings' anchors (as a docs tree gives them), the rest none.
    results = [
        result(url=f"{PAGE}{i}/", content=text, anchors=heading_anchors(text, "mkdocs") if i % 2 else ())
        for i, text in enumerate(pages)
    ]
    draft = " ".join(f"{sentence[:-1]} ([Page]({results[n % len(results)].source_url}))." for sentence, n in claims)
    citations = anchor_citations(draft, results)
    content = {r.source_url: normalise_space(r.content) for r in results}
    for citation in citations:
        assert citation.quote and len(citation.quote) <= QUOTE_MAX_CHARS
        assert normalise_space(citation.quote) in content[citation.url]
    assert unanchored(citations, results) == []


# --- Validation: the evidence rule ---------------------------------------------------------


def anchored() -> Citation:
    [citation] = anchor_citations(f"Cached entries expire after ten minutes ([Answer cache]({PAGE})).", [result()])
    return citation


def test_a_genuine_anchored_citation_passes_validation() -> None:
    assert unanchored([anchored()], [result()]) == []


def test_a_forged_quote_fails_validation_with_its_code() -> None:
    forged = anchored().model_copy(update={"quote": "Entries never expire."})
    assert unanchored([forged], [result()]) == [Code.UNANCHORED_CITATION]


def test_a_quote_from_another_retrieved_page_fails_validation() -> None:
    forged = anchored().model_copy(update={"quote": "Tokens stream only once the answer is final"})
    assert unanchored([forged], [result(), result(OTHER, STREAM_TEXT, ())]) == [Code.UNANCHORED_CITATION]


def test_a_forged_heading_anchor_fails_validation_with_its_code() -> None:
    forged = anchored().model_copy(update={"anchor_url": f"{PAGE}#install"})
    assert unanchored([forged], [result()]) == [Code.UNANCHORED_CITATION]


def test_an_anchor_of_a_heading_that_was_not_retrieved_fails_validation() -> None:
    page = result(anchors=(*ANCHORS, HeadingAnchor(heading="Eviction", id="eviction")))
    forged = anchored().model_copy(update={"anchor_url": f"{PAGE}#eviction"})
    assert unanchored([forged], [page]) == [Code.UNANCHORED_CITATION]


def test_an_anchor_on_another_host_fails_validation() -> None:
    forged = anchored().model_copy(update={"anchor_url": "https://evil.example/cache/#expiry"})
    assert unanchored([forged], [result()]) == [Code.UNANCHORED_CITATION]


def test_a_text_fragment_of_other_words_fails_validation() -> None:
    forged = anchored().model_copy(update={"anchor_url": f"{PAGE}#:~:text=Entries%20never%20expire"})
    assert unanchored([forged], [result()]) == [Code.UNANCHORED_CITATION]


def test_a_citation_of_a_page_not_retrieved_fails_validation() -> None:
    forged = anchored().model_copy(update={"url": OTHER})
    assert unanchored([forged], [result()]) == [Code.UNANCHORED_CITATION]


# --- the Critic: grounding per citing sentence ----------------------------------------------


def ungrounded(draft: str, results: list[SearchResult]) -> list[str]:
    evidence = [EvidencePassage(result=r, text=r.content) for r in results]
    request = ReviewRequest(question="How long do cached answers live in Redis?", draft=draft, evidence=evidence)
    return list(json.loads(LexicalCritic().review(request))["ungrounded_claims"])


def test_a_sentence_stitched_from_two_sections_of_its_page_is_an_ungrounded_claim() -> None:
    # Every word is on the page, but no one passage says it: the card could quote none.
    draft = f"Redis stores finished answers, which expire after ten minutes ([Answer cache]({PAGE}))."
    assert len(ungrounded(draft, [result()])) == 1


def test_a_sentence_citing_a_page_whose_passage_does_not_support_it_is_an_ungrounded_claim() -> None:
    draft = f"Tokens stream only once the answer is final ([Answer cache]({PAGE}))."
    assert len(ungrounded(draft, [result(), result(OTHER, STREAM_TEXT, ())])) == 1


def test_a_sentence_its_anchored_passage_supports_is_grounded() -> None:
    draft = f"Entries expire after ten minutes, and a new index empties the cache ([Answer cache]({PAGE}))."
    assert ungrounded(draft, [result()]) == []


def test_the_model_critics_rubric_judges_each_citing_sentence_against_its_passage() -> None:
    from askai_graph.models.prompts import CRITIC_SYSTEM

    rubric = " ".join(CRITIC_SYSTEM.split())
    assert "against the one passage of that page it rests on" in rubric


# --- cards ---------------------------------------------------------------------------------


def test_an_accepted_answers_card_carries_its_section_quote_and_anchor() -> None:
    page = Document(
        page_content=CACHE_TEXT,
        metadata={"source_url": PAGE, "title": "Answer cache", "anchors": [a.model_dump() for a in ANCHORS]},
    )
    draft = f"Cached entries expire after ten minutes ([Answer cache]({PAGE}))."
    graph = build_graph(writer=replies(draft), critic=replies(PASSING), retriever=FakeRetriever(documents=[page]))
    final = graph.invoke({"question": "When do cached entries expire?"}, output_keys=STATE_KEYS)
    assert final["outcome"] == "accepted"
    [card] = final["sources"]
    assert (card.section, card.anchor_url) == ("Expiry", f"{PAGE}#expiry")
    assert card.quote == "Entries expire after ten minutes, and a new index empties the cache at once."


ASYNC_TEXT = """# Async support

## [AsyncIO](https://docs.python.org/3/library/asyncio.html)

AsyncIO is the standard library's event loop, and the client runs on it with no extra install.
"""


def test_a_cards_section_is_the_headings_plain_text_not_its_markdown() -> None:
    anchors = [{"heading": "[AsyncIO](https://docs.python.org/3/library/asyncio.html)", "id": "asyncio"}]
    page = Document(page_content=ASYNC_TEXT, metadata={"source_url": PAGE, "title": "Async", "anchors": anchors})
    draft = f"The client runs on the AsyncIO event loop with no extra install ([Async]({PAGE}))."
    graph = build_graph(writer=replies(draft), critic=replies(PASSING), retriever=FakeRetriever(documents=[page]))
    final = graph.invoke({"question": "Does the client run on AsyncIO?"})
    [card] = final["sources"]
    # What the CLI, /api/chat, MCP and the widget all show: the heading as the page renders it.
    assert (card.section, card.anchor_url) == ("AsyncIO", f"{PAGE}#asyncio")


@pytest.mark.parametrize(
    ("heading", "shown"),
    [
        ("[AsyncIO](https://docs.python.org/3/library/asyncio.html)", "AsyncIO"),
        ('Using [Trio](https://trio.example "Trio") or [AnyIO][anyio]', "Using Trio or AnyIO"),
        ("![logo](logo.png) Install", "logo Install"),
        ("The `max_tokens` setting, **in short**", "The max_tokens setting, in short"),
        ("`[not](a link)` in code", "[not](a link) in code"),
        ("snake_case_names stay *as written*", "snake_case_names stay as written"),
        ("<https://example.org/x> and a \\* star", "https://example.org/x and a * star"),
        ("Plain heading", "Plain heading"),
        # Entities show as their characters, decoded once (Jest's headings; code spans keep theirs).
        ("`roots` \\[array&lt;string&gt;]", "roots [array<string>]"),
        ("AT&amp;amp;T and `&lt;b&gt;` and \\&lt;", "AT&amp;T and &lt;b&gt; and &lt;"),
    ],
)
def test_plain_heading_is_what_a_renderer_shows(heading: str, shown: str) -> None:
    assert plain_heading(heading) == shown


def test_a_cards_quote_is_the_text_the_page_shows_not_its_markdown() -> None:
    text = "# Serving\n\nRun **FastAPI** apps with `uvicorn main:app` behind [Starlette](https://www.starlette.io/)."
    page = Document(page_content=text, metadata={"source_url": PAGE, "title": "Serving"})
    draft = f"FastAPI apps run with uvicorn behind Starlette ([Serving]({PAGE}))."
    graph = build_graph(
        writer=replies(draft), critic=replies(PASSING), retriever=FakeRetriever(documents=[page]), settings=Settings()
    )
    [card] = graph.invoke({"question": "How do I run a FastAPI app?"})["sources"]
    assert card.quote == "Run FastAPI apps with uvicorn main:app behind Starlette."


def test_a_retriever_with_malformed_anchors_gets_text_fragment_cards() -> None:
    page = Document(page_content=CACHE_TEXT, metadata={"source_url": PAGE, "title": "Cache", "anchors": "oops"})
    draft = f"Cached entries expire after ten minutes ([Cache]({PAGE}))."
    graph = build_graph(
        writer=replies(draft), critic=replies(PASSING), retriever=FakeRetriever(documents=[page]), settings=Settings()
    )
    [card] = graph.invoke({"question": "When do cached entries expire?"})["sources"]
    assert "#:~:text=" in card.anchor_url


# --- with an embedding model: sections tied on shared terms are told apart by meaning ---------

TRAIL = "https://trail.example/notes/"
TRAIL_TEXT = (
    "## Hiking pace\n\nHiking at a steady pace saves energy for the last climb.\n\n"
    "## Hydration\n\nCarry two litres of water and stop to drink often."
)
TIED = f"Drink plenty while hiking ([Trail notes]({TRAIL}))."


def trail_state() -> AskState:
    page = SearchResult(title="Trail notes", source_url=TRAIL, content=TRAIL_TEXT)
    return AskState(question="What should I drink on a hike?", draft=TIED, search_results=[page])


def test_without_a_model_a_tie_goes_to_the_first_section() -> None:
    [citation] = Validate()(trail_state(), Settings())["citations"]
    assert citation.section == "Hiking pace"


def test_with_the_retrievers_model_a_tie_goes_to_the_section_closest_in_meaning() -> None:
    update = Validate(ConceptEmbeddings())(trail_state(), Settings())
    [citation] = update["citations"]
    assert (citation.section, citation.quote) == ("Hydration", "Carry two litres of water and stop to drink often.")
    assert update["validation"].ok


def test_an_async_run_anchors_with_the_model_off_the_event_loop() -> None:
    update = asyncio.run(Validate(ConceptEmbeddings()).acall(trail_state(), Settings()))
    assert [c.section for c in update["citations"]] == ["Hydration"]


class FailingEmbeddings(ConceptEmbeddings):
    def embed_query(self, text: str) -> list[float]:
        raise ConnectionError("the embeddings provider is down")


def test_a_failing_embedding_model_leaves_the_anchoring_lexical_not_a_failed_run() -> None:
    update = Validate(FailingEmbeddings())(trail_state(), Settings())
    assert [c.section for c in update["citations"]] == ["Hiking pace"] and update["validation"].ok
