"""A small Sphinx site built with the askai extension by tests/test_sphinx_site.py."""

project = "Lantern"
version = release = "2.1"
extensions = ["askai_graph.sphinx"]
html_baseurl = "https://lantern.example/docs/"
