"""The Sphinx extension's import name: ``extensions = ["askai_graph.sphinx"]`` (see ``plugins.sphinx``)."""

from askai_graph.plugins.sphinx import setup

__all__ = ["setup"]
