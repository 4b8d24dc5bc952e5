"""Turn one Markdown/MDX page of a docs tree (MkDocs, Docusaurus, Hugo, Jekyll) into a post.

- URL: front matter ``url``/``permalink``/``slug``, else derived from the path
  (``askai_graph.indexing.urls``);
- title: front matter ``title``, else the first heading, else the file name;
- summary: front matter ``summary``/``description``, else the body's first sentence;
- order: ``weight``/``order``/``sidebar_position``/``nav_order``; date: ``date``/
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

from askai_graph.corpus import CorpusError, Post, make_post
from askai_graph.indexing.files import Skip
from askai_graph.indexing.frontmatter import FrontMatterError, as_date, as_number, as_text, split_front_matter
from askai_graph.indexing.urls import file_date, folder_url, page_url, resolve
from askai_graph.text import sentences

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"'\n]*[\"'])?\s*\)")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_MDX_ESM = re.compile(r"^(?:import|export)\s.*$", re.MULTILINE)
ORDER_KEYS = ("weight", "order", "sidebar_position", "nav_order")
SUMMARY_CHARS = 200


def parse_markdown_page(rel: str, text: str, base_url: str | None, max_front_matter: int) -> Post | Skip:
    """Return the post for the page at ``rel``, or a ``Skip`` saying why there is none."""
    try:
        meta, body = split_front_matter(text, max_front_matter)
    except FrontMatterError as exc:
        return Skip(rel, str(exc))
    if meta.get("draft") is True or str(meta.get("draft")).lower() == "true":
        return Skip(rel, "draft: true", draft=True)
    if rel.lower().endswith(".mdx"):
        body = _MDX_ESM.sub("", body)
    try:
        url = page_url(rel, meta, base_url)
        # Without a base URL, relative images can only resolve against the page's own URL.
        against = folder_url(rel, base_url) or url
        body, body_images = absolute_images(body, against, url)
        images = _front_matter_images(meta.get("images"), against) + body_images
        return make_post(
            {
                "title": as_text(meta.get("title")) or first_heading(body) or _name_title(rel),
                "url": url,
                "summary": as_text(meta.get("summary")) or as_text(meta.get("description")) or first_sentence(body),
                "body": body.strip(),
                "images": unique_images(images),
                "weight": next((n for k in ORDER_KEYS if (n := as_number(meta.get(k))) is not None), None),
                "date": as_date(meta.get("date")) or as_date(meta.get("publishDate")) or file_date(rel),
            },
            rel,
        )
    except CorpusError as exc:
        return Skip(rel, str(exc))


def first_heading(body: str) -> str:
    """Return the text of the body's first Markdown heading, or ''."""
    match = _HEADING.search(body)
    return " ".join(match.group(1).replace("`", "").split()) if match else ""


def first_sentence(body: str) -> str:
    """Return the body's first prose sentence, cut to about ``SUMMARY_CHARS`` characters."""
    # Paragraph by paragraph: splitting a whole long page into sentences only to keep
    # the first one would be most of the cost of indexing it.
    for paragraph in _PARAGRAPH_BREAK.split(body):
        for sentence in sentences(paragraph):
            plain = " ".join(_IMAGE.sub("", sentence).split())
            if len(plain.split()) >= 3:
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
