"""The model seams: what a Writer, a Critic and a condenser are, and what fills them.

``writing``, ``reviewing`` and ``condensing`` define each role's protocol and request;
``prompts`` holds every prompt as a constant; ``adapter`` wraps any LangChain chat
model into those roles; ``offline`` holds the deterministic roles that need no model;
``local`` runs a local llama.cpp model; ``providers`` picks each role's default from
the settings.
"""
