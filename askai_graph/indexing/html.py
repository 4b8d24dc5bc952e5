"""Turn one page of a built static site into a post, with trafilatura.

trafilatura (a maintained main-content extractor) drops navigation, headers, footers
and other boilerplate and returns the article as Markdown, headings and images kept
(image URLs resolved against the page URL). Its metadata gives the title, the canonical
URL (``<link rel="canonical">``) and ``<meta name="description">``. A page without a
canonical link gets the URL it is served at under the base URL: ``guide/index.html``
is ``BASE/guide/``, ``about.html`` is ``BASE/about.html``.

Code blocks stay fenced code blocks; trafilatura drops their language, so it is put back
from the page's own markup (``<code class="language-python">``, Sphinx's
``<div class="highlight-python">``), matched by each block's first line.

When the site has a ``sitemap.xml``, pages it does not list (404 pages, redirect
stubs, drafts left in the build) are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from askai_graph.indexing.anchors import html_anchors
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


def parse_html_page(rel: str, text: str, base_url: str | None, sitemap: frozenset[str] | None) -> Page | Skip:
    """Return the post for the built page at ``rel``, or a ``Skip`` saying why there is none."""
    return read_html_page(rel, text, served_url(rel, base_url) if base_url else None, sitemap)


def read_html_page(where: str, text: str, guess: str | None, sitemap: frozenset[str] | None = None) -> Page | Skip:
    """Return the post for the HTML page ``text`` found at ``where``, or a ``Skip`` saying why there is none.

    ``guess`` is the page's URL when it has no canonical link (where a built page is
    served, where a crawled one was fetched); the canonical link wins over it.
    """
    import trafilatura

    try:
        extracted = trafilatura.extract(
            text,
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
    url = as_text(meta.get("url"))
    if not is_http_url(url):
        if guess is None:
            return Skip(where, NO_CANONICAL)
        url = guess
    if sitemap is not None and url not in sitemap and (guess is None or guess not in sitemap):
        return Skip(where, "not listed in sitemap.xml")
    title, description = as_text(meta.get("title")) or where, as_text(meta.get("description"))
    return _page(where, text, body, url, title, description, as_date(meta.get("date")))


def read_content_html(where: str, text: str, url: str, title: str, description: str = "") -> Page | Skip:
    """Return the post for ``text``, a page's main content as its generator rendered it, at ``url``.

    What a site generator's plugin reads: the generator knows the page's URL, title and
    description, and its content has no navigation around it. So trafilatura only turns
    the HTML into Markdown: no metadata search, no fallback extractors (which cost ~70% of
    ``read_html_page`` on a docs page, and are there for a whole page of unknown layout).
    """
    import trafilatura

    text = _HEADERLINK.sub("", text)
    try:
        body = trafilatura.extract(
            text, url=url, output_format="markdown", include_images=True, include_links=False,
            include_comments=False, favor_recall=True, fast=True,
        )
    except Exception as exc:  # trafilatura raises many parser errors; any of them is a bad page
        return Skip(where, f"malformed HTML ({type(exc).__name__})")
    if not body:
        return Skip(where, "no main content found")
    return _page(where, text, _INTRAWORD_ESCAPE.sub("_", body), url, title, description, None)


# The permalink a generator puts in each heading (Python-Markdown's toc ``permalink``, Sphinx):
# its "¶" would end every heading's text. The heading's id stays.
_HEADERLINK = re.compile(r"<a\b[^>]*\bclass=\"[^\"]*\bheaderlink\b[^\"]*\"[^>]*>.*?</a>", re.IGNORECASE | re.DOTALL)
# trafilatura escapes every "_" in prose; inside a word it never starts emphasis (CommonMark),
# and an escaped identifier (model\_dump) is not what a reader types or an answer must quote.
_INTRAWORD_ESCAPE = re.compile(r"(?<=\w)\\_(?=\w)")


def _page(where: str, text: str, body: str, url: str, title: str, description: str, date: str | None) -> Page | Skip:
    """Return the post of the page ``text`` whose main content trafilatura turned into ``body``."""
    body, images = absolute_images(label_code_blocks(body, code_languages(text)), url, url)
    try:
        return make_page(
            {
                "title": title,
                "url": url,
                "summary": summary_line(description) or first_sentence(body),
                "body": body.strip(),
                "images": unique_images(images),
                "date": date,
                "anchors": html_anchors(text, body),
            },
            where,
        )
    except CorpusError as exc:
        return Skip(where, str(exc))


_LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight(?:-source)?)-([\w+#.-]+)")
_BARE_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*$")


def code_languages(html: str) -> dict[str, str]:
    """Return ``{first line of a <pre> block: its language}`` as the page's markup declares it."""
    if "<pre" not in html:
        return {}
    import lxml.html

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return {}
    found: dict[str, str] = {}
    for pre in root.iter("pre"):
        classes = " ".join(
            str(node.get("class") or "") for node in (pre, *pre.iterchildren("code"), *pre.iterancestors())
        )
        match = _LANGUAGE_CLASS.search(classes)
        first = next((line.strip() for line in pre.text_content().splitlines() if line.strip()), "")
        if match and first:
            found.setdefault(first, match.group(1).lower())
    return found


def label_code_blocks(body: str, languages: dict[str, str]) -> str:
    """Give each fence without an info string the language its block has in the page's markup."""
    if not languages:
        return body
    lines = body.split("\n")
    opening = True
    for i, line in enumerate(lines):
        match = _BARE_FENCE.match(line)
        if match is None:
            continue
        if opening:
            first = next((text.strip() for text in lines[i + 1 :] if text.strip()), "")
            language = languages.get(first)
            if language:
                lines[i] = f"{match.group(1)}{match.group(2)}{language}"
        opening = not opening
    return "\n".join(lines)


def read_sitemap(root: Path, max_bytes: int = 50_000_000) -> frozenset[str] | None:
    """Return the page URLs ``root/sitemap.xml`` lists, or ``None`` without a usable one."""
    path = root / "sitemap.xml"
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError:
        return None
    return sitemap_pages(data, max_bytes) if len(data) <= max_bytes else None
