"""A site versioned with mike (MkDocs): the root of mike's built branch, one built site per version.

mike deploys each version of an MkDocs site into a folder of its own on one branch
(``gh-pages``) and lists them in the branch's ``versions.json``::

    [{"version": "1.1", "title": "1.1", "aliases": ["latest"]},
     {"version": "1.0", "title": "1.0", "aliases": []}]

Each version's pages are served at the branch's URL + ``<version>/``. Its aliases
(``latest``, ``stable``) are other folders of the branch (copies or redirects), never
indexed: a reader naming an alias reads the version it points to. The version a reader
who names none gets is the one aliased ``latest``, else the first listed (mike lists the
newest first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

VERSIONS_FILE = "versions.json"
LATEST = "latest"
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class MikeVersion:
    """One version ``versions.json`` lists whose built site is in the branch."""

    version: str
    """Its label: the folder it is built in, and what its URLs spell."""
    aliases: tuple[str, ...]
    """Other names a reader may give it (``latest``)."""
    folder: Path
    """Its built site."""


@dataclass(frozen=True)
class MikeSite:
    """The versions of a mike branch, newest first as ``versions.json`` lists them."""

    versions: tuple[MikeVersion, ...]

    @property
    def default(self) -> str:
        """Return the version aliased ``latest``, else the first listed."""
        latest = next((v.version for v in self.versions if LATEST in v.aliases), None)
        return latest or self.versions[0].version

    def aliases(self) -> dict[str, str]:
        """Return each alias with the version it names."""
        return {alias: v.version for v in self.versions for alias in v.aliases if alias != v.version}


def find_mike(root: Path) -> MikeSite | None:
    """Return the mike site whose branch root is ``root``, or ``None`` when it is none.

    It is one when ``root/versions.json`` is mike's list of objects and at least one
    version it lists has its folder there (Docusaurus' ``versions.json`` is a list of strings).
    """
    path = root / VERSIONS_FILE
    if not path.is_file():
        return None
    try:
        listed = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(listed, list) or not listed or not all(isinstance(e, dict) for e in listed):
        return None
    versions = []
    for entry in listed:
        label, aliases = entry.get("version"), entry.get("aliases")
        if not isinstance(label, str) or not _VERSION.match(label) or not (root / label).is_dir():
            continue
        named = tuple(a for a in aliases if isinstance(a, str) and a) if isinstance(aliases, list) else ()
        versions.append(MikeVersion(label, named, root / label))
    return MikeSite(tuple(versions)) if versions else None


def sitemap_paths(sitemap: frozenset[str] | None) -> frozenset[str] | None:
    """Return every path tail of the URLs a version's ``sitemap.xml`` lists (``a/b/`` gives ``a/b/``, ``b/``, '').

    mike builds every version with the site's one ``site_url``, so a version's sitemap
    names its pages without the version: a page is listed when its path in the version
    is the tail of a listed URL's path.
    """
    if sitemap is None:
        return None
    tails: set[str] = set()
    for url in sitemap:
        parts = urlsplit(url).path.lstrip("/").split("/")
        tails.update("/".join(parts[i:]) for i in range(len(parts)))
    return frozenset(tails)
