"""Deterministic detection of broad catalog questions ("What course articles do you have?").

A question is a catalog question when, after lower-casing and dropping punctuation, it
asks *which content exists* rather than about a topic. The accepted phrasings are:

- "what/which [kinds of] [the|your|all] [course|site|blog|docs] <items> do you have / are
  there / are available / exist / can I read / do you offer / have you written / have you
  published / are on this site"
- "list / show [me] / give me [a list of] [all] [the|your] <items>"
- "what (do you|does the site|does the course) cover / offer / write about"
- "what topics ...", "[show me] [the] table of contents", "index of <items>"
- "what can you help [me] with"

each optionally ending in "on/in/of this site / the docs / the documentation / the blog",
where <items> is one of: articles, posts, lessons, tutorials, guides, pages, chapters,
modules, topics, entries, content, writings, docs, documents (singular or plural). Anything
else is an ordinary question: "What guides are there for deploying?" asks about a topic.
The rule is conservative by design: a false positive would let a low-confidence answer
stop after one pass.

A catalog question is answered from the site's own catalog, not from search hits for
the word "articles": its pages in the site's order (``retrieval.corpus.site_order_key``), which any
retriever offering ``catalog(limit)`` (``SiteCatalog``) provides. ``catalog_answer``
writes it: each nav section under its label, each page as a link with its nav title
and its one-line plain-text summary, and, when the site has more pages than were
listed, "and N more" with a link to the site's index page if that page was listed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol, runtime_checkable

from langchain_core.documents import Document

from askai_graph.evidence.results import SearchResult
from askai_graph.text import plain as plaintext

CATALOG_INTRO = "Here is what the site has:"
"""Few content words on purpose: the intro must not claim a word ("articles") the site may never use."""
OTHER_PAGES = "Other pages"

_ITEMS = (
    r"(?:articles?|posts?|lessons?|tutorials?|guides?|pages?|chapters?|modules?|topics?"
    r"|entries|entry|content|writings?|docs|documents?)"
)
_PLACE = r"(?:course|site|blog|website|docs|documentation)"
_SCOPE = (
    r"(?:(?:the|your|this|all|all the|all of the|all your|all of your)\s+)?"
    r"(?:(?:course|site|blog|website|docs|documentation)\s+)?"
)
# "... in the docs", "... on this site", "... of the documentation".
_WHERE = rf"(?:\s+(?:on|in|of|from)\s+(?:the|this|your)\s+{_PLACE})?"

_PATTERNS = [
    rf"^(?:what|which)\s+(?:kinds? of\s+|sorts? of\s+)?{_SCOPE}{_ITEMS}\s+"
    r"(?:do you have|are there|are available|exist|can i read|do you offer|have you written"
    rf"|have you published|does the {_PLACE} have|are in the {_PLACE}){_WHERE}$",
    rf"^(?:what|which)\s+{_SCOPE}{_ITEMS}\s+are\s+(?:on|in)\s+(?:the|this|your)\s+{_PLACE}$",
    r"^(?:can you\s+|could you\s+|please\s+)?(?:list|show(?: me)?|give me(?: a list of)?|enumerate)\s+"
    rf"{_SCOPE}{_ITEMS}{_WHERE}$",
    rf"^what (?:do you|does (?:the|this) {_PLACE}) (?:cover|offer|write about|teach)$",
    rf"^(?:what|which) {_ITEMS} (?:does|do) (?:the|this|your) {_PLACE} (?:have|cover|offer)$",
    rf"^(?:(?:show me|give me|what is|what s) )?(?:the |a )?table of contents{_WHERE}$",
    rf"^(?:an |the )?index of {_SCOPE}{_ITEMS}{_WHERE}$",
    r"^what can you (?:help(?: me)? with|tell me about)$",
]
_COMPILED = [re.compile(pattern) for pattern in _PATTERNS]


def normalize_question(question: str) -> str:
    """Lower-case, drop punctuation and collapse spaces."""
    return " ".join(re.sub(r"[^\w\s']", " ", question.lower()).split())


QUESTIONS_CACHED = 1_024
"""Questions whose catalog verdict is kept: Research, its result limit, the Critic and a router ask it of a run."""


@lru_cache(maxsize=QUESTIONS_CACHED)
def is_catalog_question(question: str) -> bool:
    """Return whether ``question`` asks for the catalog of the site's content."""
    text = normalize_question(question)
    return any(pattern.search(text) for pattern in _COMPILED)


@runtime_checkable
class SiteCatalog(Protocol):
    """A retriever that can list the site's pages in the site's own order."""

    def catalog(self, limit: int, version: str | None = None, locale: str | None = None) -> list[Document]:
        """Return the first ``limit`` pages in site order (of that version and language), as retriever Documents."""
        ...


def catalog_answer(results: list[SearchResult]) -> str:
    """Return the Markdown catalog of ``results`` (in the site's order): sections, links, summaries, "and N more"."""
    lines = [CATALOG_INTRO, ""]
    section = ""  # pages before the first section (a home page) need no label
    for result in results:
        if result.section != section:
            label = plaintext.escape_markdown(plaintext.plain_text(result.section or OTHER_PAGES))
            lines += ([""] if lines[-1] else []) + [f"**{label}**", ""]
            section = result.section
        summary = plaintext.escape_markdown(plaintext.plain_text(result.summary))
        link = plaintext.markdown_link(result.title, result.source_url)
        lines.append(f"- {link}: {summary}" if summary else f"- {link}")
    more = max((r.site_pages for r in results), default=0) - len(results)
    if more > 0:
        home = index_page(results)
        where = f": see {plaintext.markdown_link(home.title, home.source_url)}." if home else "."
        lines += ["", f"And {more} more{where}"]
    return "\n".join(lines)


def index_page(results: list[SearchResult]) -> SearchResult | None:
    """Return the listed page every other listed URL lies under (the site's index page), if any."""
    for result in sorted(results, key=lambda r: len(r.source_url)):
        root = result.source_url if result.source_url.endswith("/") else result.source_url + "/"
        if all(r is result or r.source_url.startswith(root) for r in results):
            return result
        break
    return None
