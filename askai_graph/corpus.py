"""Load a site's posts: a folder of Markdown files with front matter, or a JSONL file.

Each post needs ``title`` and ``url``; ``summary`` and ``images`` (a list of
``{"url", "alt"}``) are optional. The bundled sample site is used when no corpus is set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from askai_graph.evidence import ImageRef
from askai_graph.plaintext import clean_post

BUNDLED_SITE = "sample_site"


class CorpusError(ValueError):
    """The corpus cannot be loaded; the message names the file and the problem."""


class Post(BaseModel):
    """One article of the site."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    title: str
    """Article title."""
    url: str
    """Canonical article URL, cited exactly."""
    summary: str = ""
    """One-line description."""
    body: str = ""
    """Markdown body without front matter."""
    images: tuple[ImageRef, ...] = ()
    """Images the article declares."""


class Corpus(BaseModel):
    """All posts of a site plus a fingerprint that changes whenever any post does."""

    model_config = ConfigDict(frozen=True)

    posts: tuple[Post, ...]
    """The posts, in a stable order."""
    fingerprint: str
    """SHA-256 over the posts' content; keys caches and indexes."""


def load_corpus(path: Path | None = None) -> Corpus:
    """Load posts from ``path`` (folder of ``*.md`` or a ``.jsonl`` file), or the sample site.

    Raises:
        CorpusError: the path is missing, empty, or a post is malformed.
    """
    if path is None:
        site = resources.files("askai_graph").joinpath(BUNDLED_SITE)
        return _from_markdown((entry.name, entry.read_text("utf-8")) for entry in site.iterdir())
    if path.is_dir():
        return _from_markdown((p.name, p.read_text("utf-8")) for p in path.iterdir())
    if path.is_file() and path.suffix == ".jsonl":
        return _from_jsonl(path)
    raise CorpusError(f"{path}: not a folder of Markdown posts or a .jsonl file")


def _from_markdown(files: Iterable[tuple[str, str]]) -> Corpus:
    posts = [_parse_markdown(name, text) for name, text in sorted(files) if name.endswith(".md")]
    return _corpus(posts, "folder")


def _parse_markdown(name: str, text: str) -> Post:
    if not text.startswith("---"):
        raise CorpusError(f"{name}: missing front matter (a '---' block with title and url)")
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        raise CorpusError(f"{name}: front matter is not closed by '---'")
    try:
        meta = yaml.safe_load(parts[0][3:])
    except yaml.YAMLError as exc:
        raise CorpusError(f"{name}: front matter is not valid YAML ({exc})") from None
    body = parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    return _post(name, {**(meta if isinstance(meta, dict) else {}), "body": body.strip()})


def _from_jsonl(path: Path) -> Corpus:
    posts = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if isinstance(record, dict) and "body" not in record:
            record["body"] = record.get("content", "")
        posts.append(_post(f"{path}:{number}", record))
    return _corpus(posts, str(path))


def _post(where: str, record: Any) -> Post:
    record = clean_post(record, where)
    if not isinstance(record, dict):
        raise CorpusError(f"{where}: a post must be an object with title and url")
    for key in ("title", "url"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise CorpusError(f"{where}: missing or empty '{key}'")
    # Citations are matched exactly against these URLs, and Validation accepts only
    # absolute http(s) links: a relative URL here could never be cited.
    images = [i["url"] for i in record.get("images") or () if isinstance(i, dict) and i.get("url") is not None]
    for url in [record["url"], *images]:
        parts = urlsplit(str(url))
        if parts.scheme not in ("http", "https") or not parts.netloc or str(url) != str(url).strip():
            raise CorpusError(f"{where}: url {url!r} is not an absolute http(s) URL")
    try:
        return Post.model_validate({**record, "images": record.get("images") or ()})
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise CorpusError(f"{where}: {field}: {problem['msg']}") from None


def _corpus(posts: list[Post], where: str) -> Corpus:
    if not posts:
        raise CorpusError(f"{where}: no posts found")
    seen: set[str] = set()
    for post in posts:
        if post.url in seen:
            raise CorpusError(f"{where}: duplicate url {post.url}")
        seen.add(post.url)
    digest = hashlib.sha256()
    for post in posts:
        digest.update(post.model_dump_json().encode())
    return Corpus(posts=tuple(posts), fingerprint=digest.hexdigest())
