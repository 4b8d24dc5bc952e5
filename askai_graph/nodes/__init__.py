"""The graph's nodes, one module each; collaborators are injected by ``build_graph``."""
