"""Whether accepted means answered: the answer-quality metrics of ``askai eval`` (pure functions).

Definitions:

- **false accepts**: accepted answers (``accepted`` or ``accepted_early``) to questions
  with ``must_mention`` that lack one of its terms; reported as a count and as a share
  of those accepted answers (target: at most 5 %).
- **answered**: the share of labelled answer questions (``kind`` answer, with
  ``expected_urls``) whose answer was accepted, cites an expected page and contains
  every ``must_mention`` term: what a reader asking it actually got.
- **card precision**: over every question that shows source cards, the cards the answer
  cites divided by the cards shown (micro-averaged; 1 when no card is shown). It holds by
  construction (a card is a cited page), so it says nothing of whether a card answers;
- **answering cards**: over labelled answer questions that show source cards, the cards
  that are an expected page (a page that answers the question) divided by the cards shown
  (micro-averaged; 1 when no card is shown): what a reader clicking a card finds.
- **off-topic fallback**: the share of off-topic questions that ended in ``fallback``
  (the fixed message, no site text at all), stricter than ending without cards.
- **false fallback**: its mirror, the share of labelled answer questions that ended in
  ``fallback``: a page answers them, and the reader got the "could not answer" message
  (target: 0).
- **follow-up answered**: the share of follow-up pairs whose follow-up, asked on the first
  question's thread, is *answered* by the rule above.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from askai_graph.evaluation.runner import QuestionResult

ACCEPTED = ("accepted", "accepted_early")


def mentions_all(result: QuestionResult) -> bool:
    """Whether the shown answer (not a fallback) contains every ``must_mention`` term, case-insensitively."""
    if result.outcome == "fallback":
        return False
    answer = result.answer.lower()
    return all(term.lower() in answer for term in result.must_mention)


def is_answered(result: QuestionResult) -> bool:
    """Accepted, citing an expected page, with every ``must_mention`` term."""
    cites_expected = bool(set(result.cited) & set(result.expected_urls))
    return result.outcome in ACCEPTED and cites_expected and mentions_all(result)


def answer_scores(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Return false accepts, answered, card precision, answering cards, off-topic and false fallback (module doc)."""
    accepted = [r for r in results if r.outcome in ACCEPTED and r.must_mention and r.kind == "answer"]
    false_accepts = [r for r in accepted if not mentions_all(r)]
    labelled = [r for r in results if r.kind == "answer" and r.expected_urls]
    shown = sum(len(set(r.sources)) for r in results)
    cited_cards = sum(len(set(r.sources) & set(r.cited)) for r in results)
    labelled_cards = sum(len(set(r.sources)) for r in labelled)
    answering_cards = sum(len(set(r.sources) & set(r.expected_urls)) for r in labelled)
    offtopic = [r for r in results if r.kind == "offtopic"]
    false_fallbacks = [r for r in labelled if r.outcome == "fallback"]
    return {
        "accepted_with_must_mention": len(accepted),
        "false_accepts": len(false_accepts),
        "false_accept_rate": len(false_accepts) / len(accepted) if accepted else 0.0,
        "false_accept_questions": [r.question for r in false_accepts],
        "labelled": len(labelled),
        "answered": sum(1 for r in labelled if is_answered(r)) / len(labelled) if labelled else 0.0,
        "cards_shown": shown,
        "card_precision": cited_cards / shown if shown else 1.0,
        "labelled_cards_shown": labelled_cards,
        "answering_cards": answering_cards / labelled_cards if labelled_cards else 1.0,
        "offtopic_fallback": sum(1 for r in offtopic if r.outcome == "fallback") / len(offtopic) if offtopic else 1.0,
        "false_fallbacks": len(false_fallbacks),
        "false_fallback": len(false_fallbacks) / len(labelled) if labelled else 0.0,
        "false_fallback_questions": [r.question for r in false_fallbacks],
    }


def followup_scores(pairs: Sequence[QuestionResult]) -> dict[str, Any]:
    """Return how many follow-ups (each pair's second run) were accepted and answered."""
    answered = sum(1 for r in pairs if is_answered(r))
    return {
        "pairs": len(pairs),
        "accepted": sum(1 for r in pairs if r.outcome in ACCEPTED),
        "answered_count": answered,
        "answered": answered / len(pairs) if pairs else 0.0,
        "unanswered_questions": [r.question for r in pairs if not is_answered(r)],
    }
