"""``GET /llms.txt`` and ``GET /llms-full.txt``: the served site's pages for language models.

The files ``askai index`` wrote next to the index (``indexing.llmstxt``) when the corpus
is a built index that has them; otherwise (the bundled sample site, a source folder, an
index built before these files existed) generated from the pages served, once per
corpus. Either way they follow the corpus a reload swaps in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from askai_graph.indexing.llmstxt import LLMS_FULL_TXT, LLMS_TXT, llms_full_txt, llms_txt, site_pages
from askai_graph.retrieval.corpus import Page
from askai_graph.server.guards.pools import bookkeeping

_RENDER: dict[str, Callable[[Sequence[Page]], str]] = {LLMS_TXT: llms_txt, LLMS_FULL_TXT: llms_full_txt}


def router() -> APIRouter:
    """Serve ``/llms.txt`` and ``/llms-full.txt`` for the corpus the app serves now."""
    routes = APIRouter()
    made: dict[tuple[str, str], str] = {}  # (corpus fingerprint, file) -> text, for generated files

    async def text(app: Any, name: str) -> str | None:
        reloader = getattr(app.state, "reloader", None)
        if reloader is None:  # a graph handed to the app: no corpus of its own to list
            return None
        corpus = reloader.retriever.corpus
        index: Path | None = reloader.index
        key = (corpus.fingerprint, name)
        if key not in made:
            written = index / name if index is not None else None
            if written is not None and written.is_file():
                made[key] = await bookkeeping(written.read_text, "utf-8")
            else:
                made[key] = await bookkeeping(lambda: _RENDER[name](site_pages(corpus)))
            for old in [k for k in made if k[0] != corpus.fingerprint]:
                del made[old]  # a reload swapped the corpus: only the current one is kept
        return made[key]

    def route(name: str) -> None:
        @routes.get(f"/{name}", include_in_schema=False, name=name)
        async def serve(request: Request) -> PlainTextResponse:
            body = await text(request.app, name)
            if body is None:
                return PlainTextResponse("this server answers from a graph it did not build: it has no pages\n", 404)
            return PlainTextResponse(body)

    route(LLMS_TXT)
    route(LLMS_FULL_TXT)
    return routes
