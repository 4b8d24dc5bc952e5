"""The evidence a draft is judged on, and the verdicts that travel with it in the state.

``results`` holds what Research retrieves (``SearchResult``, ``ImageRef``) and bounded
slices of it, ``citations`` the citations a draft makes of those results, and
``critique`` the Critic's typed verdict (``Critique``) with its strict parser.
"""
