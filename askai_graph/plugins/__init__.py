"""Ask AI inside a site generator's own build: MkDocs, Sphinx (and Docusaurus, from npm).

One module per concern, shared by the generators: ``options`` (what a site owner may
set, checked once), ``widget`` (the tags put on every page), ``rendered`` (the index
built from the pages the generator itself rendered, incrementally). Then one module per
generator: ``mkdocs`` (the ``askai`` entry point of ``mkdocs.plugins``) and ``sphinx``
(``extensions = ["askai_graph.sphinx"]``).
"""

from pathlib import Path

SITE_INDEX = Path("askai") / "index"
"""Where a plugin writes the index inside the built site (where ``askai serve --site`` looks)."""
