"""The Writer seam: what a draft request holds, the Writer protocol and its chat-model prompt."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict

from askai_graph.evidence.results import SearchResult
from askai_graph.models.condensing import history_block
from askai_graph.models.prompts import SOURCE_BLOCK, WRITER_FEEDBACK, WRITER_SYSTEM, WRITER_USER
from askai_graph.retrieval.sections import section_slice
from askai_graph.state import Turn
from askai_graph.text.fencing import fence
from askai_graph.text.plain import markdown_link


class DraftRequest(BaseModel):
    """Everything the Writer may see for one draft."""

    model_config = ConfigDict(frozen=True)

    question: str
    """The question to answer (a follow-up already rewritten to stand alone)."""
    search_results: list[SearchResult]
    """Retrieved posts; the only citable URLs."""
    feedback: list[str] = []
    """Why the previous draft was rejected (validation errors, critic failures)."""
    catalog: bool = False
    """Whether the question asks which posts exist."""
    evidence_chars: int | None = None
    """Characters of the posts a model's prompt carries (the sections that best match the
    question, code included); ``None`` means whole posts. Sliced by the writer that reads it: the offline
    writer never pays for it."""
    history: list[Turn] = []
    """The conversation's most recent turns (bounded), oldest first; context, not evidence."""
    rejected: list[str] = []
    """This question's earlier drafts that a gate rejected: the retry should answer from something else."""
    locale: str = ""
    """The reader's language (the run's ``locale``; '' for the site's default): the pages' language."""


@runtime_checkable
class Writer(Protocol):
    """Anything that turns a DraftRequest into Markdown, sync and async."""

    def write(self, request: DraftRequest) -> str:
        """Return a Markdown draft."""
        ...

    async def awrite(self, request: DraftRequest) -> str:
        """Return a Markdown draft without blocking the event loop."""
        ...


def format_sources(results: list[SearchResult], *, content: list[str] | None = None) -> str:
    """Render retrieved posts as fenced, labelled, untrusted ``<source>`` blocks."""
    blocks = []
    for index, result in enumerate(results, start=1):
        images = ", ".join(f"{image.url} (alt: {image.alt})" for image in result.images) or "none"
        blocks.append(
            SOURCE_BLOCK.format(
                index=index,
                title=fence(result.title),
                source_url=fence(result.source_url),
                images=fence(images),
                cite_as=fence(markdown_link(result.title, result.source_url)),
                content=fence(content[index - 1] if content is not None else result.content),
            )
        )
    return "\n\n".join(blocks)


def writer_messages(request: DraftRequest) -> list[BaseMessage]:
    """Build the Writer's chat messages for ``request``."""
    feedback = (
        WRITER_FEEDBACK.format(problems="\n".join(f"- {item}" for item in request.feedback))
        if request.feedback
        else ""
    )
    if request.evidence_chars is None:
        sources = format_sources(request.search_results)
    else:
        # A model's context is finite: it gets the sections that best match the
        # question, code blocks included (the exact code is often the answer).
        sliced = section_slice(request.question, request.search_results, request.evidence_chars)
        sources = format_sources([result for result, _ in sliced], content=[text for _, text in sliced])
    user = WRITER_USER.format(
        question=fence(request.question), history=history_block(request.history), feedback=feedback, sources=sources
    )
    return [SystemMessage(WRITER_SYSTEM), HumanMessage(user)]
