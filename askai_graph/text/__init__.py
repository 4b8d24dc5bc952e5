"""Text helpers every layer uses: no answer rule, no model, no I/O.

``terms`` tokenises and stems, ``plain`` turns Markdown into plain text and escapes
reader text, ``fencing`` fences untrusted text for a prompt, ``identifiers`` finds
code-like names, ``injection`` spots instructions hidden in retrieved text,
``unlinking`` strips the links of an answer that may not show them, and ``masking``
masks what readers paste (contacts, cards, secrets) before anything is stored.
"""
