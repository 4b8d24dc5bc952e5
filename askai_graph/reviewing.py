"""The Critic seam: the review request, the bounded evidence slice, chat-model reviewers."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict

from askai_graph.evidence import SearchResult
from askai_graph.prompts import CRITIC_SYSTEM, CRITIC_USER
from askai_graph.text import content_terms, sentence_terms
from askai_graph.writing import format_sources, untrusted


class EvidencePassage(BaseModel):
    """The part of one retrieved post the Critic gets to read."""

    model_config = ConfigDict(frozen=True)

    result: SearchResult
    """The post the passage comes from."""
    text: str
    """Its most relevant sentences, in document order, within the budget."""


class ReviewRequest(BaseModel):
    """Everything the Critic may see for one review."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The reader's question."""
    draft: str
    """The draft under review."""
    evidence: list[EvidencePassage]
    """A bounded slice of the retrieved evidence."""


@runtime_checkable
class Reviewer(Protocol):
    """Anything that reviews a draft and replies with Critique JSON text."""

    def review(self, request: ReviewRequest) -> str:
        """Return the raw reply text (parsed strictly by the Critic node)."""
        ...

    async def areview(self, request: ReviewRequest) -> str:
        """Return the raw reply text without blocking the event loop."""
        ...


def evidence_slice(
    question: str, draft: str, results: list[SearchResult], budget_chars: int
) -> list[EvidencePassage]:
    """Pick, per post, the sentences most related to the question and draft, within budget.

    Posts the draft cites come first and share the budget evenly with the rest, so a
    long corpus never floods the Critic's context while the cited passages stay in view.
    """
    if not results:
        return []
    cited = [r for r in results if r.source_url in draft]
    ordered = cited + [r for r in results if r not in cited]
    per_post = max(120, budget_chars // len(ordered))
    focus = set(content_terms(question)) | set(content_terms(draft))
    passages: list[EvidencePassage] = []
    spent = 0
    for result in ordered:
        if spent >= budget_chars:
            break
        allowance = min(per_post, budget_chars - spent)
        analysed = sentence_terms(result.content) or ((result.content, frozenset()),)
        candidates = [sentence for sentence, _ in analysed]
        ranked = sorted(range(len(analysed)), key=lambda i: -len(focus.intersection(analysed[i][1])))
        chosen: list[int] = []
        used = 0
        for i in ranked:
            if used + len(candidates[i]) > allowance:
                continue
            chosen.append(i)
            used += len(candidates[i]) + 1
        text = " ".join(candidates[i] for i in sorted(chosen)) or candidates[0][:allowance]
        passages.append(EvidencePassage(result=result, text=text))
        spent += len(text)
    return passages


def reviewer_messages(request: ReviewRequest) -> list[BaseMessage]:
    """Build the Critic's chat messages for ``request``."""
    evidence = format_sources(
        [passage.result for passage in request.evidence],
        content=[passage.text for passage in request.evidence],
    )
    user = CRITIC_USER.format(question=request.question, draft=untrusted(request.draft), evidence=evidence)
    return [SystemMessage(CRITIC_SYSTEM), HumanMessage(user)]


class ChatModelReviewer:
    """A Reviewer backed by any LangChain chat model, wrapped with the project's prompts."""

    def __init__(self, model: BaseChatModel) -> None:
        """Wrap ``model``."""
        self.model = model

    def review(self, request: ReviewRequest) -> str:
        """Ask the model for a review."""
        return self.model.invoke(reviewer_messages(request)).text

    async def areview(self, request: ReviewRequest) -> str:
        """Ask the model for a review, asynchronously."""
        return (await self.model.ainvoke(reviewer_messages(request))).text
