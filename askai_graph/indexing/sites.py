"""Which generator builds a docs tree, and what its config says: read once per index run.

A ``SiteProfile`` is found by looking for the generator's config beside the docs tree
(never running it): ``mkdocs.yml`` (MkDocs), ``docusaurus.config.*`` or ``sidebars.*``
(Docusaurus), ``hugo.(toml|yaml|json)`` / ``config.(toml|yaml|json)`` with a ``baseURL``
(Hugo). It says where the tree is published (the config's URL unless ``--base-url``
overrides it), whether page URLs end in ``/`` (``--trailing-slash`` overrides the
config), and the nav (titles, order, sections). A tree no generator config is found for
is read as before: directory URLs, order from front matter.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from askai_graph.indexing.docusaurus import DocusaurusSite, docs_base_url, find_docusaurus
from askai_graph.indexing.files import Skip
from askai_graph.indexing.hugo import HugoSite, find_hugo
from askai_graph.indexing.mkdocs import MkDocsSite, find_mkdocs
from askai_graph.indexing.nav import Nav
from askai_graph.indexing.snippets import Snippets, repository_root

Generator = Literal["mkdocs", "docusaurus", "hugo", "generic"]


@dataclass
class SiteProfile:
    """How the generator of one docs tree builds it (see module docstring)."""

    generator: Generator = "generic"
    """The generator whose config was found."""
    base_url: str | None = None
    """Where the tree is published: ``--base-url``, else the config's URL."""
    trailing_slash: bool = True
    """Whether page URLs end in ``/`` (a Docusaurus site without the setting: no)."""
    html_urls: bool = False
    """MkDocs ``use_directory_urls: false``: ``page.html`` instead of ``page/``."""
    nav: Nav = field(default_factory=Nav)
    """The site's nav; empty when it has none."""
    nav_by_id: bool = False
    """Nav keys are Docusaurus doc ids rather than paths."""
    blog: bool = False
    """The tree is a Docusaurus blog: posts are routed by ``docusaurus.blog_path``."""
    prefix: str = ""
    """Where the docs root sits inside the indexed folder ('' for the folder itself)."""
    snippets: Snippets | None = None
    """Resolves snippet includes (MkDocs sites)."""
    notes: list[Skip] = field(default_factory=list)
    """What the config reader could not use, for the index report."""
    name: str | None = None
    """What the site calls itself (MkDocs ``site_name``, Docusaurus ``title``), if its config says."""
    mkdocs: MkDocsSite | None = None
    """What its ``mkdocs.yml`` says (an MkDocs site): its languages, for ``variants``."""
    docusaurus: DocusaurusSite | None = None
    """What its config and sidebars say (a Docusaurus site): its versions and languages, for ``variants``."""
    hugo: HugoSite | None = None
    """What its config says (a Hugo site): its languages, for ``variants``."""
    warnings: list[str] = field(default_factory=list)
    """What looks wrong in the flags given (a base URL outside the docs' route): ``askai index`` says it on stderr."""

    def digest(self) -> str:
        """Return a hash of everything the profile changes about parsed pages."""
        parts = [self.generator, self.base_url, self.trailing_slash, self.html_urls, self.nav_by_id, self.blog,
                 self.prefix, self.nav.digest_parts()]
        return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def site_profile(root: Path, base_url: str | None, trailing_slash: bool | None = None) -> SiteProfile:
    """Return the profile of the docs tree at ``root``; flags win over the config.

    Raises:
        ValueError: a generator config exists but cannot be read (the message says which).
    """
    mkdocs = find_mkdocs(root)
    if mkdocs is not None:
        docs = (root / mkdocs.prefix).resolve()
        profile = SiteProfile(
            generator="mkdocs",
            base_url=base_url or mkdocs.site_url,
            trailing_slash=True if trailing_slash is None else trailing_slash,
            html_urls=not mkdocs.directory_urls,
            nav=mkdocs.nav,
            prefix=mkdocs.prefix,
            name=mkdocs.name,
            mkdocs=mkdocs,
            snippets=Snippets(docs, [mkdocs.config.parent], repository_root(docs, mkdocs.config.parent)),
        )
        assert profile.snippets is not None
        profile.snippets.notes = profile.notes  # one list: the index report reads it
        return profile
    docusaurus = find_docusaurus(root)
    if docusaurus is not None:
        configured = docusaurus.trailing_slash
        warning = None
        if base_url:
            base_url, warning = docs_base_url(base_url, docusaurus.route)
        return SiteProfile(
            generator="docusaurus",
            base_url=base_url or docusaurus.url,
            warnings=[warning] if warning else [],
            # Unset, Docusaurus serves a page at the path its own links use: no slash.
            trailing_slash=trailing_slash if trailing_slash is not None else bool(configured),
            nav=docusaurus.nav,
            nav_by_id=True,
            notes=list(docusaurus.notes),
            name=docusaurus.title,
            docusaurus=docusaurus,
        )
    hugo = find_hugo(root)
    if hugo is not None:
        slash = True if trailing_slash is None else trailing_slash
        base = base_url or hugo.base_url or None
        return SiteProfile(generator="hugo", base_url=base, trailing_slash=slash, hugo=hugo)
    return SiteProfile(base_url=base_url, trailing_slash=True if trailing_slash is None else trailing_slash)
