"""A site's own table of contents: where each page sits in its nav, under which title.

Generators keep a nav apart from the pages (MkDocs ``nav:``, Docusaurus sidebars). A
``Nav`` maps a page key (its path relative to the docs root for MkDocs, its doc id for
Docusaurus) to a ``NavPlace``: the title the nav gives it (``None`` when the nav lists
the bare path), the section it is listed under, and its rank in reading order.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class NavPlace:
    """Where one page sits in the site's nav."""

    rank: int
    """Position in the nav's reading order, from 0."""
    title: str | None = None
    """The title the nav gives the page, if it names it."""
    section: str = ""
    """The label of the nav section the page is listed under ('' at the top level)."""


@dataclass
class Nav:
    """The pages a nav lists, in order, by page key."""

    places: dict[str, NavPlace] = field(default_factory=dict)
    """Page key -> place; the first listing of a page wins."""

    def add(self, key: str, title: str | None, section: str) -> None:
        """List the page ``key`` next, unless the nav already listed it."""
        if key not in self.places:
            self.places[key] = NavPlace(len(self.places), title or None, section)

    def place(self, key: str) -> NavPlace | None:
        """Return where the page ``key`` sits, or ``None`` if the nav does not list it."""
        return self.places.get(key)

    def digest_parts(self) -> list[object]:
        """Return what the nav contributes to the index's parse context."""
        return [(k, p.rank, p.title, p.section) for k, p in self.places.items()]
