"""Turn one page of a built static site into a post, with trafilatura.

trafilatura (a maintained main-content extractor) drops navigation, headers, footers
and other boilerplate and returns the article as Markdown, headings and images kept
(image URLs resolved against the page URL). Its metadata gives the title, the canonical
URL (``<link rel="canonical">``) and ``<meta name="description">``. A page without a
canonical link gets the URL it is served at under the base URL: ``guide/index.html``
is ``BASE/guide/``, ``about.html`` is ``BASE/about.html``.

The page is parsed once (lxml) and trafilatura reads that tree. Code blocks are read
from it first and set aside (``codeblocks``): trafilatura loses a highlighted block's
blank lines, and its language; they come back as fenced blocks labelled from the page's
own markup (``<code class="language-python">``, Sphinx's ``<div class="highlight-python">``).

When the site has a ``sitemap.xml``, pages it does not list (404 pages, redirect
stubs, drafts left in the build) are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from askai_graph.indexing.anchors import heading_ids, html_anchors
from askai_graph.indexing.codeblocks import CodeBlock, put_code_back, set_code_aside
from askai_graph.indexing.docusaurus_build import (
    BuildVariants,
    is_docusaurus,
    keep_content_only,
    marks_of,
    page_title,
)
from askai_graph.indexing.files import Skip
from askai_graph.indexing.frontmatter import FrontMatterError, as_date, as_text, split_front_matter
from askai_graph.indexing.markdown import absolute_images, first_sentence, unique_images
from askai_graph.indexing.markup import summary_line
from askai_graph.indexing.sitemap import sitemap_pages
from askai_graph.retrieval.corpus import CorpusError, Page, is_http_url, make_page

HTML_SUFFIXES = (".html", ".htm")
NO_CANONICAL = "no <link rel=canonical> and no base URL to derive one (askai index --base-url, or ASKAI_SITE_URL)"
# Only the page's own metadata: htmldate's extensive search guesses dates from copyright
# lines and URLs, which would put a site's footer year on every page.
_DATE_PARAMS = {"extensive_search": False, "original_date": True}


def served_url(rel: str, base_url: str) -> str:
    """Return the URL a static server gives the file at ``rel``."""
    path = rel[: -len("index.html")] if rel == "index.html" or rel.endswith("/index.html") else rel
    return base_url + quote(path, safe="/-._~%!$&'()*+,;=:@")


def parse_html_page(
    rel: str, text: str, base_url: str | None, sitemap: frozenset[str] | None, *, canonical: bool = True,
    build: BuildVariants | None = None,
) -> Page | Skip:
    """Return the post for the built page at ``rel``, or a ``Skip`` saying why there is none.

    ``build`` labels a Docusaurus page with the version and language its markup gives.
    A ``404.html`` is the server's "not found" page, never content.
    """
    if rel.rpartition("/")[2] == "404.html":
        return Skip(rel, "the site's 404 page")
    guess = served_url(rel, base_url) if base_url else None
    return read_html_page(rel, text, guess, sitemap, canonical=canonical, build=build)


def read_html_page(
    where: str, text: str, guess: str | None, sitemap: frozenset[str] | None = None, *, canonical: bool = True,
    build: BuildVariants | None = None,
) -> Page | Skip:
    """Return the post for the HTML page ``text`` found at ``where``, or a ``Skip`` saying why there is none.

    ``guess`` is the page's URL when it has no canonical link (where a built page is
    served, where a crawled one was fetched); the canonical link wins over it, unless
    ``canonical`` is false (a mike version's, which names another version).
    A Docusaurus page (``docusaurus_build``) is titled by its ``<h1>``, labelled with
    ``build``'s version and language, and skipped when it lists other pages.
    """
    import trafilatura

    root = _parse(text)
    if root is None:
        return Skip(where, "malformed HTML (no document)")
    docusaurus = is_docusaurus(root)
    marks = marks_of(root)
    if docusaurus and marks.listing:
        return Skip(where, "a Docusaurus list page (tags, authors, archive): its posts are indexed on their own")
    own_title = page_title(root) if docusaurus else ""
    if docusaurus:
        keep_content_only(root)
    ids, blocks = heading_ids(root), set_code_aside(root)
    _drop_permalinks(root)
    try:
        extracted = trafilatura.extract(
            root,
            url=guess,
            output_format="markdown",
            with_metadata=True,
            include_images=True,
            include_links=False,
            include_comments=False,
            favor_recall=True,
            date_extraction_params=_DATE_PARAMS,
        )
    except Exception as exc:  # trafilatura raises many parser errors; any of them is a bad page
        return Skip(where, f"malformed HTML ({type(exc).__name__})")
    if not extracted:
        return Skip(where, "no main content found")
    try:
        meta, body = split_front_matter(extracted)
    except FrontMatterError as exc:
        return Skip(where, f"unreadable metadata ({exc})")
    url = as_text(meta.get("url")) if canonical or guess is None else guess
    if not is_http_url(url):
        if guess is None:
            return Skip(where, NO_CANONICAL)
        url = guess
    if sitemap is not None and url not in sitemap and (guess is None or guess not in sitemap):
        return Skip(where, "not listed in sitemap.xml")
    title, description = own_title or as_text(meta.get("title")) or where, as_text(meta.get("description"))
    page = _page(where, body, blocks, ids, url, title, description, as_date(meta.get("date")))
    if build is None or isinstance(page, Skip):
        return page
    version, locale = build.version_of(marks), build.locale_of(marks)
    if not (version or locale):
        return page
    return page.model_copy(update={"version": version, "locale": locale, "doc": build.doc_of(where)})


def read_content_html(where: str, text: str, url: str, title: str, description: str = "") -> Page | Skip:
    """Return the post for ``text``, a page's main content as its generator rendered it, at ``url``.

    What a site generator's plugin reads: the generator knows the page's URL, title and
    description, and its content has no navigation around it. So trafilatura only turns
    the HTML into Markdown: no metadata search, no fallback extractors (which cost ~70% of
    ``read_html_page`` on a docs page, and are there for a whole page of unknown layout).
    """
    import trafilatura

    root = _parse(text)
    if root is None:
        return Skip(where, "malformed HTML (no document)")
    ids, blocks = heading_ids(root), set_code_aside(root)
    _drop_permalinks(root)
    try:
        body = trafilatura.extract(
            root, url=url, output_format="markdown", include_images=True, include_links=False,
            include_comments=False, favor_recall=True, fast=True,
        )
    except Exception as exc:  # trafilatura raises many parser errors; any of them is a bad page
        return Skip(where, f"malformed HTML ({type(exc).__name__})")
    if not body:
        return Skip(where, "no main content found")
    return _page(where, _INTRAWORD_ESCAPE.sub("_", body), blocks, ids, url, title, description, None)


def _parse(text: str) -> Any:
    """Return the page's lxml tree (what trafilatura and the code and anchor readers share), or ``None``."""
    import lxml.html

    try:
        return lxml.html.document_fromstring(text)
    except (ValueError, lxml.etree.ParserError):
        return None


def _drop_permalinks(root: Any) -> None:
    """Remove the permalink a generator puts in each heading (Python-Markdown's toc ``permalink``, Sphinx).

    Its "¶" would end every heading's text. The heading's id stays.
    """
    for link in list(root.iter("a")):
        if "headerlink" in str(link.get("class") or "").split():
            link.drop_tree()
# trafilatura escapes every "_" in prose; inside a word it never starts emphasis (CommonMark),
# and an escaped identifier (model\_dump) is not what a reader types or an answer must quote.
_INTRAWORD_ESCAPE = re.compile(r"(?<=\w)\\_(?=\w)")


# A reference link the generator left unresolved (mkdocs-autorefs' ``[`BaseModel`][pydantic.BaseModel]``
# or ``[dict][]`` in a build without its plugin) is shown as its brackets, which
# trafilatura escapes: ``\[`BaseModel`\]\[pydantic.BaseModel\]``. A resolved one would be
# a link showing its text; the page keeps that text.
_UNRESOLVED_REFERENCE = re.compile(r"\\\[(?P<text>(?:[^\[\]\n\\]|\\[^\n])+?)\\\]\\\[(?:[\w.:/#-]|\\_)*\\\]")


def _page(
    where: str, body: str, blocks: list[CodeBlock], ids: dict[str, list[str]],
    url: str, title: str, description: str, date: str | None,
) -> Page | Skip:
    """Return the post whose main content trafilatura turned into ``body``, its code blocks put back."""
    body = _UNRESOLVED_REFERENCE.sub(r"\g<text>", body)  # code is still set aside: only prose changes
    body, images = absolute_images(put_code_back(body, blocks), url, url)
    try:
        return make_page(
            {
                "title": title,
                "url": url,
                "summary": summary_line(description) or first_sentence(body),
                "body": body.strip(),
                "images": unique_images(images),
                "date": date,
                "anchors": html_anchors(ids, body),
            },
            where,
        )
    except CorpusError as exc:
        return Skip(where, str(exc))


def read_sitemap(root: Path, max_bytes: int = 50_000_000) -> frozenset[str] | None:
    """Return the page URLs ``root/sitemap.xml`` lists, or ``None`` without a usable one."""
    path = root / "sitemap.xml"
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError:
        return None
    return sitemap_pages(data, max_bytes) if len(data) <= max_bytes else None
