"""Split a page's front matter from its body and load it safely.

YAML (``---``, Jekyll, MkDocs, Docusaurus, Hugo) is loaded with PyYAML's *safe* loader
(the C one when libyaml is there): no Python objects, no tags that run code. TOML
(``+++``, Hugo) goes through the standard library's ``tomllib``. Front matter longer
than a limit is refused before it is parsed, so a hostile file cannot make the loader
build a huge document (YAML aliases expand exponentially).
"""

from __future__ import annotations

import datetime as dt
import tomllib
from typing import Any

import yaml

try:  # the C loader is ~10x faster, which matters at 100k pages
    _SafeLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment,unused-ignore]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _SafeLoader = yaml.SafeLoader

DEFAULT_MAX_FRONT_MATTER_BYTES = 65_536


class FrontMatterError(ValueError):
    """The front matter is present but unusable; the message says why."""


def split_front_matter(text: str, max_bytes: int = DEFAULT_MAX_FRONT_MATTER_BYTES) -> tuple[dict[str, Any], str]:
    """Return ``(metadata, body)``; a page without front matter has empty metadata.

    Raises:
        FrontMatterError: the block is not closed, too long, not valid YAML/TOML, or
            not a mapping.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    first, _, rest = text.partition("\n")
    fence = first.strip()
    if fence not in ("---", "+++"):
        return {}, text
    end = _closing_fence(rest, fence)
    if end is None:
        raise FrontMatterError(f"front matter is not closed by '{fence}'")
    block, body = rest[:end], rest[end:].partition("\n")[2]
    if len(block.encode()) > max_bytes:
        raise FrontMatterError(f"front matter is longer than {max_bytes} bytes")
    try:
        meta = tomllib.loads(block) if fence == "+++" else yaml.load(block, Loader=_SafeLoader)  # noqa: S506
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        kind = "TOML" if fence == "+++" else "YAML"
        raise FrontMatterError(f"front matter is not valid {kind} ({_problem(exc)})") from None
    if meta is None:
        return {}, body
    if not isinstance(meta, dict):
        raise FrontMatterError("front matter is not a mapping of keys to values")
    return meta, body


def _problem(exc: Exception) -> str:
    """Return the parser's complaint in one short line (YAML's spans several)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        # +2: the mark counts from 0 and from the line after the opening fence.
        return f"{exc.problem} at line {exc.problem_mark.line + 2}"
    return " ".join(str(exc).split())


def _closing_fence(rest: str, fence: str) -> int | None:
    """Return the offset of the closing fence line in ``rest``, or ``None``."""
    offset = 0
    for line in rest.splitlines(keepends=True):
        if line.rstrip() == fence:
            return offset
        offset += len(line)
    return None


def as_text(value: Any) -> str:
    """Return a front matter value as one line of text ('' for anything not scalar)."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        return ""
    return str(value)


def as_number(value: Any) -> float | None:
    """Return a front matter value as an order number, or ``None`` if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def as_date(value: Any) -> str | None:
    """Return a front matter date as ISO ``YYYY-MM-DD[THH:MM:SS]`` text, or ``None``."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            try:
                return dt.date.fromisoformat(text[:10]).isoformat()
            except ValueError:
                return None
        if len(text) <= 10:
            return parsed.date().isoformat()
        return parsed.replace(tzinfo=None).isoformat(timespec="seconds")
    return None
