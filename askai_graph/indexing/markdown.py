"""Turn one Markdown/MDX page of a docs tree (MkDocs, Docusaurus, Hugo, Jekyll) into a post.

The page is read the way its generator builds it (``sites.SiteProfile``):

- body: snippet includes resolved (MkDocs), admonitions, tabs and blocks unwrapped
  (MkDocs), MDX imports, exports and JSX tags dropped with the text inside kept
  (Docusaurus ``.md`` and ``.mdx`` alike; ``.mdx`` anywhere), attribute lists removed
  (``markup``); code blocks stay fenced code blocks with their language;
- URL: front matter ``url``/``permalink``/``slug``, else derived from the path (and the
  Docusaurus doc id) in the generator's URL style (``askai_graph.indexing.urls``);
- title, in this order: front matter ``title``, the nav's title (Docusaurus: the
  sidebar label or ``sidebar_label``), the first H1 outside code fences, the file name;
- summary: front matter ``summary``/``description``, else the body's first sentence,
  as one line of plain text (links become their text);
- order: the nav's rank when the site has a nav, else ``weight``/``order``/
  ``sidebar_position``/``nav_order``; section: the nav section; date: ``date``/
  ``publishDate``, else a Jekyll file-name date;
- images: front matter ``images`` plus every ``![alt](src)`` of the body on the page's
  own host, resolved to absolute URLs against the page's folder (as the generators
  resolve them); the body's image references are rewritten to those absolute URLs;
- ``draft: true`` pages are skipped.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from askai_graph.indexing.anchors import heading_anchors
from askai_graph.indexing.docusaurus import blog_path
from askai_graph.indexing.files import Skip
from askai_graph.indexing.frontmatter import FrontMatterError, as_date, as_number, as_text, split_front_matter
from askai_graph.indexing.markup import (
    clean_prose,
    fenced_lines,
    first_h1,
    plain_line,
    strip_mdx,
    summary_line,
    unwrap_mkdocs,
)
from askai_graph.indexing.nav import NavPlace
from askai_graph.indexing.sites import SiteProfile
from askai_graph.indexing.urls import file_date, folder_url, page_url, resolve
from askai_graph.retrieval.corpus import CorpusError, Page, make_page
from askai_graph.text.terms import sentences

_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"'\n]*[\"'])?\s*\)")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# CSS and scripts in a page are for the browser, never text a reader sees.
_STYLE_BLOCK = re.compile(r"^[ \t]*<(style|script)\b[^>]*>.*?</\1\s*>[ \t]*$", re.MULTILINE | re.DOTALL | re.IGNORECASE)
# A prose word: a list of dotted API names (``pydantic.main.BaseModel``) is no sentence.
_WORD = re.compile(r"(?:^|(?<=\s))[A-Za-z][A-Za-z'’-]*[,.;:!?)\"]*(?=\s|$)")
_NUMBER_PREFIX = re.compile(r"^\d+[-_.\s]+(?=\S)")
ORDER_KEYS = ("weight", "order", "sidebar_position", "nav_order")
SUMMARY_CHARS = 200
_GENERIC = SiteProfile()


def parse_markdown_page(
    rel: str, text: str, base_url: str | None, max_front_matter: int, site: SiteProfile | None = None
) -> Page | Skip:
    """Return the post for the page at ``rel``, or a ``Skip`` saying why there is none."""
    site = site or _GENERIC
    base_url = base_url if site is _GENERIC else site.base_url
    if site.prefix:
        if not rel.startswith(site.prefix):
            return Skip(rel, "outside the site's docs folder")
        rel = rel[len(site.prefix) :]
    try:
        meta, body = split_front_matter(text, max_front_matter)
    except FrontMatterError as exc:
        return Skip(rel, str(exc))
    # A blog post's URL follows the blog's rules (date path, slug under the blog's route).
    route, route_meta = blog_path(rel, meta) if site.blog else (rel, meta)
    if meta.get("draft") is True or str(meta.get("draft")).lower() == "true":
        return Skip(rel, "draft: true", draft=True)
    prose = generator_markdown(rel, body, site)
    body, anchors = clean_prose(prose), heading_anchors(prose, site.generator)
    doc_id = docusaurus_id(rel, meta) if site.generator == "docusaurus" and not site.blog else None
    place = site.nav.place(doc_id if site.nav_by_id and doc_id else rel)
    try:
        leaf = doc_id.rsplit("/", 1)[-1] if doc_id and isinstance(meta.get("id"), str) else None
        url = page_url(route, route_meta, base_url, trailing_slash=site.trailing_slash, html_urls=site.html_urls,
                       doc_id=leaf)
        # Without a base URL, relative images can only resolve against the page's own URL.
        against = folder_url(rel, base_url) or url
        body, body_images = absolute_images(body, against, url)
        images = _front_matter_images(meta.get("images"), against) + body_images
        return make_page(
            {
                "title": page_title(rel, meta, body, place),
                "url": url,
                "summary": summary_line(as_text(meta.get("summary")) or as_text(meta.get("description")))
                or first_sentence(body),
                "body": body.strip(),
                "images": unique_images(images),
                "weight": _order(meta, place, bool(site.nav.places)),
                "date": as_date(meta.get("date")) or as_date(meta.get("publishDate")) or file_date(rel),
                "section": place.section if place else "",
                "anchors": anchors,
            },
            rel,
        )
    except CorpusError as exc:
        return Skip(rel, str(exc))


def read_generator_markdown(rel: str, body: str, url: str, title: str, summary: str, site: SiteProfile) -> Page | Skip:
    """Return the post for ``body``, the Markdown of the page at ``rel`` as its generator hands it to its renderer.

    What a generator's plugin reads (MkDocs: ``page.markdown``, front matter removed):
    the same body, headings and sections as ``parse_markdown_page`` gives the page in
    the source tree, while the generator says its final ``url``, ``title`` and
    ``summary`` (its description). Relative images resolve against the page's folder
    under ``site.base_url``, as the generator resolves them.
    """
    prose = generator_markdown(rel, body, site)
    text, anchors = clean_prose(prose), heading_anchors(prose, site.generator)
    text, images = absolute_images(text, folder_url(rel, site.base_url) or url, url)
    try:
        return make_page(
            {
                "title": title,
                "url": url,
                "summary": summary_line(summary) or first_sentence(text),
                "body": text.strip(),
                "images": unique_images(images),
                "anchors": anchors,
            },
            rel,
        )
    except CorpusError as exc:
        return Skip(rel, str(exc))


def generator_markdown(rel: str, body: str, site: SiteProfile) -> str:
    """Return the page body in plain Markdown, attribute lists (custom heading ids) still in it."""
    if site.snippets is not None:
        body = site.snippets.expand(rel, body)
    if site.generator == "docusaurus" or rel.lower().endswith(".mdx"):
        body = strip_mdx(body)
    if site.generator != "docusaurus":
        body = unwrap_mkdocs(body)
    return without_style_blocks(body)


def without_style_blocks(body: str) -> str:
    """Remove ``<style>`` and ``<script>`` blocks outside fenced code: inside a fence they are the example's code."""
    runs: list[tuple[bool, list[str]]] = []
    for line, code in fenced_lines(body):
        if runs and runs[-1][0] == code:
            runs[-1][1].append(line)
        else:
            runs.append((code, [line]))
    return "\n".join("\n".join(lines) if code else _STYLE_BLOCK.sub("", "\n".join(lines)) for code, lines in runs)


def page_title(rel: str, meta: dict[str, Any], body: str, place: NavPlace | None) -> str:
    """Return the title: front matter, the nav's, the first H1 outside fences, the file name."""
    sidebar = as_text(meta.get("sidebar_label"))
    nav = (place.title if place else None) or sidebar
    return plain_line(as_text(meta.get("title"))) or plain_line(nav or "") or first_h1(body) or _name_title(rel)


def docusaurus_id(rel: str, meta: dict[str, Any]) -> str:
    """Return a Docusaurus doc id: the folder plus front matter ``id``, else the file name unprefixed."""
    parts = rel.rsplit("/", 1)
    folder = "/".join(_NUMBER_PREFIX.sub("", p) for p in parts[0].split("/")) + "/" if len(parts) == 2 else ""
    explicit = meta.get("id")
    leaf = explicit.strip() if isinstance(explicit, str) and explicit.strip() else parts[-1].rsplit(".", 1)[0]
    return folder + _NUMBER_PREFIX.sub("", leaf)


def _order(meta: dict[str, Any], place: NavPlace | None, has_nav: bool) -> float | None:
    if has_nav:
        # The nav is the site's order; a page it does not list comes after every listed one.
        return float(place.rank) if place else None
    return next((n for k in ORDER_KEYS if (n := as_number(meta.get(k))) is not None), None)


def first_sentence(body: str) -> str:
    """Return the body's first prose sentence as plain text, cut to about ``SUMMARY_CHARS`` characters."""
    # Paragraph by paragraph: splitting a whole long page into sentences only to keep
    # the first one would be most of the cost of indexing it.
    for paragraph in _PARAGRAPH_BREAK.split(body):
        for sentence in sentences(paragraph):
            plain = summary_line(_IMAGE.sub("", sentence))
            if len(_WORD.findall(plain)) >= 3:
                if len(plain) <= SUMMARY_CHARS:
                    return plain
                return plain[:SUMMARY_CHARS].rsplit(" ", 1)[0] + "…"
    return ""


def _name_title(rel: str) -> str:
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if stem.lower() in ("index", "_index", "readme") and "/" in rel:
        stem = rel.rsplit("/", 2)[-2]
    return " ".join(re.sub(r"^[\d-]+", "", stem).replace("-", " ").replace("_", " ").split()).capitalize() or stem


def absolute_images(body: str, against: str | None, page: str) -> tuple[str, list[dict[str, str]]]:
    """Return ``body`` with its image sources made absolute, and the site's own images with their alt text.

    Only images on the page's own host become image metadata (the URLs an answer may
    embed): an image of another host in the body may be an injected tracking pixel,
    and declaring it is what front matter ``images`` is for.
    """
    images: list[dict[str, str]] = []
    host = urlsplit(page).netloc

    def absolute(match: re.Match[str]) -> str:
        url = resolve(match.group(2), against)
        if url is None:
            return match.group(0)
        if urlsplit(url).netloc == host:
            images.append({"url": url, "alt": " ".join(match.group(1).split())})
        return f"![{match.group(1)}]({url})"

    return _IMAGE.sub(absolute, body), images


def _front_matter_images(value: Any, against: str | None) -> list[dict[str, str]]:
    if not isinstance(value, list):
        return []
    images = []
    for item in value:
        raw: Any = item.get("url") if isinstance(item, dict) else item
        if not isinstance(raw, str):
            raise CorpusError("images: each image needs a 'url'")
        url = resolve(raw.strip(), against)
        if url is None:
            raise CorpusError(f"url {raw!r} is not an absolute http(s) URL")
        alt = as_text(item.get("alt")) if isinstance(item, dict) else ""
        images.append({"url": url, "alt": alt})
    return images


def unique_images(images: list[dict[str, str]]) -> list[dict[str, str]]:
    """Return ``images`` without repeated URLs, keeping the first alt text that is not empty."""
    seen: dict[str, dict[str, str]] = {}
    for image in images:
        if image["url"] not in seen or (image["alt"] and not seen[image["url"]]["alt"]):
            seen[image["url"]] = image
    return list(seen.values())
