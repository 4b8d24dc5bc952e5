"""The Critic's slice of a long page holds the sentences the draft quotes, whatever else shares the question's words."""

from __future__ import annotations

from askai_graph.evidence.results import evidence_slice
from askai_graph.nodes.research import to_search_results
from tests.fakes import post, url

QUESTION = "How do I give a field a description in the JSON schema?"
LEAD_IN = "Some field parameters customize the generated JSON schema"
# The item the draft quotes shares two of the question's and draft's words ...
QUOTED = "`description`: The description of the field, as the docs show it."
# ... each of these shares five, and they are shorter: they fill the budget and leave too little for it.
CROWD = " ".join(f"JSON schema field parameters customized {n}." for n in range(60))
PAGE = f"{LEAD_IN}:\n\n- {QUOTED}\n\n{CROWD}\n"
DRAFT = f"{LEAD_IN} ([Page 1]({url(1)})):\n- {QUOTED}"
BUDGET = 600


def sliced(draft: str) -> str:
    found = to_search_results([post(1, PAGE)], top_k=10)
    (passage,) = evidence_slice(QUESTION, draft, found, BUDGET)
    return passage.text


def test_the_sentence_the_draft_quotes_is_in_the_slice_of_a_long_page() -> None:
    assert QUOTED in sliced(DRAFT)


def test_a_sentence_the_draft_does_not_quote_is_ranked_by_the_words_it_shares() -> None:
    # The same item, not quoted: sentences sharing more words crowd it out.
    assert QUOTED not in sliced(f"{LEAD_IN} ([Page 1]({url(1)})).")
